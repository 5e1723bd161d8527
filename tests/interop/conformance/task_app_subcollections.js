// ElectroDB's `TaskApp` service (of the service "taskapp") with sub-collections, as its
// complex collection examples declare it: employees (`employees`), tasks (`tasks`) and
// project members (`projectMembers`). On `gsi2`, by employee, all three are in the
// collection `contributions`, and tasks and project members in its sub-collection
// `assignments`; on the table, by project, tasks and project members are in `overview`.
"use strict";

const { Entity, Service } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

const model = (entity) => ({ entity, version: "1", service: "taskapp" });
const string = { type: "string" };

function entity(client, table) {
  const employees = new Entity({
    model: model("employees"),
    attributes: { employeeId: string, organizationId: string, name: string, team: { type: ["jupiter", "mercury", "saturn"] } },
    indexes: {
      staff: {
        pk: { field: "pk", composite: ["organizationId"] },
        sk: { field: "sk", composite: ["employeeId"] },
      },
      employee: {
        collection: "contributions",
        index: "gsi2",
        pk: { field: "gsi2pk", composite: ["employeeId"] },
        sk: { field: "gsi2sk", composite: [] },
      },
    },
  });
  const tasks = new Entity({
    model: model("tasks"),
    attributes: { taskId: string, employeeId: string, projectId: string, title: string, body: string },
    indexes: {
      project: {
        collection: "overview",
        pk: { field: "pk", composite: ["projectId"] },
        sk: { field: "sk", composite: ["taskId"] },
      },
      assigned: {
        collection: ["contributions", "assignments"],
        index: "gsi2",
        pk: { field: "gsi2pk", composite: ["employeeId"] },
        sk: { field: "gsi2sk", composite: ["projectId"] },
      },
    },
  });
  const projectMembers = new Entity({
    model: model("projectMembers"),
    attributes: { employeeId: string, projectId: string, name: string },
    indexes: {
      members: {
        collection: "overview",
        pk: { field: "pk", composite: ["projectId"] },
        sk: { field: "sk", composite: ["employeeId"] },
      },
      projects: {
        collection: ["contributions", "assignments"],
        index: "gsi2",
        pk: { field: "gsi2pk", composite: ["employeeId"] },
        sk: { field: "gsi2sk", composite: [] },
      },
    },
  });
  return new Service({ employees, tasks, projectMembers }, { client, table });
}

// Two employees, their tasks and the projects they are members of, and a task no one is
// assigned (in `overview`, not in `gsi2`). Ids are stored as written; ElectroDB's keys
// fold them to lower case.
const employee = (employeeId, organizationId, name, team) => ["employees", { employeeId, organizationId, name, team }];
const task = (taskId, employeeId, projectId, title, body) => ["tasks", { taskId, employeeId, projectId, title, body }];
const member = (employeeId, projectId, name) => ["projectMembers", { employeeId, projectId, name }];
const seed = [
  employee("JExotic", "GW Zoo", "Joe Exotic", "jupiter"),
  employee("CBaskin", "Big Cat Rescue", "Carole Baskin", "saturn"),
  task("T-1", "JExotic", "SD-204", "Build enclosures", "Six new tiger enclosures"),
  task("T-2", "CBaskin", "SD-204", "Inspect enclosures", "Before the opening"),
  task("T-3", undefined, "SD-204", "Order fencing", "Nobody's yet"),
  task("T-4", "JExotic", "SD-300", "Film the show", "Episode one"),
  member("JExotic", "SD-204", "Joe Exotic"),
  member("CBaskin", "SD-204", "Carole Baskin"),
  member("JExotic", "SD-300", "Joe Exotic"),
];

const c = (name, entityName, run) => ({ name, entityName, collection: true, seed, runs: [run] });

const examples = [
  c("collections-complex-assignments", "tasks, projectMembers", (app) => app.collections.assignments({ employeeId: "JExotic" })),
  c("collections-complex-contributions", "employees, tasks, projectMembers", (app) =>
    app.collections.contributions({ employeeId: "JExotic" }),
  ),
  c("collections-simple-overview", "tasks, projectMembers", (app) => app.collections.overview({ projectId: "SD-204" })),
];

const identities = ["employees", "tasks", "projectMembers"].map((entity) => ({ entity, version: "1" }));

module.exports = { entity, TABLE, identity: { entity: "taskapp", version: "1" }, identities, examples };
