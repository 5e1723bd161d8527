// The `StoreLocations` entity of ElectroDB's shopping mall directory example: the stores
// of `store_locations.js` with only their place, category, lease and rent.
"use strict";

const stores = require("./store_locations.js");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return stores.storeEntity(client, table, stores.storeAttributes);
}

const store = {
  mallId: "EastPointe",
  storeId: "LatteLarrys",
  buildingId: "BuildingA1",
  unitId: "B47",
  cityId: "Atlanta1",
  category: "spite store",
  leaseEndDate: "2020-02-29",
  rent: "5000.00",
};
const key = { storeId: "LatteLarrys", mallId: "EastPointe", buildingId: "BuildingA1", cityId: "Atlanta1" };
const example = (name, run, seed = [store]) => ({ name: `shopping-mall-directory-${name}`, seed, run });

/** The documentation's examples on this entity. */
const examples = [
  example("create-store", (e) => e.create(store), []),
  example("delete-store", (e) => e.delete(key)),
  example("get-store", (e) => e.get(key)),
  example("patch-lease-date", (e) => e.patch(key).set({ leaseEndDate: "2021-02-28" })),
  example("query-by-category", (e) => e.query.units({ mallId: "EastPointe" }).where((a, o) => o.eq(a.category, "food/coffee"))),
  example("query-leases-between", (e) =>
    e.query.leases({ storeId: "LatteLarrys" }).between({ leaseEndDate: "2020-10-01" }, { leaseEndDate: "2020-12-31" }),
  ),
  example("query-leases-filter", (e) =>
    e.query
      .leases({ storeId: "LatteLarrys" })
      .between({ leaseEndDate: "2020-01-01" }, { leaseEndDate: "2020-12-31" })
      .where((a, o) => o.eq(a.category, "spite store")),
  ),
  example("query-leases-lt", (e) => e.query.leases({ storeId: "LatteLarrys" }).lt({ leaseEndDate: "2020-04-01" })),
  example("query-units-by-building", (e) => e.query.units({ mallId: "EastPointe", buildingId: "BuildingA1" })),
  example("query-units-by-mall", (e) => e.query.units({ mallId: "EastPointe" })),
  example("query-units-by-unit", (e) => e.query.units({ mallId: "EastPointe", buildingId: "BuildingA1", unitId: "B47" })),
  example("query-units-full", (e) => e.query.units({ mallId: "EastPointe", buildingId: "BuildingA1", storeId: "LatteLarrys" })),
];

const identity = { entity: "MallStore", version: "1" };

module.exports = { entity, TABLE, identity, examples };
