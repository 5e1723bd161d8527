// ElectroDB's multi-attribute index with a collection (its service of the service
// "warehouse"): inventory items and warehouses, both in the collection `inventory` of the
// `location` index `gsi1` (`type: "composite"`), keyed by country and region, and sorted
// by city, manufacturer and count for an item, by city and warehouse for a warehouse. Each
// key attribute is stored as itself (`attr1`..`attr5`); a warehouse's id is `attr4`, an
// item's manufacturer. `inventory.js` is the inventory item of the other multi-attribute
// examples.
"use strict";

const { Entity, Service } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

const model = (entity) => ({ entity, version: "1", service: "warehouse" });

function entity(client, table) {
  const InventoryItem = new Entity({
    model: model("inventoryitem"),
    attributes: {
      id: { type: "string", required: true },
      country: { type: "string", field: "attr1", required: true },
      region: { type: "string", field: "attr2", required: true },
      city: { type: "string", field: "attr3", required: true },
      manufacturer: { type: "string", field: "attr4" },
      model: { type: "string" },
      count: { type: "number", field: "attr5" },
      productName: { type: "string", field: "attr6" },
    },
    indexes: {
      record: {
        pk: { field: "pk", composite: ["manufacturer"] },
        sk: { field: "sk", composite: ["model", "id"] },
      },
      location: {
        index: "gsi1",
        type: "composite",
        collection: "inventory",
        pk: { composite: ["country", "region"] },
        sk: { composite: ["city", "manufacturer", "count"] },
      },
    },
  });
  const Warehouse = new Entity({
    model: model("warehouse"),
    attributes: {
      warehouseId: { type: "string", required: true, field: "attr4" },
      country: { type: "string", field: "attr1", required: true },
      region: { type: "string", field: "attr2", required: true },
      city: { type: "string", field: "attr3", required: true },
      streetAddress: { type: "string" },
    },
    indexes: {
      record: {
        pk: { field: "pk", composite: ["warehouseId"] },
        sk: { field: "sk", composite: [] },
      },
      location: {
        index: "gsi1",
        type: "composite",
        collection: "inventory",
        pk: { composite: ["country", "region"] },
        sk: { composite: ["city", "warehouseId"] },
      },
    },
  });
  return new Service({ InventoryItem, Warehouse }, { client, table });
}

// Items and warehouses in three cities of Georgia and one of Oregon. A warehouse has no
// `attr5`, the index's third sort attribute: DynamoDB leaves an item without every key
// attribute of a multi-attribute index out of it, so no warehouse is in `gsi1`.
const item = (id, city, manufacturer, model, count, productName) => [
  "InventoryItem",
  { id, country: "US", region: city === "Portland" ? "Oregon" : "Georgia", city, manufacturer, model, count, productName },
];
const warehouse = (warehouseId, city, streetAddress) => [
  "Warehouse",
  { warehouseId, country: "US", region: city === "Portland" ? "Oregon" : "Georgia", city, streetAddress },
];
const seed = [
  item("1", "Atlanta", "Acme", "X1", 120, "Anvil"),
  item("2", "Atlanta", "Bolt", "B2", 75, "Hammer"),
  item("3", "Augusta", "Acme", "X1", 40, "Rocket"),
  item("4", "Savannah", "Acme", "X2", 10, "Sled"),
  item("5", "Portland", "Acme", "X1", 300, "Skates"),
  warehouse("W-ATL", "Atlanta", "1 Peachtree St"),
  warehouse("W-AUG", "Augusta", "2 Broad St"),
  warehouse("W-SAV", "Savannah", "3 Bay St"),
];

const c = (name, run) => ({ name, entityName: "inventoryitem, warehouse", collection: true, seed, runs: [run] });

const examples = [
  c("indexes-multi-attribute-collection-begins", (s) =>
    s.collections.inventory({ country: "US", region: "Georgia" }).begins({ city: "A" }),
  ),
  c("indexes-multi-attribute-collection-query", (s) =>
    s.collections.inventory({ country: "US", region: "Georgia", city: "Atlanta" }),
  ),
];

const identities = ["inventoryitem", "warehouse"].map((entity) => ({ entity, version: "1" }));

module.exports = { entity, TABLE, identity: { entity: "warehouse", version: "1" }, identities, examples };
