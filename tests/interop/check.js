// Assertions for the interop scripts: each failure names what differed, and the script
// exits non-zero so that the Rust test that ran it fails.
"use strict";

const assert = require("node:assert/strict");
const { GetCommand } = require("@aws-sdk/lib-dynamodb");

/** Attributes a library sets to the time of writing. */
const NOW = ["updatedAt", "_ct", "_md"];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** `actual` and `expected` hold exactly the same attributes and values; time-of-writing
 * attributes must be ISO text on both sides. */
function sameItem(what, actual, expected) {
  assert.ok(actual, `${what}: no item`);
  const normalize = (item) => {
    const out = { ...item };
    for (const name of NOW) {
      if (name in out) {
        assert.match(String(out[name]), ISO, `${what}: ${name} is not ISO text`);
        out[name] = "<now>";
      }
    }
    return out;
  };
  assert.deepStrictEqual(normalize(actual), normalize(expected), `${what}: the stored item differs`);
}

/** What ElectroDB reads of the item at `key` of `entity` in `table`, with its ownership
 * checks on, after checking that the stored item is what ElectroDB writes for the same
 * data. */
async function electroOwned(client, entity, table, key) {
  const what = `${entity.getName()} ${JSON.stringify(key)}`;
  const { data } = await entity.get(key).go();
  assert.ok(data, `${what}: ElectroDB does not see it as its own`);
  const params = entity.get(key).params();
  const stored = (await client.send(new GetCommand({ TableName: table, Key: params.Key }))).Item;
  sameItem(what, stored, entity.put(data).params().Item);
  return data;
}

/** Runs the script's steps, reporting the first failure and exiting 1. */
async function run(steps) {
  try {
    const report = await steps();
    process.stdout.write(JSON.stringify(report) + "\n");
  } catch (error) {
    process.stderr.write(`${error.stack || error}\n`);
    process.exit(1);
  }
}

module.exports = { assert, sameItem, electroOwned, run };
