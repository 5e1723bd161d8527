// ElectroDB's index `scope` examples: an organization and a user of the service `taskapp`,
// each keyed by an empty partition key and its id. With scope, each partition key holds
// the scope (`$taskapp_org`); without, both entities share the partition `$taskapp`.
// `scopes_unscoped.js` is the example without.
"use strict";

const { Entity, Service } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

/** The two entities, with their index scopes when `scoped`. */
function service(client, table, scoped) {
  const entity = (name, id, scope) =>
    new Entity({
      model: { entity: name, service: "taskapp", version: "1" },
      attributes: { [id]: { type: "string" } },
      indexes: {
        myIndex: {
          ...(scoped ? { scope } : {}),
          pk: { field: "pk", composite: [] },
          sk: { field: "sk", composite: [id] },
        },
      },
    });
  return new Service(
    { organization: entity("organization", "organizationId", "org"), user: entity("user", "userId", "user") },
    { client, table },
  );
}

const seed = [
  ["organization", { organizationId: "123" }],
  ["organization", { organizationId: "124" }],
  ["user", { userId: "456" }],
];
/** The documentation's two queries. */
const example = (name) => ({
  name,
  entityName: "organization, user",
  seed,
  runs: [(s) => s.entities.organization.query.myIndex({ organizationId: "123" }), (s) => s.entities.user.query.myIndex({ userId: "456" })],
});

const identities = ["organization", "user"].map((entity) => ({ entity, version: "1" }));

module.exports = {
  entity: (client, table) => service(client, table, true),
  TABLE,
  identity: { entity: "organization", version: "1" },
  identities,
  examples: [example("indexes-scope-with-scope")],
  service,
  example,
};
