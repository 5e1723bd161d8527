// ElectroDB's `tasks` entity of its update and patch examples (service `taskapp`), with
// `createdAt` and `updatedAt` in epoch milliseconds, the time of writing (`clock.js`).
"use strict";

const { Entity } = require("electrodb");
const { NOW_MS } = require("./clock.js");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return new Entity(
    {
      model: { entity: "tasks", version: "1", service: "taskapp" },
      attributes: {
        team: { type: "string", required: true },
        task: { type: "string", required: true },
        project: { type: "string", required: true },
        user: { type: "string", required: true },
        title: { type: "string", required: true },
        description: { type: "string" },
        status: { type: ["open", "in-progress", "on-hold", "closed"], default: "open" },
        points: { type: "number" },
        tags: { type: "set", items: "string" },
        comments: {
          type: "list",
          items: { type: "map", properties: { user: { type: "string" }, body: { type: "string" } } },
        },
        closed: { type: "string", validate: /[0-9]{4}-[0-9]{2}-[0-9]{2}/ },
        createdAt: { type: "number", default: () => NOW_MS, readOnly: true },
        updatedAt: { type: "number", watch: "*", set: () => NOW_MS, readOnly: true },
      },
      indexes: {
        projects: {
          pk: { field: "pk", composite: ["team"] },
          sk: { field: "sk", composite: ["project", "task"] },
        },
        assigned: {
          collection: "assignments",
          index: "gsi1pk-gsi1sk-index",
          pk: { field: "gsi1pk", composite: ["user"] },
          sk: { field: "gsi1sk", composite: ["status"] },
        },
        backlog: {
          index: "gsi2pk-gsi2sk-index",
          pk: { field: "gsi2pk", composite: ["project"] },
          sk: { field: "gsi2sk", composite: ["team", "closed"] },
        },
      },
    },
    { client, table },
  );
}

const seed = [
  {
    team: "core",
    task: "45-662",
    project: "backend",
    user: "janet",
    title: "Rate limiting",
    status: "in-progress",
    points: 3,
    comments: [{ user: "joe", body: "Started." }],
    // `gsi2sk` is built from `team` and `closed`: ElectroDB refuses a put with one alone.
    closed: "2024-04-30",
  },
];
const key = { team: "core", task: "45-662", project: "backend" };
/** The documentation's change: reopen the task, add points, append a comment. */
const change = (verb) => (e) =>
  e[verb](key)
    .set({ status: "open" })
    .add({ points: 5 })
    .append({ comments: [{ user: "janet", body: "This seems half-baked." }] })
    .where(({ status }, { eq }) => eq(status, "in-progress"));

/** Why dynorm's request differs: the new status is in `gsi1sk`, keyed by `user`. */
const differs =
  "ElectroDB writes `gsi1sk` alone; dynorm writes an index's keys together, so it reads `user` first (`read_composite`), sets `gsi1pk` again and checks `user`";

const examples = [
  { name: "update-tasks-set-add-append", seed, run: change("update"), differs },
  { name: "patch-tasks", seed, run: change("patch"), differs },
  { name: "introduction-patch-task", seed, run: change("patch"), differs },
];

module.exports = { entity, TABLE, identity: { entity: "tasks", version: "1" }, examples };
