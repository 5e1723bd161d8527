// ElectroDB's transaction examples: a workforce's employee and office read in one
// transaction, and MI6's agent written with a unique email kept by a `constraint` entity.
// Each example declares its own service; the suite's table holds one example's items at a
// time. The idempotent write (`token`) is not run: both libraries would send one token to
// one server, which refuses the second request as a mismatch for ten minutes.
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
