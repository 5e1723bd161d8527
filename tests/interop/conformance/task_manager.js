// ElectroDB's task manager (its `taskManager` service, of the service "taskmanager"): an
// employee, an office and a task in one table, with the collections `workplaces` (an
// office and the employees who work there) and `assignments` (an employee and their
// tasks), and the documentation's queries and its put of a new task.
"use strict";

const { Entity, Service } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

const model = (entity) => ({ entity, version: "1", service: "taskmanager" });
const string = { type: "string" };
const required = { type: "string", required: true };

/** The documentation's employee id: random. Every employee here is written with its id,
 * so the default is never used and both sides store the same items. */
const randomId = () => Math.random().toString(36).slice(2, 10);
const isValidDate = (date) => !Number.isNaN(Date.parse(date));
/** A date attribute: `Date.parse` must read it. */
const date = {
  type: "string",
  validate: (value) => {
    if (!isValidDate(value)) throw new Error("Invalid date format");
    return true;
  },
};

function entity(client, table) {
  const employee = new Entity({
    model: model("employee"),
    attributes: {
      employee: { type: "string", default: () => randomId() },
      firstName: required,
      lastName: required,
      office: required,
      title: required,
      team: { type: ["development", "marketing", "finance", "product", "cool cats and kittens"], required: true },
      salary: required,
      manager: string,
      dateHired: date,
      birthday: date,
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
        sk: { field: "gsi2sk", composite: ["dateHired", "title"] },
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
        sk: { field: "gsi4sk", composite: ["salary"] },
      },
      directReports: {
        index: "gsi5pk-gsi5sk-index",
        pk: { field: "gsi5pk", composite: ["manager"] },
        sk: { field: "gsi5sk", composite: ["team", "office"] },
      },
    },
  });
  const office = new Entity({
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
  const task = new Entity({
    model: model("task"),
    attributes: {
      task: required,
      project: required,
      employee: required,
      description: string,
      status: { type: ["open", "in-progress", "closed"], default: "open" },
      points: { type: "number", required: true },
      comments: { type: "any" },
    },
    indexes: {
      task: {
        pk: { field: "pk", composite: ["task"] },
        sk: { field: "sk", composite: ["project", "employee"] },
      },
      project: {
        index: "gsi1pk-gsi1sk-index",
        pk: { field: "gsi1pk", composite: ["project"] },
        sk: { field: "gsi1sk", composite: ["employee", "status"] },
      },
      assigned: {
        collection: "assignments",
        index: "gsi3pk-gsi3sk-index",
        pk: { field: "gsi3pk", composite: ["employee"] },
        sk: { field: "gsi3sk", composite: ["project", "status"] },
      },
      statuses: {
        index: "gsi4pk-gsi4sk-index",
        pk: { field: "gsi4pk", composite: ["status"] },
        sk: { field: "gsi4sk", composite: ["project", "employee"] },
      },
    },
  });
  return new Service({ employee, task, office }, { client, table });
}

// Two offices and their staff. Salaries are text, compared as text. Every employee has a
// hiring date and a birthday: the documentation's validation refuses an absent one too
// (`Date.parse(undefined)` is not a date). Morgan Lee has no manager: her `directReports`
// key is written without one, as ElectroDB's put writes an index key whose attributes are
// all absent. The task `onboarding` is written without a status, which its default fills.
const employee = (employee, firstName, lastName, office, title, team, salary, manager, dateHired, birthday) => [
  "employee",
  { employee, firstName, lastName, office, title, team, salary, manager, dateHired, birthday },
];
const task = (task, project, employee, status, points, extra = {}) => ["task", { task, project, employee, status, points, ...extra }];
const seed = [
  employee("morgan.lee", "Morgan", "Lee", "Portland", "Director", "product", "180000", undefined, "2012-04-02", "1975-08-19"),
  employee("tyler.walch", "Tyler", "Walch", "Portland", "Software Engineer", "development", "150000", "morgan.lee", "2018-03-12", "1990-02-14"),
  employee("ana.ruiz", "Ana", "Ruiz", "Portland", "Junior Software Engineer", "development", "105000", "tyler.walch", "2023-09-01", "2000-10-09"),
  employee("ben.okafor", "Ben", "Okafor", "Seattle", "Junior Software Engineer", "development", "120000", "tyler.walch", "2022-01-17", "1999-12-01"),
  employee("cy.tan", "Cy", "Tan", "Seattle", "Junior Software Engineer", "cool cats and kittens", "100000", "tyler.walch", "2024-02-05", "2001-04-22"),
  employee("dee.park", "Dee", "Park", "Portland", "Marketing Manager", "marketing", "130000", "morgan.lee", "2020-01-15", "1985-07-04"),
  employee("eli.ford", "Eli", "Ford", "Seattle", "Copywriter", "marketing", "90000", "dee.park", "2021-08-30", "1993-11-30"),
  employee("fay.wong", "Fay", "Wong", "Seattle", "Copywriter", "marketing", "85000", "dee.park", "2023-02-01", "1996-01-27"),
  employee("gus.hale", "Gus", "Hale", "Portland", "Brand Lead", "marketing", "110000", "dee.park", "2015-05-05", "1980-03-03"),
  ["office", { office: "Portland", country: "USA", state: "Oregon", city: "Portland", zip: "97209", address: "1 NW Couch St" }],
  ["office", { office: "Seattle", country: "USA", state: "Washington", city: "Seattle", zip: "98101", address: "2 Pike St" }],
  task("api-spec", "135-53", "tyler.walch", "open", 8, { description: "Write the API spec" }),
  task("ci-pipeline", "135-53", "tyler.walch", "in-progress", 3),
  task("launch-post", "135-54", "tyler.walch", "closed", 2, { comments: [{ author: "dee.park", text: "Shipped", likes: 3 }] }),
  task("bug-bash", "135-53", "ana.ruiz", "open", 21),
  task("onboarding", "135-53", "ben.okafor", undefined, 13, { description: "Set up a laptop" }),
];

const q = (name, entityName, ...runs) => ({ name, entityName, seed, runs });
/** A collection's example: its reads return the items of several entities. */
const c = (...args) => ({ ...q(...args), collection: true });

/** The documentation's `yearsAgo`, of a fixed day rather than today's, so that both sides
 * query the same dates on any day. */
function yearsAgo(years, today = "2024-06-01") {
  const date = new Date(`${today}T00:00:00Z`);
  date.setUTCFullYear(date.getUTCFullYear() - years);
  return date.toISOString().slice(0, 10);
}

const examples = [
  c("task-manager-assignments", "employee, task", (app) => app.collections.assignments({ employee: "tyler.walch" })),
  q("task-manager-create-task", "task", (app) =>
    app.entities.task.put({
      task: "design-review",
      project: "135-53",
      employee: "tyler.walch",
      description: "Review the new component library designs",
      points: 5,
    }),
  ),
  q("task-manager-junior-developers", "employee", (app) =>
    app.entities.employee.query.roles({ title: "Junior Software Engineer" }).gt({ salary: "100000" }),
  ),
  q("task-manager-open-tasks", "task", (app) =>
    app.entities.task.query.statuses({ status: "open", project: "135-53" }).where(({ points }, { lte }) => lte(points, 13)),
  ),
  q("task-manager-recent-hires", "employee", (app) =>
    app.entities.employee.query
      .teams({ team: "marketing" })
      .between({ dateHired: yearsAgo(5) }, { dateHired: yearsAgo(2) }),
  ),
  c("task-manager-workplace", "employee, office", (app) => app.collections.workplaces({ office: "portland" })),
];

const identities = ["employee", "task", "office"].map((entity) => ({ entity, version: "1" }));

module.exports = { entity, TABLE, identity: { entity: "taskmanager", version: "1" }, identities, examples };
