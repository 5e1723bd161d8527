// The `animals` entity of ElectroDB's condition examples: the filter examples' entity
// (`animals.js`) with the date and author of the last evaluation, keyed by kind and name
// and by habitat and enclosure.
"use strict";

const { Entity } = require("electrodb");
const animals = require("./animals.js");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return new Entity(
    {
      model: { service: "zoo", entity: "animals", version: "1" },
      attributes: {
        ...animals.attributes,
        lastEvaluation: { type: "string" },
        lastEvaluationBy: { type: "string" },
      },
      indexes: { byAnimal: animals.byAnimal, exhibit: animals.exhibit },
    },
    { client, table },
  );
}

const janet = animals.janet;
const janetKey = { animal: "tiger", name: "janet" };
const isabelle = {
  animal: "blackbear",
  name: "Isabelle",
  habitat: "Forest",
  enclosure: "3c",
  isPregnant: true,
  lastEvaluation: "2021-09-01",
  lastEvaluationBy: "stephanie.adler",
};
const joe = (e) => e.update(janetKey).set({ keeper: "Joe Exotic" });

/** The documentation's examples on this entity. */
const examples = [
  { name: "conditions-where-single-filter", seed: [janet], run: (e) => joe(e).where((a, o) => o.eq(a.dangerous, true)) },
  { name: "conditions-where-destructured", seed: [janet], run: (e) => joe(e).where(({ dangerous }, { eq }) => eq(dangerous, true)) },
  {
    name: "conditions-where-multiple-conditions",
    seed: [janet],
    run: (e) => joe(e).where((a, o) => `${o.eq(a.dangerous, true)} AND ${o.notExists(a.lastFed)}`),
  },
  {
    // The documentation compares the birthday with the last 30 days' milliseconds as text;
    // fixed here, so that both sides send the same values.
    name: "conditions-where-chained",
    differs:
      "ElectroDB joins chained `where` clauses without parentheses, so its condition reads `dangerous = true OR (lastFed absent AND birthday in range)`; dynorm's `&` keeps the first clause whole",
    seed: [janet],
    run: (e) =>
      joe(e)
        .where((a, o) => `${o.eq(a.dangerous, true)} OR ${o.notExists(a.lastFed)}`)
        .where(({ birthday }, { between }) => between(birthday, "2019-01-01", "2019-12-31")),
  },
  {
    name: "conditions-condition-expression",
    seed: [isabelle],
    run: (e) =>
      e
        .update({ animal: "blackbear", name: "Isabelle" })
        .set({ isPregnant: false, lastEvaluation: "2021-09-12", lastEvaluationBy: "stephanie.adler" })
        .append({ offspring: [{ name: "Ernesto", birthday: "2021-09-12", note: "healthy birth, mild pollen allergy" }] })
        .where(({ isPregnant, lastEvaluation }, { lt, eq }) => `${eq(isPregnant, true)} AND ${lt(lastEvaluation, "2021-09-12")}`),
  },
  {
    name: "conditions-where-dynamic-filtering",
    seed: [janet],
    run: (e) => {
      const query = e.query.exhibit({ habitat: "RainForest" });
      for (const name of ["Joe Exotic", "Carol Baskin"]) query.where(({ keeper }, { ne }) => ne(keeper, name));
      return query;
    },
  },
  ...animals.functionExamples("conditions-where-"),
  { name: "conditions-where-map-attribute", seed: [janet], run: (e) => joe(e).where(({ veterinarian }, { eq }) => eq(veterinarian.name, "Herb Peterson")) },
  { name: "conditions-where-list-attribute", seed: [janet], run: (e) => joe(e).where(({ offspring }, { eq }) => eq(offspring[0].name, "Blitzen")) },
];

module.exports = { entity, TABLE, identity: animals.identity, examples };
