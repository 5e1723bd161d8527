// ElectroDB's `StoreLocations` as its map and list update examples declare it: a map with
// one property and a list of maps, each with a set. The examples write a path inside them.
"use strict";

const { Entity } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return new Entity(
    {
      model: { service: "MallStoreDirectory", entity: "MallStore", version: "1" },
      attributes: {
        cityId: { type: "string", required: true },
        mallId: { type: "string", required: true },
        storeId: { type: "string", required: true },
        buildingId: { type: "string", required: true },
        mapAttribute: { type: "map", properties: { mapProperty: { type: "string" } } },
        listAttribute: {
          type: "list",
          items: { type: "map", properties: { setAttribute: { type: "set", items: "string" } } },
        },
      },
      indexes: {
        stores: {
          pk: { field: "pk", composite: ["cityId", "mallId"] },
          sk: { field: "sk", composite: ["buildingId", "storeId"] },
        },
      },
    },
    { client, table },
  );
}

const key = { cityId: "Atlanta1", mallId: "EastPointe", storeId: "LatteLarrys", buildingId: "BuildingA1" };
// The list's maps hold no set: a set inside a map is the nested-set examples' subject.
const stored = { ...key, mapAttribute: { mapProperty: "before" }, listAttribute: [{}, {}] };


const examples = [
  {
    name: "update-map-property",
    seed: [stored],
    run: (e) => e.update(key).data(({ mapAttribute }, { set }) => set(mapAttribute.mapProperty, "value")),
  },
  {
    name: "patch-map-property",
    seed: [stored],
    run: (e) => e.patch(key).data(({ mapAttribute }, { set }) => set(mapAttribute.mapProperty, "value")),
  },
  {
    name: "update-list-element-remove",
    seed: [stored],
    run: (e) => e.update(key).data(({ listAttribute }, { remove }) => remove(listAttribute[0])),
  },
  {
    name: "patch-list-element-remove",
    seed: [stored],
    run: (e) => e.patch(key).data(({ listAttribute }, { remove }) => remove(listAttribute[0])),
  },
  {
    name: "update-nested-set-add",
    seed: [stored],
    run: (e) => e.update(key).data(({ listAttribute }, { add }) => add(listAttribute[1].setAttribute, ["setItemValue"])),
  },
  {
    name: "patch-complex-nested-set",
    seed: [stored],
    run: (e) => e.patch(key).data(({ listAttribute }, { add }) => add(listAttribute[1].setAttribute, ["setItemValue"])),
  },
];

module.exports = { entity, TABLE, identity: { entity: "MallStore", version: "1" }, examples };
