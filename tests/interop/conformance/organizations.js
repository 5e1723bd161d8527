// ElectroDB's `Organization` of its `.composite()` examples: `gsi1sk` is built from
// `deleted`, which an update changes, and `createdAt`, which is read-only, so the update
// names the stored `createdAt`. `createdAt` is the time of writing (`clock.js`).
"use strict";

const { Entity } = require("electrodb");
const { now } = require("./clock.js");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return new Entity(
    {
      model: { entity: "organization", service: "app", version: "1" },
      attributes: {
        id: { type: "string" },
        name: { type: "string", required: true },
        description: { type: "string" },
        deleted: { type: "boolean", required: true, default: false },
        createdAt: { type: "string", readOnly: true, required: true, set: now, default: now },
      },
      indexes: {
        record: {
          pk: { field: "pk", composite: ["id"] },
          sk: { field: "sk", composite: [] },
        },
        all: {
          index: "gsi1pk-gsi1sk-index",
          pk: { field: "gsi1pk", composite: [] },
          sk: { field: "gsi1sk", composite: ["deleted", "createdAt"] },
        },
      },
    },
    { client, table },
  );
}

const seed = [{ id: "00001", name: "Acme", description: "Anvils", deleted: true }];
/** The example reads the organization, then restores it, naming its `createdAt`. */
const restore = (verb) => [
  (e) => e.get({ id: "00001" }),
  (e) => e[verb]({ id: "00001" }).set({ deleted: false }).composite({ createdAt: now() }),
];

const examples = [
  { name: "update-organization-composite", seed, runs: restore("update") },
  { name: "patch-organization-composite", seed, runs: restore("patch") },
];

module.exports = { entity, TABLE, identity: { entity: "organization", version: "1" }, examples };
