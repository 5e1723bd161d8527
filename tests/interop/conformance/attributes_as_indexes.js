// ElectroDB's attributes used as index keys: the table's keys are written into the
// entity's own attributes, `accountId` (with a template, `prefix_${accountId}_postfix`) and
// `organizationId` (its value alone, as ElectroDB writes a key of one attribute named
// for its own field).
"use strict";

const { Entity } = require("electrodb");

const TABLE = { keys: ["accountId", "organizationId"] };

function entity(client, table) {
  return new Entity(
    {
      model: { entity: "your_entity_name", service: "your_service_name", version: "1" },
      attributes: {
        accountId: { type: "string" },
        organizationId: { type: "string" },
        name: { type: "string" },
      },
      indexes: {
        your_access_pattern_name: {
          pk: { field: "accountId", composite: ["accountId"], template: "prefix_${accountId}_postfix" },
          sk: { field: "organizationId", composite: ["organizationId"] },
        },
      },
    },
    { client, table },
  );
}

const key = { accountId: "1111-2222-3333-4444", organizationId: "AAAA-BBBB-CCCC-DDDD" };

const examples = [
  {
    name: "indexes-attributes-as-indexes-get",
    seed: [{ ...key, name: "Acme" }],
    run: (e) => e.get(key),
  },
];

module.exports = { entity, TABLE, identity: { entity: "your_entity_name", version: "1" }, examples };
