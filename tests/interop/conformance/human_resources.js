// ElectroDB's human resources app (its `EmployeeApp` service, of the service "taskapp"):
// employees, their tasks and their offices in one table, with the collections
// `workplaces` (an office and the employees who work there) and `assignments` (an
// employee and their tasks), and the documentation's queries on them.
"use strict";

const { Entity, Service } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

const model = (entity) => ({ entity, version: "1", service: "taskapp" });
const string = { type: "string" };

function entity(client, table) {
  const employees = new Entity({
    model: model("employee"),
    attributes: {
      employee: string,
      firstName: string,
      lastName: string,
      office: string,
      title: string,
      team: { type: ["development", "marketing", "finance", "product"] },
      salary: string,
      manager: string,
      dateHired: string,
      birthday: string,
    },
    indexes: {
      employee: {
        pk: { field: "pk", composite: ["employee"] },
        sk: { field: "sk", composite: [] },
      },
      coworkers: {
        index: "gsi1pk-gsi1sk-index",
        collection: "workplaces",
        pk: { field: "gsi1pk", composite: ["office"] },
        sk: { field: "gsi1sk", composite: ["team", "title", "employee"] },
      },
      teams: {
        index: "gsi2pk-gsi2sk-index",
        pk: { field: "gsi2pk", composite: ["team"] },
        sk: { field: "gsi2sk", composite: ["title", "salary", "employee"] },
      },
      employeeLookup: {
        collection: "assignments",
        index: "gsi3pk-gsi3sk-index",
        pk: { field: "gsi3pk", composite: ["employee"] },
        sk: { field: "gsi3sk", composite: [] },
      },
      roles: {
        index: "gsi4pk-gsi4sk-index",
        pk: { field: "gsi4pk", composite: ["title"] },
        sk: { field: "gsi4sk", composite: ["salary", "employee"] },
      },
      directReports: {
        index: "gsi5pk-gsi5sk-index",
        pk: { field: "gsi5pk", composite: ["manager"] },
        sk: { field: "gsi5sk", composite: ["team", "office", "employee"] },
      },
    },
  });
  const tasks = new Entity({
    model: model("task"),
    attributes: { task: string, project: string, employee: string, description: string },
    indexes: {
      task: {
        pk: { field: "pk", composite: ["task"] },
        sk: { field: "sk", composite: ["project", "employee"] },
      },
      project: {
        index: "gsi1pk-gsi1sk-index",
        pk: { field: "gsi1pk", composite: ["project"] },
        sk: { field: "gsi1sk", composite: ["employee", "task"] },
      },
      assigned: {
        collection: "assignments",
        index: "gsi3pk-gsi3sk-index",
        pk: { field: "gsi3pk", composite: ["employee"] },
        sk: { field: "gsi3sk", composite: ["project", "task"] },
      },
    },
  });
  const offices = new Entity({
    model: model("office"),
    attributes: { office: string, country: string, state: string, city: string, zip: string, address: string },
    indexes: {
      locations: {
        pk: { field: "pk", composite: ["country", "state"] },
        sk: { field: "sk", composite: ["city", "zip", "office"] },
      },
      office: {
        index: "gsi1pk-gsi1sk-index",
        collection: "workplaces",
        pk: { field: "gsi1pk", composite: ["office"] },
        sk: { field: "gsi1sk", composite: [] },
      },
    },
  });
  return new Service({ employees, tasks, offices }, { client, table });
}

