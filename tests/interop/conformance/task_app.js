// ElectroDB's `TaskApp` service (of the service "taskapp") as its first collection examples
// declare it: employees (`employees`) by organization, and tasks (`tasks`) by project, each
// also keyed by employee on `gsi2` in the collection `assignments`, neither of whose
// `gsi2sk` has an attribute. `task_app_projects.js` and `task_app_subcollections.js` are
// the task app of the other collection examples.
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
        collection: "assignments",
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
        pk: { field: "pk", composite: ["projectId"] },
        sk: { field: "sk", composite: ["taskId"] },
      },
      assigned: {
        collection: "assignments",
        index: "gsi2",
        pk: { field: "gsi2pk", composite: ["employeeId"] },
        sk: { field: "gsi2sk", composite: [] },
      },
    },
  });
  return new Service({ employees, tasks }, { client, table });
}

// Two employees and their tasks, and a task no one is assigned (it is not in `gsi2`).
// Ids are stored as written; ElectroDB's keys fold them to lower case.
const employee = (employeeId, organizationId, name, team) => ["employees", { employeeId, organizationId, name, team }];
const task = (taskId, employeeId, projectId, title, body) => ["tasks", { taskId, employeeId, projectId, title, body }];
const seed = [
  employee("JExotic", "GW Zoo", "Joe Exotic", "jupiter"),
  employee("CBaskin", "Big Cat Rescue", "Carole Baskin", "saturn"),
  task("T-1", "JExotic", "zoo-expansion", "Build enclosures", "Six new tiger enclosures"),
  task("T-2", "JExotic", "tiger-king-show", "Film the show", "Episode one"),
  task("T-3", "CBaskin", "murder-investigation", "Hire a lawyer", "Find the best one"),
  task("T-4", "CBaskin", "fundraiser", "Call donors", "Before the gala"),
  task("T-5", undefined, "zoo-expansion", "Order fencing", "Nobody's yet"),
];

const examples = [
  {
    name: "collection-assignments",
    entityName: "employees, tasks",
    collection: true,
    seed,
    runs: [(app) => app.collections.assignments({ employeeId: "JExotic" })],
  },
  {
    name: "collection-assignments-filtered",
    entityName: "employees, tasks",
    differs:
      "ElectroDB joins its identity test and the `where` text without parentheses, so its filter reads `(identity AND projectId absent) OR projectId contains murder`; dynorm's filter is the caller's condition whole, and it keeps the collection's entities as it decodes the items",
    collection: true,
    seed,
    runs: [
      (app) =>
        app.collections
          .assignments({ employeeId: "CBaskin" })
          .where(({ projectId }, { notExists, contains }) => `${notExists(projectId)} OR ${contains(projectId, "murder")}`),
    ],
  },
];

const identities = ["employees", "tasks"].map((entity) => ({ entity, version: "1" }));

module.exports = { entity, TABLE, identity: { entity: "taskapp", version: "1" }, identities, examples };
