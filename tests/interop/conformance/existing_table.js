// ElectroDB's example of a table another program wrote: its items have ElectroDB's keys
// but not its identity attributes (`__edb_e__`, `__edb_v__`), so ElectroDB reads them
// with `ignoreOwnership`.
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
        rent: { type: "string", required: true },
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

/** A store as the other program wrote it: the keys and the attributes, no identity. */
const written = {
  pk: "$mallstoredirectory#cityid_atlanta1#mallid_eastpointe",
  sk: "$mallstore_1#buildingid_buildinga1#storeid_lattelarrys",
  cityId: "Atlanta1",
  mallId: "EastPointe",
  storeId: "LatteLarrys",
  buildingId: "BuildingA1",
  rent: "4500.00",
};

const examples = [
  {
    name: "existing-table-ignore-ownership",
    seed: [{ raw: written }],
    run: (e) => e.get({ cityId: "Atlanta1", mallId: "EastPointe", buildingId: "BuildingA1", storeId: "LatteLarrys" }),
    go: { ignoreOwnership: true },
  },
];

module.exports = { entity, TABLE, identity: { entity: "MallStore", version: "1" }, examples };
