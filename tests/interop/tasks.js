// The task-manager side of tests/interop.rs: ElectroDB's documented design, with default
// keys of several attributes, optional key parts, an attribute stored under another name,
// values holding the separator and a map with optional properties.
//
//   node tasks.js write  <endpoint> <table>
//   node tasks.js verify <endpoint> <table>
//
// `write` puts tasks and an employee with ElectroDB. `verify` reads what dynorm wrote with
// ElectroDB's ownership checks on, compares every stored attribute with what ElectroDB
// writes for the same data, then patches an optional key part and finds the item by it.
"use strict";

const models = require("./models.js");
const { assert, electroOwned, run } = require("./check.js");

const [mode, endpoint, table] = process.argv.slice(2);
const client = models.documentClient(endpoint);
const { Task, Employee, service } = models.taskManager(client, table);

async function write() {
  await Task.put({
    taskId: "T#1",
    project: "Core#API",
    employee: "Ann",
    details: { estimate: 3, reviewer: { name: "Bo" } },
  }).go();
  await Task.put({ taskId: "t2", project: "Core#API", employee: "Bo", status: "open" }).go();
  await Employee.put({ employee: "Ann", name: "Ann Lee" }).go();
  return { written: 3 };
}

/** Reads an item with ownership checks on (`check.js`). */
const owned = (entity, key) => electroOwned(client, entity, table, key);

async function verify() {
  const t3 = await owned(Task, { taskId: "T#3", project: "Core#API", employee: "Cy" });
  assert.deepEqual(t3.details, { notes: "draft", reviewer: { name: "Di" } });
  assert.equal(t3.status, undefined);
  const t4 = await owned(Task, { taskId: "t4", project: "Ops", employee: "Cy" });
  assert.equal(t4.status, "blocked");
  const cy = await owned(Employee, { employee: "Cy" });
  assert.equal(cy.office, undefined);

  // An optional key part set later by ElectroDB puts the item in that index.
  await Task.patch({ taskId: "T#3", project: "Core#API", employee: "Cy" }).set({ status: "review" }).go();
  const { data: review } = await Task.query.byStatus({ status: "review" }).go();
  assert.deepEqual(review.map((t) => t.taskId), ["T#3"]);
  await Employee.patch({ employee: "Cy" }).set({ office: "Lisbon" }).go();
  const { data: lisbon } = await Employee.query.byOffice({ office: "Lisbon" }).go();
  assert.deepEqual(lisbon.map((e) => e.employee), ["Cy"]);

  const { data: byProject } = await Task.query.byProject({ project: "Core#API" }).go();
  assert.deepEqual(byProject.map((t) => t.taskId).sort(), ["T#1", "T#3", "t2"]);

  // The `assignments` collection on GSI3 holds what dynorm wrote: Cy and Cy's tasks.
  const { data: work } = await service.collections.assignments({ employee: "Cy" }).go();
  assert.deepEqual(work.employee.map((e) => e.employee), ["Cy"]);
  assert.deepEqual(work.task.map((t) => t.taskId).sort(), ["T#3", "t4"]);
  // A query on the sort key's leading attribute finds dynorm's item by its key alone.
  const { data: core } = await Task.query.assigned({ employee: "Cy", project: "Core#API" }).go();
  assert.deepEqual(core.map((t) => t.taskId), ["T#3"]);
  return { verified: 10 };
}

run(() => (mode === "write" ? write() : verify()));
