// ElectroDB's KEYS_ONLY index examples: inventory `assets`, whose locations index
// (`gsi1pk-gsi1sk-index`, in the collection `geographics`) projects its keys only. Its
// queries read the raw response, the keys, or the whole items (`hydrate`).
"use strict";

const { Entity } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  const string = { type: "string" };
  return new Entity(
    {
      model: { entity: "assets", version: "1", service: "inventory" },
      attributes: {
        assetId: string,
        accountId: string,
        name: string,
        description: string,
        city: string,
        county: string,
        state: string,
        zip: string,
      },
      indexes: {
        assets: {
          pk: { field: "pk", composite: ["accountId"] },
          sk: { field: "sk", composite: ["assetId"] },
        },
        locations: {
          collection: "geographics",
          index: "gsi1pk-gsi1sk-index",
          pk: { field: "gsi1pk", composite: ["state"] },
          sk: { field: "gsi1sk", composite: ["county", "city", "zip"] },
        },
      },
    },
    { client, table },
  );
}

const asset = (assetId, city, county, state, zip) => ({
  assetId,
  accountId: "acct-1",
  name: `Asset ${assetId}`,
  description: `Tools in ${city}`,
  city,
  county,
  state,
  zip,
});
const seed = [
  asset("a1", "Atlanta", "Fulton", "Georgia", "30301"),
  asset("a2", "Savannah", "Chatham", "Georgia", "31401"),
  asset("a3", "Austin", "Travis", "Texas", "73301"),
];
const locations = (e) => e.query.locations({ state: "Georgia" });

const examples = [
  { name: "keys-only-gsi-raw-response", seed, run: locations, go: { data: "raw" } },
  {
    name: "keys-only-gsi-include-keys",
    seed,
    run: locations,
    go: { data: "includeKeys" },
    differs:
      "ElectroDB's `includeKeys` returns none of the index's items, which lack the entity's identity its ownership check reads; dynorm's item of a keys-only index is its raw keys",
  },
  { name: "keys-only-gsi-hydrate-query", seed, run: locations, go: { hydrate: true } },
];

module.exports = { entity, TABLE, identity: { entity: "assets", version: "1" }, examples };
