// ElectroDB's index naming example: an organization's staff, and each employee's
// `contributions` collection on another index.
"use strict";

const { Entity } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return new Entity(
    {
      model: { entity: "employees", version: "1", service: "taskapp" },
      attributes: {
        employeeId: { type: "string" },
        organizationId: { type: "string" },
        name: { type: "string" },
        team: { type: ["jupiter", "mercury", "saturn"] },
      },
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
    },
    { client, table },
  );
}

const staff = [
  { employeeId: "e1", organizationId: "nike", name: "Ann", team: "jupiter" },
  { employeeId: "e2", organizationId: "nike", name: "Bo", team: "saturn" },
  { employeeId: "e3", organizationId: "acme", name: "Cy", team: "mercury" },
];

const examples = [
  { name: "collections-index-naming-staff", seed: staff, run: (e) => e.query.staff({ organizationId: "nike" }) },
];

module.exports = { entity, TABLE, identity: { entity: "employees", version: "1" }, examples };