// The staff of two workplaces. Names are stored as written; ElectroDB's keys fold them to
// lower case, so the examples' lower-case queries find them. Jeff Lowe and Carole Baskin
// have no manager: their `directReports` keys are written without one, as ElectroDB's put
// writes an index key whose attributes are all absent. Salaries are text, compared as
// text: "90.00" sorts after "150.00".
const employee = (employee, firstName, lastName, office, title, team, salary, manager, dateHired, birthday) => [
  "employees",
  { employee, firstName, lastName, office, title, team, salary, manager, dateHired, birthday },
];
const task = (task, project, employee, description) => ["tasks", { task, project, employee, description }];
const office = (office, city, state, zip, address) => ["offices", { office, country: "USA", state, city, zip, address }];
const seed = [
  employee("JLowe", "Jeff", "Lowe", "GW Zoo", "Owner", "product", "500.00", undefined, "2018-03-01", "1986-05-20"),
  employee("JExotic", "Joe", "Exotic", "GW Zoo", "Animal Wrangler", "marketing", "120.00", "JLowe", "2020-05-15", "1963-03-05"),
  employee("JFinlay", "John", "Finlay", "GW Zoo", "Animal Wrangler", "development", "90.00", "JLowe", "2019-01-10", "1980-05-23"),
  employee("SSaffery", "Saff", "Saffery", "GW Zoo", "Keeper", "development", "80.00", "JLowe", "2020-05-30", "1991-09-14"),
  employee("CBaskin", "Carole", "Baskin", "Big Cat Rescue", "CEO", "product", "400.00", undefined, "1992-11-01", "1961-06-06"),
  employee("HBaskin", "Howard", "Baskin", "Big Cat Rescue", "Animal Wrangler", "finance", "150.00", "CBaskin", "2004-01-01", "1950-02-10"),
  task("T-1", "Big Cat Rescue", "CBaskin", "Feed the tigers"),
  task("T-2", "Save the Tigers", "CBaskin", "Lobby for the big cat act"),
  task("T-3", "Murder Carol", "JExotic", "Plan it"),
  task("T-4", "Murder Carol", "JFinlay", "Refuse to help"),
  office("Big Cat Rescue", "Tampa", "Florida", "33625", "12802 Easy St"),
  office("Jungle Gardens", "Sarasota", "Florida", "34234", "3701 Bay Shore Rd"),
  office("GW Zoo", "Wynnewood", "Oklahoma", "73098", "25803 N County Rd 3250"),
];

const q = (name, entityName, ...runs) => ({ name, entityName, seed, runs });
/** A collection's example: its reads return the items of several entities. */
const c = (...args) => ({ ...q(...args), collection: true });
/** The documentation runs each of these queries on the service's entity and on the entity
 * alone: both send the same request, so the example runs it twice. */
const twice = (name, entityName, run) => q(name, entityName, run, run);

const startDate = "2020-05-01";
const endDate = "2020-06-01";

const examples = [
  c("human-resources-assignments", "employee, task", (app) => app.collections.assignments({ employee: "CBaskin" })),
  twice("human-resources-direct-reports", "employee", (app) => app.entities.employees.query.directReports({ manager: "jlowe" })),
  twice("human-resources-employee-birthdays", "employee", (app) =>
    app.entities.employees.query
      .coworkers({ office: "gw zoo" })
      .where(
        ({ birthday, dateHired }, { between }) => `
        ${between(dateHired, startDate, endDate)} OR
        ${between(birthday, startDate, endDate)}
    `,
      ),
  ),
  twice("human-resources-employee-salaries", "employee", (app) =>
    app.entities.employees.query.roles({ title: "animal wrangler" }).lte({ salary: "150.00" }),
  ),
  twice("human-resources-employee-tasks", "task", (app) => app.entities.tasks.query.assigned({ employee: "cbaskin" })),
  twice("human-resources-office-locations", "office", (app) =>
    app.entities.offices.query.locations({ country: "usa", state: "florida" }),
  ),
  twice("human-resources-project-tasks", "task", (app) => app.entities.tasks.query.project({ project: "Murder Carol" })),
  c("human-resources-workplaces", "employee, office", (app) => app.collections.workplaces({ office: "big cat rescue" })),
];

const identities = ["employee", "task", "office"].map((entity) => ({ entity, version: "1" }));

module.exports = { entity, TABLE, identity: { entity: "taskapp", version: "1" }, identities, examples };
