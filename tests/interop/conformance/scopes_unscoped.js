// ElectroDB's index `scope` example without the scopes (`scopes.js`): both entities'
// items share the partition `$taskapp`, told apart by their sort keys.
"use strict";

const scopes = require("./scopes.js");

module.exports = {
  ...scopes,
  entity: (client, table) => scopes.service(client, table, false),
  examples: [scopes.example("indexes-scope-without-scope")],
};
