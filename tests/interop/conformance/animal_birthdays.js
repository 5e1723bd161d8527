// The `animals` entity (service "zoo") as ElectroDB's chained-`where` filter example
// declares it: the filter examples' entity (`animals.js`) with `birthday` a number, the
// milliseconds of the animal's birth.
"use strict";

const { Entity } = require("electrodb");
const animals = require("./animals.js");
const { NOW_MS } = require("./clock.js");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return new Entity(
    {
      model: { service: "zoo", entity: "animals", version: "1" },
      attributes: { ...animals.attributes, birthday: { type: "number" } },
      indexes: {
        byAnimal: animals.byAnimal,
        exhibit: animals.exhibit,
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

const DAY_MS = 1000 * 60 * 60 * 24;
/** An animal of enclosure 5b, born `days` before the suite's "today". */
const tiger = (name, dangerous, lastFed, days) => ({
  animal: "tiger",
  name,
  habitat: "Africa",
  enclosure: "5b",
  keeper: "Carol Baskin",
  dangerous,
  lastFed,
  birthday: NOW_MS - days * DAY_MS,
});
// Janet is dangerous and born ten days ago, Blitzen harmless, never fed and born last
// week, Comet harmless, fed and born last week, and Dasher dangerous and born two years
// ago: only the two readings of the chained filter (below) tell Dasher apart.
const seed = [
  tiger("janet", true, "2024-04-30", 10),
  tiger("blitzen", false, undefined, 7),
  tiger("comet", false, "2024-04-30", 7),
  tiger("dasher", true, "2024-04-30", 730),
];

const examples = [
  {
    // The documentation computes "today" with `Date.now()`; both sides use the suite's
    // fixed time instead (`NOW_MS` of clock.js), so that they send the same values.
    name: "filters-where-chained",
    differs:
      "ElectroDB joins chained `where` clauses without parentheses, so its filter reads `dangerous = true OR (lastFed absent AND birthday in range)`; dynorm's `&` keeps the first clause whole",
    seed,
    run: (e) =>
      e.query
        .habitats({ habitat: "Africa", enclosure: "5b" })
        .where((attr, op) => `${op.eq(attr.dangerous, true)} OR ${op.notExists(attr.lastFed)}`)
        .where(({ birthday }, { between }) => {
          const today = NOW_MS;
          const lastMonth = today - 1000 * 60 * 60 * 24 * 30;
          return between(birthday, lastMonth, today);
        }),
  },
];

module.exports = { entity, TABLE, identity: animals.identity, examples };
