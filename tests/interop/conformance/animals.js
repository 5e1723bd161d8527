// ElectroDB's `animals` entity (service "zoo"), which its documentation's filter and
// condition examples use, as the documentation describes it: a zoo's animals by kind and
// name, by habitat and enclosure, and by habitat alone (the "farm").
"use strict";

const { Entity } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

const attributes = {
  animal: { type: "string", required: true },
  name: { type: "string", required: true },
  habitat: { type: "string", required: true },
  enclosure: { type: "string", required: true },
  keeper: { type: "string" },
  dangerous: { type: "boolean" },
  diet: { type: "list", items: { type: "string" } },
  lastFed: { type: "string" },
  lastFedBy: { type: "string" },
  birthday: { type: "string" },
  isPregnant: { type: "boolean" },
  veterinarian: { type: "map", properties: { name: { type: "string" } } },
  offspring: {
    type: "list",
    items: { type: "map", properties: { name: { type: "string" }, birthday: { type: "string" }, note: { type: "string" } } },
  },
};

const byAnimal = { pk: { field: "pk", composite: ["animal"] }, sk: { field: "sk", composite: ["name"] } };
const exhibit = {
  index: "gsi1pk-gsi1sk-index",
  pk: { field: "gsi1pk", composite: ["habitat"] },
  sk: { field: "gsi1sk", composite: ["enclosure"] },
};

function entity(client, table) {
  return new Entity(
    {
      model: { service: "zoo", entity: "animals", version: "1" },
      attributes,
      indexes: {
        byAnimal,
        exhibit,
        habitats: {
          index: "gsi2pk-gsi2sk-index",
          pk: { field: "gsi2pk", composite: ["habitat"] },
          sk: { field: "gsi2sk", composite: ["enclosure"] },
        },
        farm: {
          index: "gsi3pk-gsi3sk-index",
          pk: { field: "gsi3pk", composite: ["habitat"] },
          sk: { field: "gsi3sk", composite: [] },
        },
      },
    },
    { client, table },
  );
}

const janet = {
  animal: "tiger",
  name: "janet",
  habitat: "Africa",
  enclosure: "5b",
  keeper: "Carol Baskin",
  dangerous: true,
  diet: ["beef", "chicken", "pork"],
  lastFedBy: "Carol Baskin",
  birthday: "2019-05-01",
  veterinarian: { name: "Herb Peterson" },
  offspring: [{ name: "Blitzen", birthday: "2021-01-01" }],
};
const tundra = { ...janet, animal: "reindeer", name: "dasher", habitat: "Tundra", enclosure: "2a", dangerous: false };
const dangerous = ({ dangerous: d }, { eq }) => eq(d, true);

/** Why DynamoDB refuses the request of some of them. */
const REFUSED = {
  "name-function": "DynamoDB refuses ElectroDB's `#lastFedBy != #keeper`: its operator is `<>`",
  "field-function": "DynamoDB refuses ElectroDB's filter on `gsi1sk`, a key attribute of the queried index",
};

/** The examples of `where`'s functions (`escape`, `value`, `name`, `field`) on Janet's
 * enclosure, which the documentation's filter and condition pages both show: named with
 * `prefix`. */
function functionExamples(prefix) {
  const enclosure = (e) => e.query.exhibit({ habitat: "Africa", enclosure: "5b" });
  return [
    ["escape-function", ({ diet }, { size, escape }) => `${size(diet)} > ${escape(2)}`],
    ["value-function", ({ keeper }, { name, value }) => `${name(keeper)} = ${value(keeper, "Tiger King")}`],
    ["name-function", ({ lastFedBy, keeper }, { name }) => `${name(lastFedBy)} != ${name(keeper)}`],
    ["field-function", (_, { field, escape }) => `contains(${field("gsi1sk")}, ${escape("value")})`],
  ].map(([name, where]) => ({ name: `${prefix}${name}`, seed: [janet], run: (e) => enclosure(e).where(where), refused: REFUSED[name] }));
}

/** The documentation's examples on this entity. */
const examples = [
  { name: "filters-where-single", seed: [janet], run: (e) => e.query.exhibit({ habitat: "Africa", enclosure: "5b" }).where((a, o) => o.eq(a.dangerous, true)) },
  { name: "filters-where-destructured", seed: [janet], run: (e) => e.query.exhibit({ habitat: "Africa", enclosure: "5b" }).where(dangerous) },
  {
    name: "filters-where-multiple",
    seed: [janet],
    run: (e) =>
      e.query
        .exhibit({ habitat: "Africa", enclosure: "5b" })
        .where((a, o) => `${o.eq(a.dangerous, true)} AND ${o.notExists(a.lastFed)}`),
  },
  {
    name: "filters-filter-expression",
    seed: [janet],
    run: (e) => e.query.exhibit({ habitat: "Africa" }).where(({ isPregnant, offspring }, { exists, eq }) => `${eq(isPregnant, true)} OR ${exists(offspring)}`),
  },
  {
    name: "filters-where-dynamic",
    seed: [janet],
    run: (e) =>
      e.query
        .exhibit({ habitat: "RainForest" })
        .where(({ keeper }, { eq }) => ["Joe Exotic", "Carol Baskin"].map((name) => eq(keeper, name)).join(" AND ")),
  },
  ...functionExamples("filters-"),
  {
    name: "filters-where-map-attribute",
    seed: [janet],
    run: (e) => e.query.farm({ habitat: "Africa" }).where(({ veterinarian }, { eq }) => eq(veterinarian.name, "Herb Peterson")),
  },
  {
    name: "filters-where-list-attribute",
    seed: [tundra],
    run: (e) => e.query.exhibit({ habitat: "Tundra" }).where(({ offspring }, { eq }) => eq(offspring[0].name, "Blitzen")),
  },
];

const identity = { entity: "animals", version: "1" };

module.exports = { entity, TABLE, identity, examples, attributes, byAnimal, exhibit, janet, functionExamples };
