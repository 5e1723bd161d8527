// The mall stores of ElectroDB's "multiple where clauses" filter example: the entity of
// `mall_leases.js`, named in lower case, with a plain string category.
"use strict";

const leases = require("./mall_leases.js");

const entity = (client, table) =>
  leases.leaseEntity(client, table, {
    service: "mallstoredirectory",
    entity: "mallstore",
    categoryType: { type: "string" },
  });

const examples = [{ name: "filters-multiple-where-clauses", seed: leases.seed, run: leases.query }];

module.exports = { entity, TABLE: leases.TABLE, identity: { entity: "mallstore", version: "1" }, examples };
