// The version-control side of tests/interop.rs: ElectroDB's version-control entities, each
// on its table, with the model features dynorm says in ElectroDB's words: computed and
// transformed attributes (`tickets`: `watch`, `set`, `get`, a transformed key part), a
// boolean and an enum in a key with a literal default (`repositories`), sub-collections
// (`subCollections`) and an update of a path inside a map (the task manager's `details`).
//
//   node versioncontrol.js write  <endpoint> <tickets> <repositories> <owned> <tasks>
//   node versioncontrol.js verify <endpoint> <tickets> <repositories> <owned> <tasks>
//
// `write` writes with ElectroDB. `verify` reads what dynorm wrote and changed with
// ElectroDB's ownership checks on, compares each stored item with what ElectroDB writes for
// the same data, and finds dynorm's items through ElectroDB's queries and collections.
"use strict";

const models = require("./models.js");
const { assert, electroOwned, run } = require("./check.js");

const [mode, endpoint, ticketTable, repositoryTable, ownedTable, taskTable] = process.argv.slice(2);
const client = models.documentClient(endpoint);
const tickets = models.tickets(client, ticketTable);
const repositories = models.repositories(client, repositoryTable);
const owned = models.subCollections(client, ownedTable);
const { Task } = models.taskManager(client, taskTable);

const repo = { repoOwner: "tywalch", repoName: "electrodb" };

async function write() {
  await tickets.put({ ...repo, issueNumber: "42", username: "ann", subject: "Keys fold case" }).go();
  await tickets
    .put({ ...repo, issueNumber: "43", username: "bo", status: "Closed", replyViewed: "bo", subject: "Sub-collections" })
    .go();
  await repositories.put({ repoOwner: "tywalch", repoName: "ElectroDB", isPrivate: false, license: "mit" }).go();
  await repositories
    .put({ repoOwner: "tywalch", repoName: "Secret", isPrivate: true, license: "apache-2.0", defaultBranch: "trunk" })
    .go();
  await owned.repository.put({ username: "ann", id: "r1", status: "open" }).go();
  await owned.issue.put({ username: "ann", id: "i1", status: "open" }).go();
  await Task.put({ taskId: "t9", project: "Docs", employee: "Ann", details: { estimate: 1, reviewer: { name: "Bo" } } }).go();
  return { written: 7 };
}

/** What ElectroDB reads of an item dynorm wrote or changed (`check.js`). */
const ownedItem = (entity, table, key) => electroOwned(client, entity, table, key);

async function verify() {
  // dynorm closed ElectroDB's issue 42 and wrote issue 44 (created closed, then opened).
  const closed = await ownedItem(tickets, ticketTable, { ...repo, issueNumber: "42" });
  assert.equal(closed.status, "Closed");
  assert.equal(closed.replyViewed, undefined);
  const reopened = await ownedItem(tickets, ticketTable, { ...repo, issueNumber: "44" });
  assert.deepEqual(
    [reopened.status, reopened.ticketNumber, reopened.ticketType, reopened.replyViewed],
    ["Open", "44", "Issue", undefined],
  );
  // dynorm's items are in ElectroDB's indexes, under their keys as ElectroDB builds them.
  // (ElectroDB's query does not apply `set` to a key part, so `todos({ status: "Closed" })`
  // looks for `status_closed` where ElectroDB itself stored `status_1`: the index is read
  // whole here. dynorm's query applies it.)
  const { data: todos } = await tickets.query.todos(repo).go();
  assert.deepEqual(
    todos.map((t) => `${t.issueNumber}:${t.status}`).sort(),
    ["42:Closed", "43:Closed", "44:Open"],
  );
  const { data: subscribed } = await tickets.query.subscribers({ ...repo, ticketNumber: "44" }).go();
  assert.deepEqual(subscribed.map((t) => t.issueNumber), ["44"]);

  // A repository dynorm wrote, found by the boolean and enum in its key; its default.
  const rust = await ownedItem(repositories, repositoryTable, { repoOwner: "tywalch", repoName: "dynorm" });
  assert.equal(rust.defaultBranch, "main");
  const { data: publicOnes } = await repositories.query.created({ repoOwner: "tywalch", isPrivate: false }).go();
  assert.deepEqual(publicOnes.map((r) => r.repoName).sort(), ["ElectroDB", "dynorm"]);

  // A pull request dynorm wrote is in both levels of the sub-collection.
  await ownedItem(owned.pullRequest, ownedTable, { id: "p1" });
  const { data: all } = await owned.service.collections.owned({ username: "ann" }).go();
  assert.deepEqual([all.repository.length, all.issue.length, all.pullRequest.length], [1, 1, 1]);
  const { data: managed } = await owned.service.collections.managed({ username: "ann" }).go();
  assert.deepEqual(managed.pullRequest.map((p) => p.id), ["p1"]);

  // dynorm set a path inside ElectroDB's map: the rest of the map is as ElectroDB wrote it.
  const task = await ownedItem(Task, taskTable, { taskId: "t9", project: "Docs", employee: "Ann" });
  assert.deepEqual(task.details, { estimate: 1, reviewer: { name: "Cy" } });
  return { verified: 8 };
}

run(() => (mode === "write" ? write() : verify()));
