// ElectroDB's `StoreLocations` entity (service "MallStoreDirectory"), the one most of its
// documentation's examples use, as the documentation describes it: a mall's stores with
// their leases, keyed by city and mall, by mall and unit, and by store and lease end.
"use strict";

const { Entity } = require("electrodb");

/** The table's key attributes (dynorm creates the tables, from its models). */
const TABLE = { keys: ["pk", "sk"] };

/** The attributes every store has, in both of the documentation's declarations. */
const storeAttributes = {
  cityId: { type: "string", required: true },
  mallId: { type: "string", required: true },
  storeId: { type: "string", required: true },
  buildingId: { type: "string", required: true },
  unitId: { type: "string", required: true },
  category: {
    type: ["spite store", "food/coffee", "food/meal", "clothing", "electronics", "department", "misc"],
    required: true,
  },
  leaseEndDate: { type: "string", required: true },
  rent: { type: "string", required: true, validate: /^(\d+\.\d{2})$/ },
  discount: { type: "string", required: false, default: "0.00", validate: /^(\d+\.\d{2})$/ },
};

/** The stores' indexes: by city and mall, by mall and unit, by store and lease end. */
const storeIndexes = {
  stores: {
    pk: { field: "pk", composite: ["cityId", "mallId"] },
    sk: { field: "sk", composite: ["buildingId", "storeId"] },
  },
  units: {
    index: "gsi1pk-gsi1sk-index",
    pk: { field: "gsi1pk", composite: ["mallId"] },
    sk: { field: "gsi1sk", composite: ["buildingId", "unitId"] },
  },
  leases: {
    index: "gsi2pk-gsi2sk-index",
    pk: { field: "gsi2pk", composite: ["storeId"] },
    sk: { field: "gsi2sk", composite: ["leaseEndDate"] },
  },
};

/** A store entity with `attributes`. */
function storeEntity(client, table, attributes) {
  return new Entity(
    {
      model: { service: "MallStoreDirectory", entity: "MallStore", version: "1" },
      attributes,
      indexes: storeIndexes,
    },
    { client, table },
  );
}

function entity(client, table) {
  return storeEntity(client, table, {
    ...storeAttributes,
    tenants: { type: "set", items: "string" },
    warnings: { type: "number", default: 0 },
    deposit: { type: "number" },
    rentalAgreement: {
      type: "list",
      items: { type: "map", properties: { type: { type: "string" }, detail: { type: "string" } } },
    },
    tags: { type: "set", items: "string" },
    contact: { type: "set", items: "string" },
    petFee: { type: "number" },
    fees: { type: "number" },
  });
}

/** A store as the documentation's put and create write it. */
const latteLarrys = {
  cityId: "Atlanta1",
  storeId: "LatteLarrys",
  mallId: "EastPointe",
  buildingId: "BuildingA1",
  unitId: "B47",
  category: "food/coffee",
  leaseEndDate: "2020-03-22",
  rent: "4500.00",
};
const key = { cityId: "Atlanta1", mallId: "EastPointe", storeId: "LatteLarrys", buildingId: "BuildingA1" };
/** The store the patch examples change, with what they add to and subtract from. */
const contact = ["555-345-2222", "555-345-9999"];
const portland = { ...latteLarrys, cityId: "Portland", buildingId: "A34", deposit: 1000, tenants: ["moe"], tags: ["coffee"], contact };
const portlandKey = { cityId: "Portland", mallId: "EastPointe", storeId: "LatteLarrys", buildingId: "A34" };
const stocked = { ...latteLarrys, deposit: 1000, tenants: ["moe"], tags: ["coffee"], contact };
const coffeeIsFood = (attr, op) => op.eq(attr.category, "food/coffee");

/** The documentation's `update` and `patch` pages show the same five changes of a coffee
 * shop (`verb` on `key` of `seed`); the append's detail is spelled as each page spells it. */
function changes(verb, seed, key, detail) {
  const change = (e) => e[verb](key);
  return [
    ["set", (e) => change(e).set({ category: "food/meal" })],
    ["add", (e) => change(e).add({ warnings: 1, tenants: ["larry"] })],
    ["subtract", (e) => change(e).subtract({ deposit: 500 })],
    ["append", (e) => change(e).append({ rentalAgreement: [{ type: detail, detail: "no soup for you" }] })],
    ["remove", (e) => change(e).remove(["discount"])],
    ["delete", (e) => change(e).delete({ contact: ["555-345-2222"] })],
  ].map(([name, run]) => ({ name: `${verb}-store-location-${name}`, seed: [seed], run: (e) => run(e).where(coffeeIsFood) }));
}

