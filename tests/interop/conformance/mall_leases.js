// The mall stores of ElectroDB's "multiple where clauses" condition example: keyed by
// mall and store, their leases on `idx2` by end date. The filter example declares the
// same entity with lower-case names and a plain string category (`mall_lease_filters.js`).
"use strict";

const { Entity } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

const CATEGORIES = ["spite store", "food/coffee", "food/meal", "clothing", "electronics", "department", "misc"];

/** The entity, named `service`/`entity`, its category of `categoryType`. */
function leaseEntity(client, table, { service, entity, categoryType }) {
  return new Entity(
    {
      model: { service, entity, version: "1" },
      attributes: {
        mallId: { type: "string", required: true },
        storeId: { type: "string", required: true },
        leaseEndDate: { type: "string", required: true },
        rent: { type: "string", required: true },
        discount: { type: "string", default: "0.00" },
        category: categoryType,
      },
      indexes: {
        stores: {
          pk: { field: "pk", composite: ["mallId"] },
          sk: { field: "sk", composite: ["storeId"] },
        },
        leases: {
          index: "idx2",
          pk: { field: "idx2pk", composite: ["mallId"] },
          sk: { field: "idx2sk", composite: ["leaseEndDate", "storeId"] },
        },
      },
    },
    { client, table },
  );
}

const entity = (client, table) =>
  leaseEntity(client, table, {
    service: "MallStoreDirectory",
    entity: "MallStore",
    categoryType: { type: CATEGORIES, required: true },
  });

const lease = (storeId, leaseEndDate, rent, discount, category) => ({
  mallId: "EastPointe",
  storeId,
  leaseEndDate,
  rent,
  discount,
  category,
});
/** Stores in and out of the examples' lease window, rent range, discount and category. */
const seed = [
  lease("LatteLarrys", "2020-05-01", "4500.00", "1000.00", "food/coffee"),
  lease("MochaJoes", "2020-06-15", "2500.00", "1000.00", "food/coffee"),
  lease("TeaTime", "2020-05-20", "6000.00", "1000.00", "food/coffee"),
  lease("BurgerBarn", "2020-06-01", "3000.00", "1000.00", "food/meal"),
  lease("BeanBag", "2020-08-01", "3000.00", "1000.00", "food/coffee"),
  lease("CupOfJo", "2020-04-15", "3500.00", "0.00", "food/coffee"),
];

/** The documentation's query: leases ending in a window, filtered by two `where`s. */
const query = (e) =>
  e.query
    .leases({ mallId: "EastPointe" })
    .between({ leaseEndDate: "2020-04-01" }, { leaseEndDate: "2020-07-01" })
    .where(({ rent, discount }, { between, eq }) => `${between(rent, "2000.00", "5000.00")} AND ${eq(discount, "1000.00")}`)
    .where(({ category }, { eq }) => eq(category, "food/coffee"));

const examples = [{ name: "conditions-multiple-where-clauses", seed, run: query }];

module.exports = { entity, TABLE, identity: { entity: "MallStore", version: "1" }, examples, leaseEntity, seed, query };
