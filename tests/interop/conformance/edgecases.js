// ElectroDB's update edge case: an update of `attr4` rebuilds the index sort key it is
// in (`gsi1sk = [attr2, attr4]`), from the table key's `attr2`, while the index's
// partition key (`attr3`) is left as it is.
"use strict";

const { Entity } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

/** The entity; `attr4Required` as the update example declares it, else as the patch one. */
function declared(attr4Required) {
  return (client, table) =>
    new Entity(
      {
        model: { service: "service", entity: "update-edgecases", version: "1" },
        attributes: {
          attr1: { type: "string", required: true },
          attr2: { type: "string", required: true },
          attr3: { type: "string", required: true },
          attr4: { type: "string", required: attr4Required },
        },
        indexes: {
          accessPattern1: { pk: { field: "pk", composite: ["attr1"] }, sk: { field: "sk", composite: ["attr2"] } },
          accessPattern2: {
            index: "gsi1pk-gsi1sk-index",
            pk: { field: "gsi1pk", composite: ["attr3"] },
            sk: { field: "gsi1sk", composite: ["attr2", "attr4"] },
          },
        },
      },
      { client, table },
    );
}

/** Why dynorm's request differs in both (the stored items are the same). */
const REWRITES =
  "dynorm writes an index's keys together, so the update names `attr3` (`composite`), sets `gsi1pk` again and checks `attr3`; ElectroDB writes `gsi1sk` alone";

const stored = { attr1: "value1", attr2: "value2", attr3: "value3", attr4: "value0" };
const key = { attr1: "value1", attr2: "value2" };

const examples = [
  {
    name: "patch-update-composite-edgecase",
    differs: REWRITES,
    seed: [stored],
    run: (e) => e.patch(key).set({ attr4: "value4" }),
  },
  {
    name: "update-composite-attributes-edgecase",
    entity: declared(true),
    differs: `${REWRITES}; and dynorm's update requires the item to exist, where ElectroDB's \`update\` would create a partial one`,
    seed: [stored],
    run: (e) => e.update(key).set({ attr4: "value4" }),
  },
];

module.exports = { entity: declared(false), TABLE, identity: { entity: "update-edgecases", version: "1" }, examples };
