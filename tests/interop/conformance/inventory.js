// ElectroDB's multi-attribute index: an inventory item whose `location` GSI is keyed by
// three attributes and sorted by three more, each stored as itself (`type: "composite"`),
// as DynamoDB's multi-attribute keys are.
"use strict";

const { Entity } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return new Entity(
    {
      model: { entity: "inventoryitem", version: "1", service: "warehouse" },
      attributes: {
        id: { type: "string", required: true },
        country: { type: "string", field: "attr1", required: true },
        region: { type: "string", field: "attr2", required: true },
        city: { type: "string", field: "attr3", required: true },
        manufacturer: { type: "string", field: "attr4" },
        model: { type: "string", field: "attr5" },
        count: { type: "number", field: "attr6" },
        name: { type: "string", field: "attr7" },
      },
      indexes: {
        record: {
          pk: { field: "pk", composite: ["manufacturer"] },
          sk: { field: "sk", composite: ["model", "id"] },
        },
        location: {
          index: "gsi1",
          type: "composite",
          pk: { composite: ["country", "region", "city"] },
          sk: { composite: ["manufacturer", "model", "count"] },
        },
      },
    },
    { client, table },
  );
}

const atlanta = { country: "US", region: "Georgia", city: "Atlanta" };
const items = [
  { ...atlanta, id: "1", manufacturer: "Acme", model: "X1", count: 120, name: "Anvil" },
  { ...atlanta, id: "2", manufacturer: "Acme", model: "X1", count: 40, name: "Rocket" },
  { ...atlanta, id: "3", manufacturer: "Bolt", model: "B2", count: 75, name: "Hammer" },
  { country: "US", region: "Oregon", city: "Portland", id: "4", manufacturer: "Acme", model: "X1", count: 300, name: "Sled" },
];

const examples = [
  { name: "indexes-multi-attribute-basic-query", seed: items, run: (e) => e.query.location(atlanta) },
  { name: "indexes-multi-attribute-begins", seed: items, run: (e) => e.query.location(atlanta).begins({ manufacturer: "A" }) },
  {
    name: "indexes-multi-attribute-between",
    seed: items,
    run: (e) =>
      e.query
        .location(atlanta)
        .between({ manufacturer: "Acme", model: "X1", count: 50 }, { manufacturer: "Acme", model: "X1", count: 200 }),
  },
  {
    name: "indexes-multi-attribute-gt",
    seed: items,
    run: (e) => e.query.location(atlanta).gt({ manufacturer: "Acme", model: "X1", count: 100 }),
  },
];

module.exports = { entity, TABLE, identity: { entity: "inventoryitem", version: "1" }, examples };