const losAngeles = [
  { ...latteLarrys, cityId: "LosAngeles1", buildingId: "F34", unitId: "a1", leaseEndDate: "2022-03-22" },
  { ...latteLarrys, cityId: "LosAngeles1", storeId: "MochaJoes", buildingId: "F35", unitId: "a2", leaseEndDate: "2021-01-22", rent: "1500.00" },
];
const losAngelesKeys = losAngeles.map(({ cityId, mallId, storeId, buildingId }) => ({ cityId, mallId, storeId, buildingId }));
const batchGetKeys = [
  { storeId: "LatteLarrys", mallId: "EastPointe", buildingId: "F34", cityId: "Atlanta1" },
  { storeId: "MochaJoes", mallId: "WestEnd", buildingId: "A21", cityId: "Madison2" },
];
/** The documentation's examples on this entity: each names the items that exist before
 * it (`seed`) and the operation, as ElectroDB's chain before `.params()` / `.go()`. */
const examples = [
  { name: "put-store-location", run: (e) => e.put(latteLarrys).where((a, o) => o.eq(a.rent, "4500.00")) },
  { name: "create-store-location", run: (e) => e.create(latteLarrys).where((a, o) => o.eq(a.rent, "4500.00")) },
  { name: "conditions-safe-create", seed: [latteLarrys], run: (e) => e.create(latteLarrys), rejected: true },
  { name: "conditions-detect-rejection-only", run: (e) => e.create(latteLarrys) },
  { name: "upsert-store-location", run: (e) => e.upsert(latteLarrys) },
  { name: "get-store-location", seed: [latteLarrys], run: (e) => e.get(key) },
  { name: "delete-store-location", seed: [latteLarrys], run: (e) => e.delete(key) },
  { name: "remove-store-location", seed: [latteLarrys], run: (e) => e.remove(key) },
  {
    name: "conditions-conditional-update",
    seed: [latteLarrys],
    run: (e) => e.patch(key).set({ rent: "5000.00" }).where(({ rent }, { lt }) => lt(rent, "4000.00")),
    rejected: true,
  },
  ...changes("update", stocked, key, "amendment"),
  ...changes("patch", portland, portlandKey, "ammendment"),
  // Nine changes at once; one adds another attribute's stored value to `fees`, so the
  // store has fees and a pet fee.
  ...[
    ["update", stocked, key],
    ["patch", portland, portlandKey],
  ].map(([verb, seed, at]) => ({
    name: `${verb}-store-location-data`,
    seed: [{ ...seed, petFee: 250, fees: 1000 }],
    run: (e) =>
      e[verb](at)
        .data((a, o) => {
          const newTenant = o.value(a.tenants, ["larry"]);
          o.set(a.category, "food/meal");
          o.add(a.tenants, newTenant);
          o.add(a.warnings, 1);
          o.subtract(a.deposit, 200);
          o.remove(a.discount);
          o.append(a.rentalAgreement, [{ type: "amendment", detail: "no soup for you" }]);
          o.delete(a.tags, ["coffee"]);
          o.del(a.contact, ["555-345-2222"]);
          o.add(a.fees, o.name(a.petFee));
        })
        .where(coffeeIsFood),
  })),
  {
    name: "upsert-store-location-add-subtract-append",
    run: (e) =>
      e
        .upsert(latteLarrys)
        .add({ deposit: 100, tenants: ["Larry David"] })
        .ifNotExists({ warnings: 0 })
        .subtract({ petFee: 250 })
        .append({ rentalAgreement: [{ type: "amendment", detail: "Larry David accepts coffee liability" }] }),
  },
  { name: "query-leases-by-store-id", seed: [latteLarrys], run: (e) => e.query.leases({ storeId: "LatteLarrys" }) },
  { name: "query-leases-by-store-id-date", seed: [latteLarrys], run: (e) => e.query.leases({ storeId: "LatteLarrys", leaseEndDate: "2020-03-22" }) },
  { name: "query-leases-by-store-id-begins-year", seed: [latteLarrys], run: (e) => e.query.leases({ storeId: "LatteLarrys" }).begins({ leaseEndDate: "2020-00-00" }) },
  {
    name: "query-leases-by-store-id-between",
    seed: [latteLarrys],
    run: (e) => e.query.leases({ storeId: "LatteLarrys" }).between({ leaseEndDate: "2010-00-00" }, { leaseEndDate: "2020-99-99" }),
  },
  { name: "query-leases-by-store-id-gt", seed: [latteLarrys], run: (e) => e.query.leases({ storeId: "LatteLarrys" }).gt({ leaseEndDate: "2020-04-00" }) },
  { name: "query-leases-by-store-id-gte", seed: [latteLarrys], run: (e) => e.query.leases({ storeId: "LatteLarrys" }).gte({ leaseEndDate: "2020-03-00" }) },
  { name: "query-leases-by-store-id-lt", seed: [latteLarrys], run: (e) => e.query.leases({ storeId: "LatteLarrys" }).lt({ leaseEndDate: "2021-00-00" }) },
  { name: "query-leases-by-store-id-lte", seed: [latteLarrys], run: (e) => e.query.leases({ storeId: "LatteLarrys" }).lte({ leaseEndDate: "2021-02-00" }) },
  {
    name: "query-leases-by-store-id-gte-where",
    seed: [latteLarrys],
    run: (e) =>
      e.query
        .leases({ storeId: "LatteLarrys" })
        .gte({ leaseEndDate: "2010-00-00" })
        .where((attr, op) => `${op.eq(attr.cityId, "Atlanta1")} AND ${op.contains(attr.category, "food")}`),
  },
  {
    name: "executing-queries-params",
   
    seed: [latteLarrys],
    run: (e) =>
      e.query
        .leases({ storeId: "LatteLarrys" })
        .between({ leaseEndDate: "2020-06-01" }, { leaseEndDate: "2020-07-31" })
        .where(({ rent }, { lte }) => lte(rent, "5000.00")),
  },
  { name: "query-units-example-1", seed: [latteLarrys], run: (e) => e.query.units({ mallId: "EastPointe", buildingId: "f34" }) },
  { name: "query-units-example-2", seed: [latteLarrys], run: (e) => e.query.units({ mallId: "EastPointe" }).begins({ buildingId: "f34" }) },
  { name: "query-good-includes-pk", seed: [latteLarrys], run: (e) => e.query.stores({ cityId: "Atlanta1", mallId: "EastPointe" }) },
  {
    name: "query-good-includes-pk-first-sk",
   
    seed: [latteLarrys],
    run: (e) => e.query.stores({ cityId: "Atlanta1", mallId: "EastPointe", buildingId: "f34" }),
  },
  {
    name: "query-good-includes-all-sk",
   
    seed: [latteLarrys],
    run: (e) => e.query.stores({ cityId: "Atlanta1", mallId: "EastPointe", storeId: "LatteLarrys", buildingId: "f34" }),
  },
  { name: "batch-put-store-locations", run: (e) => e.put(losAngeles) },
  {
    name: "batch-get-store-locations",
    seed: [{ ...latteLarrys, buildingId: "F34" }, { ...latteLarrys, storeId: "MochaJoes", mallId: "WestEnd", buildingId: "A21", cityId: "Madison2" }],
    run: (e) => e.get(batchGetKeys),
  },
  { name: "batch-delete-store-locations", seed: losAngeles, run: (e) => e.delete(losAngelesKeys) },
  { name: "find-store-location", seed: [latteLarrys], run: (e) => e.find({ mallId: "EastPointe", buildingId: "BuildingA1" }) },
  {
    name: "match-store-location",
   
    seed: [latteLarrys],
    run: (e) => e.match({ mallId: "EastPointe", buildingId: "BuildingA1", leaseEndDate: "2020-03-22", rent: "1500.00" }),
  },
  { name: "pagination-count", seed: [latteLarrys], run: (e) => e.query.leases({ storeId: "LatteLarrys" }) },
  { name: "pagination-entities", seed: [latteLarrys], run: (e) => e.query.leases({ storeId: "LatteLarrys" }) },
  {
    name: "executing-queries-go",
   
    seed: [latteLarrys],
    run: (e) =>
      e.query
        .leases({ storeId: "LatteLarrys" })
        .between({ leaseEndDate: "2020-06-01" }, { leaseEndDate: "2020-07-31" })
        .where(({ rent }, { lte }) => lte(rent, "5000.00")),
  },
  {
    name: "query-bad-missing-pk-attribute",
    refused: "ElectroDB throws before sending: `cityId` of the partition key is missing",
    run: (e) => e.query.stores({ mallId: "EastPointe" }),
  },
  { name: "query-bad-no-pk", refused: "ElectroDB throws before sending: no partition key", run: (e) => e.query.stores() },
  { name: "query-bad-out-of-order", run: (e) => e.query.stores({ cityId: "Atlanta1", mallId: "EastPointe", unitId: "B24" }) },
  { name: "scan-units-index", seed: [latteLarrys], run: (e) => e.scan.units },
  {
    name: "scan-store-location",
    seed: [latteLarrys],
    run: (e) =>
      e.scan
        .where(({ category }, { eq }) => `${eq(category, "food/coffee")} OR ${eq(category, "spite store")}`)
        .where(({ leaseEndDate }, { between }) => between(leaseEndDate, "2020-03", "2020-04")),
  },
];

/** What ElectroDB writes in `__edb_e__` and `__edb_v__` for this entity. */
const identity = { entity: "MallStore", version: "1" };

module.exports = { entity, TABLE, identity, examples, storeEntity, storeAttributes };
