// ElectroDB's INCLUDE index examples: `tasks` whose status index projects `name`,
// `status` and `createdAt` (and ElectroDB's identity attributes). Its queries read what it
// projects, filter on it, or read the whole items (`hydrate`). `createdAt` and `updatedAt`
// are the time of writing (`clock.js`).
"use strict";

const { Entity } = require("electrodb");
const { NOW_MS } = require("./clock.js");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return new Entity(
    {
      model: { entity: "tasks", version: "1", service: "taskapp" },
      attributes: {
        taskId: { type: "string" },
        projectId: { type: "string" },
        name: { type: "string" },
        description: { type: "string" },
        status: { type: ["open", "in-progress", "closed"], default: "open" },
        priority: { type: "number" },
        createdAt: { type: "number", default: () => NOW_MS },
        updatedAt: { type: "number", watch: "*", set: () => NOW_MS },
      },
      indexes: {
        tasks: {
          pk: { field: "pk", composite: ["projectId"] },
          sk: { field: "sk", composite: ["taskId"] },
        },
        statusIndex: {
          index: "gsi1pk-gsi1sk-index",
          projection: ["name", "status", "createdAt"],
          pk: { field: "gsi1pk", composite: ["status"] },
          sk: { field: "gsi1sk", composite: ["createdAt"] },
        },
      },
    },
    { client, table },
  );
}

const task = (taskId, name, status, description) => ({
  taskId,
  projectId: "p1",
  name,
  description,
  status,
  priority: 1,
});
const seed = [
  task("t1", "Important Task", "open", "Some description"),
  task("t2", "Other Task", "open", "Another description"),
  task("t3", "Important Task", "closed", "Done"),
];
const open = (e) => e.query.statusIndex({ status: "open" });
const important = (e) => open(e).where(({ name }, { eq }) => eq(name, "Important Task"));

const examples = [
  { name: "include-projection-gsi-basic-query", seed, run: open },
  { name: "include-projection-gsi-filter-projected", seed, run: important },
  {
    name: "include-projection-gsi-filter-non-projected",
    seed,
    run: (e) => open(e).where(({ description }, { eq }) => eq(description, "Some description")),
  },
  { name: "include-projection-gsi-hydration", seed, run: important, go: { hydrate: true } },
  {
    name: "include-projection-gsi-hydration-attributes",
    seed,
    run: important,
    go: { hydrate: true, attributes: ["taskId", "name", "description"] },
  },
];

module.exports = { entity, TABLE, identity: { entity: "tasks", version: "1" }, examples };
