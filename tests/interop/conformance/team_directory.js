// ElectroDB's pagination example: a team directory's users, read page by page by team.
"use strict";

const { Entity } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return new Entity(
    {
      model: { service: "TeamDirectory", entity: "User", version: "1" },
      attributes: {
        username: { type: "string", required: true },
        team: { type: "string", required: true },
        email: { type: "string", required: true },
      },
      indexes: {
        user: { pk: { field: "pk", composite: ["username"] }, sk: { field: "sk", composite: [] } },
        members: {
          index: "gsi1pk-gsi1sk-index",
          pk: { field: "gsi1pk", composite: ["team"] },
          sk: { field: "gsi1sk", composite: ["username"] },
        },
      },
    },
    { client, table },
  );
}

const users = [
  { username: "ann", team: "engineering", email: "ann@example.com" },
  { username: "bo", team: "engineering", email: "bo@example.com" },
  { username: "cy", team: "design", email: "cy@example.com" },
];

const examples = [
  // The documentation's loop sends one query per page; these users fit in one.
  { name: "pagination-example", seed: users, run: (e) => e.query.members({ team: "engineering" }) },
];

module.exports = { entity, TABLE, identity: { entity: "User", version: "1" }, examples };
