// ElectroDB's transaction examples: a workforce's employee and office read in one
// transaction, and MI6's agent written with a unique email kept by a `constraint` entity.
// Each example declares its own service; the suite's table holds one example's items at a
// time. The idempotent write sends one transaction twice with one token, and the second is
// not applied: each library's token is the documentation's with a suffix of its own run
// (`token` in conformance.js), since DynamoDB refuses a token sent for ten minutes with
// another request, and the other library's request is to another table.
"use strict";

const { Entity, Service } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

function workforce(client, table) {
  const employee = new Entity({
    model: { entity: "employee", version: "1", service: "Workforce" },
    attributes: {
      employeeId: { type: "string", required: true },
      officeId: { type: "string", required: true },
      firstName: { type: "string", required: true },
      lastName: { type: "string", required: true },
      title: { type: "string" },
    },
    indexes: { staff: { pk: { field: "pk", composite: ["employeeId"] }, sk: { field: "sk", composite: [] } } },
  });
  const office = new Entity({
    model: { entity: "office", version: "1", service: "Workforce" },
    attributes: {
      officeId: { type: "string", required: true },
      name: { type: "string", required: true },
      city: { type: "string", required: true },
    },
    indexes: { locations: { pk: { field: "pk", composite: ["officeId"] }, sk: { field: "sk", composite: [] } } },
  });
  return new Service({ employee, office }, { client, table });
}

function mi6(client, table) {
  const agent = new Entity({
    model: { entity: "agent", version: "1", service: "MI6" },
    attributes: {
      id: { type: "string" },
      designation: { type: "string" },
      email: { type: "string", required: true },
      firstName: { type: "string" },
      lastName: { type: "string" },
      alive: { type: "boolean", required: true },
      kills: { type: "number", default: 0 },
    },
    indexes: { operatives: { pk: { field: "pk", composite: ["designation"] }, sk: { field: "sk", composite: ["id"] } } },
  });
  const constraint = new Entity({
    model: { entity: "constraint", version: "1", service: "MI6" },
    attributes: {
      name: { type: "string", required: true },
      value: { type: "string", required: true },
      entity: { type: "string", required: true },
    },
    indexes: {
      value: { pk: { field: "pk", composite: ["value"] }, sk: { field: "sk", composite: ["name", "entity"] } },
      name: {
        index: "gsi1pk-gsi2sk-index",
        pk: { field: "gsi1pk", composite: ["name", "entity"] },
        sk: { field: "gsi1sk", composite: ["value"] },
      },
    },
  });
  return new Service({ constraint, agent }, { client, table });
}

const bond = { id: "7", designation: "00", email: "james.bond@mi6.gov.uk", firstName: "James", lastName: "Bond", alive: true };

const examples = [
  {
    name: "transact-get-employee-and-office",
    entity: workforce,
    entityName: "employee, office",
    seed: [
      ["employee", { employeeId: "employee-1", officeId: "office-1", firstName: "Ada", lastName: "Lovelace", title: "Engineer" }],
      ["office", { officeId: "office-1", name: "Headquarters", city: "London" }],
    ],
    run: (s) =>
      s.transaction.get(({ employee, office }) => [
        employee.get({ employeeId: "employee-1" }).commit(),
        office.get({ officeId: "office-1" }).commit(),
      ]),
  },
  {
    name: "transact-write-idempotent-writes",
    entity: mi6,
    entityName: "agent",
    seed: [["agent", { ...bond, kills: 0 }]],
    token: "daily-headcount-count-2022-03-16",
    // Kills `0` -> `2`, and `2` still after the second (the stored items of both
    // libraries are the same).
    stored: (items) => (items[0].kills.N === "2" ? null : `kills is ${items[0].kills.N}: the second transaction was applied`),
    runs: [0, 1].map(() => (s) =>
      s.transaction.write(({ agent }) => [agent.patch({ id: "7", designation: "00" }).add({ kills: 2 }).commit()]),
    ),
  },
  {
    name: "transact-write-unique-constraint",
    entity: mi6,
    entityName: "agent, constraint",
    run: (s) =>
      s.transaction.write(({ agent, constraint }) => [
        agent.create(bond).commit({ response: "all_old" }),
        constraint.create({ name: "email", value: bond.email, entity: "agent" }).commit(),
      ]),
  },
];

const identities = ["employee", "office", "agent", "constraint"].map((entity) => ({ entity, version: "1" }));

module.exports = { entity: mi6, TABLE, identity: { entity: "agent", version: "1" }, identities, examples };
