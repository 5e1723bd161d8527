// ElectroDB's `TaskApp` service (of the service "taskapp") as most of its collection
// examples declare it: an employee (`employee`) by organization, and tasks (`tasks`, the
// service's `task`) by project, each also keyed by employee on `gsi2` in the collection
// `assignments`, where a task's `gsi2sk` holds its project.
"use strict";

const { Entity, Service } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

const model = (entity) => ({ entity, version: "1", service: "taskapp" });
const string = { type: "string" };

function entity(client, table) {
  const employee = new Entity({
    model: model("employee"),
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
  const task = new Entity({
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
        sk: { field: "gsi2sk", composite: ["projectId"] },
      },
    },
  });
  return new Service({ employee, task }, { client, table });
}

// Two employees and their tasks, and a task no one is assigned (it is not in `gsi2`).
// Ids are stored as written; ElectroDB's keys fold them to lower case.
const employee = (employeeId, organizationId, name, team) => ["employee", { employeeId, organizationId, name, team }];
const task = (taskId, employeeId, projectId, title, body) => ["task", { taskId, employeeId, projectId, title, body }];
const seed = [
  employee("JExotic", "GW Zoo", "Joe Exotic", "jupiter"),
  employee("CBaskin", "Big Cat Rescue", "Carole Baskin", "saturn"),
  task("T-1", "JExotic", "zoo-expansion", "Build enclosures", "Six new tiger enclosures"),
  task("T-2", "JExotic", "tiger-king-show", "Film the show", "Episode one"),
  task("T-3", "CBaskin", "fundraiser", "Call donors", "Before the gala"),
  task("T-4", undefined, "zoo-expansion", "Order fencing", "Nobody's yet"),
];

/** The documentation's collection query, which several of its pages show. */
const assignments = (name) => ({
  name,
  entityName: "employee, task",
  collection: true,
  seed,
  runs: [(app) => app.collections.assignments({ employeeId: "JExotic" })],
});

const examples = [
  assignments("collections-collection-query-assignments"),
  {
    name: "collections-entity-query-assigned",
    entityName: "task",
    seed,
    runs: [(app) => app.entities.task.query.assigned({ employeeId: "JExotic" })],
  },
  assignments("collections-response-structure-assignments"),
  assignments("collections-subcollection-assignments"),
  assignments("collections-taskapp-assignments"),
];

const identities = ["employee", "tasks"].map((entity) => ({ entity, version: "1" }));

module.exports = { entity, TABLE, identity: { entity: "taskapp", version: "1" }, identities, examples };
