// ElectroDB's item-counter examples: a company directory whose employees are counted in
// counter items updated in the same transaction (the whole service, a team, and a kind
// of member in an organization), and an accounts service whose members are counted by
// DynamoDB itself (`Select: COUNT`) through a collection query, an entity query and a
// scan. Each example declares its own service; the suite's table holds one example's
// items at a time.
"use strict";

const { Entity, Service } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

function directory(client, table) {
  const model = (entity) => ({ entity, service: "directory", version: "1" });
  const Employee = new Entity({
    model: model("employee"),
    attributes: {
      organizationId: { type: "string" },
      employeeId: { type: "string" },
      name: { type: "string" },
      teamId: { type: "string" },
    },
    indexes: {
      employees: {
        collection: "employed",
        pk: { field: "pk", composite: ["organizationId"] },
        sk: { field: "sk", composite: ["employeeId"] },
      },
    },
  });
  // One counter for the whole service: a key with no attributes.
  const GlobalCounter = new Entity({
    model: model("global-counter"),
    attributes: { count: { type: "number" } },
    indexes: { count: { pk: { field: "pk", composite: [] }, sk: { field: "sk", composite: [] } } },
  });
  const TeamCounter = new Entity({
    model: model("team-counter"),
    attributes: { organizationId: { type: "string" }, teamId: { type: "string" }, count: { type: "number" } },
    indexes: {
      organization: {
        collection: "employed",
        pk: { field: "pk", composite: ["organizationId"] },
        sk: { field: "sk", composite: ["teamId"] },
      },
    },
  });
  const OrganizationItemCounter = new Entity({
    model: model("member-counter"),
    attributes: {
      organizationId: { type: "string" },
      kind: { type: ["employee", "team"] },
      count: { type: "number" },
    },
    indexes: {
      organization: {
        collection: "employed",
        pk: { field: "pk", composite: ["organizationId"] },
        sk: { field: "sk", composite: ["kind"] },
      },
    },
  });
  return new Service({ Employee, OrganizationItemCounter, TeamCounter, GlobalCounter }, { client, table });
}

function accounts(client, table) {
  const model = (entity) => ({ entity, service: "accounts", version: "1" });
  const User = new Entity({
    model: model("user"),
    attributes: { accountId: { type: "string" }, userId: { type: "string" }, name: { type: "string" } },
    indexes: {
      account: {
        collection: "members",
        pk: { field: "pk", composite: ["accountId"] },
        sk: { field: "sk", composite: ["userId"] },
      },
    },
  });
  const Account = new Entity({
    model: model("account"),
    attributes: { accountId: { type: "string" }, name: { type: "string" } },
    indexes: {
      account: {
        collection: "members",
        pk: { field: "pk", composite: ["accountId"] },
        sk: { field: "sk", composite: [] },
      },
    },
  });
  return new Service({ User, Account }, { client, table });
}

const organizationId = "acme-corp";
const teamId = "engineering";

// Counts through `params`, and the raw response whose `Count` is the count.
const count = { data: "raw", params: { Select: "COUNT" } };

const examples = [
  {
    name: "item-counters-write-transaction",
    entity: directory,
    entityName: "employee, global-counter, team-counter, member-counter",
    // The counts before Jane joins.
    seed: [
      ["GlobalCounter", { count: 4 }],
      ["TeamCounter", { organizationId, teamId, count: 2 }],
    ],
    run: (s) =>
      s.transaction.write(({ Employee, OrganizationItemCounter, GlobalCounter, TeamCounter }) => [
        Employee.create({ organizationId, employeeId: "emp-001", name: "Jane Smith" }).commit(),
        GlobalCounter.upsert({}).add({ count: 1 }).commit(),
        TeamCounter.upsert({ organizationId, teamId }).add({ count: 1 }).commit(),
        OrganizationItemCounter.upsert({ organizationId, kind: "employee" }).add({ count: 1 }).commit(),
      ]),
  },
  {
    name: "item-counters-read-select",
    entity: accounts,
    entityName: "user, account",
    collection: true,
    go: count,
    seed: [
      ["Account", { accountId: "1234", name: "Acme" }],
      ["User", { accountId: "1234", userId: "u1", name: "Ada" }],
      ["User", { accountId: "1234", userId: "u2", name: "Grace" }],
      ["User", { accountId: "9999", userId: "u3", name: "Edsger" }],
    ],
    runs: [
      (s) => s.collections.members({ accountId: "1234" }),
      (s) => s.entities.User.query.account({ accountId: "1234" }),
      (s) => s.entities.User.scan.where((attr, op) => op.eq(attr.accountId, "1234")),
    ],
  },
];

const identities = ["employee", "global-counter", "team-counter", "member-counter", "user", "account"].map((entity) => ({
  entity,
  version: "1",
}));

module.exports = { entity: directory, TABLE, identity: { entity: "employee", version: "1" }, identities, examples };
