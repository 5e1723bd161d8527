// ElectroDB's documentation examples as a conformance suite, the ElectroDB side of
// tests/interop.rs's `electrodb_documentation_examples_both_ways`.
//
//   node conformance.js names
//   node conformance.js compare <endpoint> <dynorm.json> <electrodb.json> <results.md> <suite>=<table>...
//
// `names` prints each suite's examples' names. Each suite (`conformance/<suite>.js`) is one
// entity of the documentation, or a service of several sharing a table, and its examples;
// an example runs one request, or several in order (`runs`). `compare` runs each suite on
// the table given. It reads what dynorm sent and stored in each
// example (dynorm.json), runs the same example with ElectroDB on a table of its own, and
// for each one compares:
// - the request: the key or item, the index, a query's order, what a read selects
//   (`Select`), and the condition, key condition and filter expressions after
//   placeholders are put back (`conformance/expression.js`). ElectroDB
//   checks the identity of every item a query reads (`__edb_e__`, `__edb_v__`) as it
//   reads it, where dynorm puts the same test in the query's filter: both return the
//   same items, so a query's filter is compared without it;
// - how many items a read returned;
// - the outcome: both wrote, or both were refused by their condition;
// - the items the table holds afterwards, byte for byte;
// - ElectroDB's reads of dynorm's items, with its ownership checks on, against its reads
//   of its own.
// It writes the items ElectroDB stored (electrodb.json, for dynorm to read) and the table
// of results (results.md), and fails when an example's result is not the one the example
// declares (`differs` names how the request or outcome differs, `unsaid` is dynorm's to
// give). The items stored, and each side's reads of them, must always be the same.
"use strict";

const fs = require("node:fs");
const { ScanCommand, DeleteItemCommand, PutItemCommand } = require("@aws-sdk/client-dynamodb");
const { marshall, unmarshall } = require("@aws-sdk/util-dynamodb");
const { canonical, stable } = require("./conformance/expression.js");
const { run } = require("./check.js");
// These first, in this order (the results table's); then any other suite, by name.
const FIRST = ["store_locations", "store_paths", "books", "inventory", "team_directory", "staff", "shopping_mall", "animals", "animal_conditions", "edgecases", "library"];
const SUITES = [
  ...FIRST,
  ...fs
    .readdirSync(`${__dirname}/conformance`)
    .filter((file) => file.endsWith(".js"))
    .map((file) => file.replace(/\.js$/, ""))
    .filter((name) => !["expression", "clock"].includes(name) && !FIRST.includes(name))
    .sort(),
];
const suites = SUITES.map((name) => {
  const suite = require(`./conformance/${name}.js`);
  return { name, entityName: suite.identity.entity, ...suite };
});
const allExamples = suites.flatMap((suite) => suite.examples.map((example) => ({ ...example, suite })));

// Every example of the documentation: run by a suite, or listed with why it is not.
const documented = require("./conformance/documented.json");
for (const name of documented.examples) {
  const run = allExamples.some((example) => example.name === name);
  if (run === name in documented.notRun) {
    throw new Error(`${name}: ${run ? "run by a suite and listed as not run" : "neither run by a suite nor listed as not run"}`);
  }
}
for (const example of allExamples) {
  if (!documented.examples.includes(example.name)) throw new Error(`${example.name} is not an example of the documentation`);
}

if (process.argv[2] === "names") {
  process.stdout.write(JSON.stringify(Object.fromEntries(suites.map((s) => [s.name, s.examples.map((e) => e.name)]))));
  process.exit(0);
}

const [, endpoint, dynormPath, electrodbPath, resultsPath, ...tableArgs] = process.argv.slice(2);
const tables = Object.fromEntries(tableArgs.map((arg) => arg.split("=")));
// The suites given a table; tests/interop.rs checks that it gives every suite one.
const examples = allExamples.filter((example) => example.suite.name in tables);
// The credentials of every interop script: DynamoDB Local keeps tables apart by key.
const client = require("./models.js").documentClient(endpoint);
const raw = client;

/** The DynamoDB operation an ElectroDB request is. */
function operationOf(name, params) {
  if (params.TransactItems) return params.TransactItems.some((item) => item.Get) ? "TransactGetItems" : "TransactWriteItems";
  if (params.UpdateExpression) return "UpdateItem";
  if (params.Item) return "PutItem";
  if (params.KeyConditionExpression) return "Query";
  if (!params.Key) return "Scan";
  return /delete|remove/.test(name) ? "DeleteItem" : "GetItem";
}

const marshalled = (value) =>
  value === undefined ? undefined : stable(marshall(value, { removeUndefinedValues: true, convertEmptyValues: false }));

async function scan(table) {
  const { Items = [] } = await raw.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return sortItems(Items);
}

const sortItems = (items) =>
  items.map(stable).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

async function clear(table, keys) {
  for (const item of await scan(table)) {
    const Key = Object.fromEntries(keys.map((k) => [k, item[k]]));
    await raw.send(new DeleteItemCommand({ TableName: table, Key }));
  }
}

/** The entity of a suite's `target` (an entity, or a service of several) that `item` is. */
function entityOf(target, item) {
  if (!target.entities) return target;
  const name = item.__edb_e__ && item.__edb_e__.S;
  return Object.values(target.entities).find((e) => e.schema.model.entity === name);
}

/** Writes a seed: an item of the suite's entity, `[entity, item]` in a service, or
 * `{ raw: item }`, an item another program wrote, as it is. */
const put = (target, table, seed) =>
  seed.raw
    ? raw.send(new PutItemCommand({ TableName: table, Item: marshall(seed.raw) }))
    : (Array.isArray(seed) ? target.entities[seed[0]].put(seed[1]) : target.put(seed)).go();

/** What ElectroDB reads of each stored item, by key, with its ownership checks on. */
async function readBack(target, items) {
  const out = [];
  for (const item of items) {
    const entity = entityOf(target, item);
    if (!entity) {
      out.push(null);
      continue;
    }
    const { data: parsed } = entity.parse({ Item: unmarshall(item) });
    if (!parsed) {
      out.push(null);
      continue;
    }
    const { data } = await entity.get(parsed).go();
    out.push(data);
  }
  return out;
}

/** The writes or keys of batch requests, whatever their table and however chunked. */
function batched(requests) {
  return requests
    .flatMap((request) => Object.values(request.RequestItems))
    .flatMap((entries) => (Array.isArray(entries) ? entries : entries.Keys))
    .map((entry) => JSON.stringify(stable(entry)))
    .sort();
}

/** [`requestDifference`] for a batch: the same writes or keys, in one operation. */
function batchDifference(params, sent) {
  const operation = JSON.stringify(params).includes('"Keys"') ? "BatchGetItem" : "BatchWriteItem";
  const ours = sent.filter((r) => r.operation === operation).map((r) => r.body);
  const others = [...new Set(sent.filter((r) => r.operation !== operation).map((r) => r.operation))];
  if (others.length) return `dynorm also sent ${others.join(", ")}`;
  const theirs = params.map((request) => ({
    RequestItems: Object.fromEntries(
      Object.entries(request.RequestItems).map(([table, entries]) => [
        table,
        Array.isArray(entries)
          ? entries.map((entry) =>
              entry.PutRequest
                ? { PutRequest: { Item: marshalled(entry.PutRequest.Item) } }
                : { DeleteRequest: { Key: marshalled(entry.DeleteRequest.Key) } },
            )
          : { ...entries, Keys: entries.Keys.map(marshalled) },
      ]),
    ),
  }));
  const [a, b] = [batched(theirs), batched(ours)];
  return JSON.stringify(a) === JSON.stringify(b) ? null : `${operation}: ElectroDB ${a}, dynorm ${b}`;
}

/** [`requestDifference`] for a transaction: the same operations on the same items, in
 * order, each with its key or item and its condition, and the same idempotency token. */
function transactDifference(params, body, keys) {
  const differences = [];
  const compare = (what, a, b) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${what}: ElectroDB ${JSON.stringify(a)}, dynorm ${JSON.stringify(b)}`);
  };
  // Without a token from the caller, the SDK of either library makes one as it sends
  // (ElectroDB's parameters do not show it; dynorm's recorded body does).
  if (params.ClientRequestToken !== undefined) compare("ClientRequestToken", params.ClientRequestToken, body.ClientRequestToken);
  compare("operations", params.TransactItems.length, (body.TransactItems || []).length);
  for (const [i, theirs] of params.TransactItems.entries()) {
    const [kind, request] = Object.entries(theirs)[0];
    const ours = (body.TransactItems || [])[i] || {};
    compare(`operation ${i}`, kind, Object.keys(ours)[0]);
    const sent = ours[kind] || {};
    compare(`key ${i}`, marshalled(request.Key), sent.Key && stable(sent.Key));
    compare(`item ${i}`, marshalled(request.Item), sent.Item && stable(sent.Item));
    const values = marshall(request.ExpressionAttributeValues || {}, { removeUndefinedValues: true });
    compare(
      `ConditionExpression ${i}`,
      canonical(request.ConditionExpression, request.ExpressionAttributeNames || {}, values, keys),
      canonical(sent.ConditionExpression, sent.ExpressionAttributeNames || {}, sent.ExpressionAttributeValues || {}, keys),
    );
  }
  return differences.length ? differences.join("; ") : null;
}

/** How the request dynorm sent differs from ElectroDB's, or `null`: the example's request
 * `step` of the `steps` it sends of this operation, in the order dynorm sent them, among
 * the example's `operations`. */
function requestDifference(example, params, sent, keys, step = 0, steps = 1, operations = []) {
  if (Array.isArray(params)) return batchDifference(params, sent);
  const operation = operationOf(example.name, params);
  const ours = sent.filter((r) => r.operation === operation);
  const others = [...new Set(sent.filter((r) => r.operation !== operation && !operations.includes(r.operation)).map((r) => r.operation))];
  if (ours.length !== steps) return `dynorm sent ${ours.length} ${operation} requests`;
  if (others.length) return `dynorm also sent ${others.join(", ")}`;
  const body = ours[step].body;
  if (params.TransactItems) return transactDifference(params, body, keys);
  const names = { ...(params.ExpressionAttributeNames || {}) };
  const theirValues = marshall(params.ExpressionAttributeValues || {}, { removeUndefinedValues: true });
  const differences = [];
  const compare = (what, a, b) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${what}: ElectroDB ${JSON.stringify(a)}, dynorm ${JSON.stringify(b)}`);
  };
  compare("key", marshalled(params.Key), body.Key && stable(body.Key));
  compare("item", marshalled(params.Item), body.Item && stable(body.Item));
  compare("index", params.IndexName, body.IndexName);
  // What a read returns: the items, or their count (`Select: COUNT`).
  compare("Select", params.Select, body.Select);
  // A query's order (`go({ order: "desc" })`): ascending unless said.
  compare("ScanIndexForward", params.ScanIndexForward ?? true, body.ScanIndexForward ?? true);
  // The identity test ElectroDB applies to each item a query reads (as it reads it, or in
  // the filter of a query on a multi-attribute index), and dynorm in the query's filter.
  // In a service's suite, the test is of any of its entities (a collection's query tests
  // each of its entities).
  const identity =
    operation === "Query"
      ? (example.suite.identities || [example.suite.identity]).flatMap(({ entity, version }) => [
          `__edb_e__ = value ${JSON.stringify({ S: entity })}`,
          `__edb_v__ = value ${JSON.stringify({ S: version })}`,
        ])
      : [];
  // An update that writes a path inside an attribute (`SET map.key`, `REMOVE list[0]`)
  // is refused by DynamoDB when the item is absent ("The document path provided in the
  // update expression is invalid for update"): it holds only of an item that exists,
  // with or without a test that says so.
  const exists = operation === "UpdateItem" && writesPath(params.UpdateExpression) ? ["the item exists"] : [];
  for (const field of ["ConditionExpression", "KeyConditionExpression", "FilterExpression"]) {
    const dropped = field === "ConditionExpression" ? [...identity, ...exists] : identity;
    compare(
      field,
      canonical(params[field], names, theirValues, keys, dropped),
      canonical(body[field], body.ExpressionAttributeNames || {}, body.ExpressionAttributeValues || {}, keys, dropped),
    );
  }
  return differences.length ? differences.join("; ") : null;
}

/** Whether an update expression writes a path inside an attribute: a target of its
 * `SET`, `REMOVE`, `ADD` or `DELETE` clauses with a map key or list index. */
function writesPath(expression) {
  if (!expression) return false;
  const clauses = expression.split(/\b(SET|REMOVE|ADD|DELETE)\b/i).slice(1);
  for (let i = 0; i < clauses.length; i += 2) {
    const keyword = clauses[i].toUpperCase();
    // The clause's actions, split at the commas outside parentheses.
    const actions = [];
    let depth = 0;
    let current = "";
    for (const ch of clauses[i + 1]) {
      if (ch === "(") depth++;
      if (ch === ")") depth--;
      if (ch === "," && depth === 0) {
        actions.push(current);
        current = "";
      } else current += ch;
    }
    actions.push(current);
    for (const action of actions) {
      const text = action.trim();
      const target = keyword === "SET" ? text.split("=")[0].trim() : text.split(/\s+/)[0];
      if (/[.[]/.test(target)) return true;
    }
  }
  return false;
}

/** Three characters of this run's own, for an idempotency token. */
const runSuffix = () => Math.floor(Math.random() * 36 ** 3).toString(36).padStart(3, "0");

/** The token dynorm sent with each transaction of an example whose documentation token is
 * `documented`, and how it differs from that token with a run's suffix (`-` and three
 * characters: DynamoDB takes 36 at most), if it does. */
function tokenDifference(documented, sent) {
  const tokens = [...new Set(sent.filter((r) => r.operation === "TransactWriteItems").map((r) => r.body.ClientRequestToken))];
  const escaped = documented.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const fits = tokens.length === 1 && new RegExp(`^${escaped}-[0-9a-z]{3}$`).test(tokens[0]);
  return {
    sent: tokens[0],
    difference: fits ? null : `ClientRequestToken: dynorm sent ${JSON.stringify(tokens)}, not the documentation's ${documented} with a run's suffix`,
  };
}

async function compare() {
  const dynorm = new Map(JSON.parse(fs.readFileSync(dynormPath, "utf8")).map((run) => [run.name, run]));
  const written = {};
  const rows = [];
  const unexpected = [];
  for (const example of examples) {
    const ours = dynorm.get(example.name);
    if (!ours) throw new Error(`dynorm did not run ${example.name}`);
    const table = tables[example.suite.name];
    if (!table) throw new Error(`no table for the suite ${example.suite.name}`);
    // An example may declare the entity as its own page does.
    const entity = (example.entity || example.suite.entity)(client, table);
    const keys = example.suite.TABLE.keys;
    let status;
    let note = "";
    if (example.refused) {
      // ElectroDB's own request fails: it throws before sending, or DynamoDB refuses it.
      await clear(table, keys);
      let failed = null;
      try {
        await example.run(entity).go();
      } catch (error) {
        failed = error;
      }
      if (!failed) unexpected.push(`${example.name}: declared refused, and ElectroDB's request succeeded`);
      if (!ours.unsaid) unexpected.push(`${example.name}: ElectroDB's request fails, and dynorm says it`);
      status = "refused";
      note = `${example.refused}; in dynorm, ${ours.unsaid}`;
    } else if (ours.unsaid) {
      status = "not said";
      note = ours.unsaid;
    } else {
      await clear(table, keys);
      for (const item of example.seed || []) await put(entity, table, item);
      const runs = example.runs || [example.run];
      // The example's options to `.go()`, as `{ order: "desc" }`. An idempotency token is
      // the documentation's with a suffix of the run's, dynorm's in the requests compared
      // and one of ElectroDB's own in the requests it sends (see `tokenDifference`).
      const token = example.token && tokenDifference(example.token, ours.requests);
      const go = example.token ? { ...example.go, token: token.sent } : example.go;
      const send = example.token ? { ...example.go, token: `${example.token}-${runSuffix()}` } : example.go;
      const params = runs.map((run) => run(entity).params(go));
      let rejected = false;
      let read = null;
      try {
        for (const [i, run] of runs.entries()) {
          const { data, rejected: refused } = await run(entity).go(send);
          // `returnOnConditionCheckFailure` returns a refusal instead of throwing it.
          if (refused) throw new Error("The conditional request failed");
          if (operationOf(example.name, params[i]) === "TransactGetItems") {
            // A transaction's reads: the items found.
            read = (read || 0) + data.filter((entry) => entry.item).length;
          } else if (/^(Query|Scan|GetItem|BatchGetItem)$/.test(Array.isArray(params[i]) ? (JSON.stringify(params[i]).includes('"Keys"') ? "BatchGetItem" : "") : operationOf(example.name, params[i]))) {
            // A collection's query returns the items of each of its entities.
            // `data: "raw"` is DynamoDB's response itself, which counts the items
            // without returning them with `Select: COUNT`.
            const count = example.go && example.go.data === "raw"
              ? (data.Items ? data.Items.length : data.Count)
              : Array.isArray(data)
              ? data.length
              : example.collection
                ? Object.values(data).reduce((n, items) => n + items.length, 0)
                : Number(Boolean(data));
            read = (read || 0) + count;
          }
        }
      } catch (error) {
        if (!/conditional/i.test(String(error.message))) {
          error.message = `${example.name}: ${error.message}${error.cause ? ` (${error.cause.message || error.cause})` : ""}`;
          throw error;
        }
        rejected = true;
      }
      const theirs = await scan(table);
      written[example.name] = theirs;
      const differences = token && token.difference ? [token.difference] : [];
      // Each request against dynorm's request of the same operation, in the same order.
      const operations = params.map((step, i) => (Array.isArray(step) ? "batch" : operationOf(example.name, step)));
      // A hydrated query reads the whole items by key after the index: both libraries
      // send a `BatchGetItem`, whose keys are the items the query found.
      if (example.go && example.go.hydrate) operations.push("BatchGetItem");
      for (const [i, step] of params.entries()) {
        const same = operations.filter((op) => op === operations[i]).length;
        const before = operations.slice(0, i).filter((op) => op === operations[i]).length;
        const request = requestDifference(example, step, ours.requests, keys, before, same, operations);
        if (request) differences.push(request);
      }
      if (read !== (ours.read ?? null)) {
        differences.push(`ElectroDB read ${read} items, dynorm ${ours.read}`);
      }
      if (rejected !== Boolean(ours.error)) {
        differences.push(`ElectroDB ${rejected ? "was refused" : "wrote"}, dynorm ${ours.error ? `failed (${ours.error})` : "wrote"}`);
      }
      // What the example says of the items it leaves.
      const expected = example.stored && example.stored(theirs);
      if (expected) unexpected.push(`${example.name}: ${expected}`);
      const stored = sortItems(ours.items);
      if (JSON.stringify(stored) !== JSON.stringify(theirs)) {
        const difference = `stored items: ElectroDB ${JSON.stringify(theirs)}, dynorm ${JSON.stringify(stored)}`;
        differences.push(difference);
        // What the table holds is never declared away: a request may differ, the data not.
        unexpected.push(`${example.name}: ${difference}`);
      }
      // ElectroDB reads dynorm's items as it reads its own.
      const ownRead = await readBack(entity, theirs);
      await clear(table, keys);
      for (const item of stored) await raw.send(new PutItemCommand({ TableName: table, Item: item }));
      const theirRead = await readBack(entity, stored);
      if (JSON.stringify(stable(ownRead)) !== JSON.stringify(stable(theirRead))) {
        const difference = `ElectroDB reads dynorm's items as ${JSON.stringify(theirRead)}, its own as ${JSON.stringify(ownRead)}`;
        differences.push(difference);
        unexpected.push(`${example.name}: ${difference}`);
      }
      status = differences.length ? "different" : "identical";
      note = differences.length ? example.differs || differences.join("; ") : "";
      if (differences.length && !example.differs) unexpected.push(`${example.name}: ${differences.join("; ")}`);
      if (!differences.length && example.differs) unexpected.push(`${example.name}: declared different, and is identical`);
    }
    rows.push(`| \`${example.name}\` | ${example.entityName || example.suite.entityName} | ${status} | ${note.replace(/\|/g, "\\|")} |`);
  }
  fs.writeFileSync(electrodbPath, JSON.stringify(written));
  for (const [name, why] of Object.entries(documented.notRun)) rows.push(`| \`${name}\` | | not run | ${why} |`);
  const counted = (status) => rows.filter((r) => r.includes(`| ${status} |`)).length;
  const total = documented.examples.length;
  const table_ = [
    `ElectroDB ${documented.electrodb}'s documentation has ${total} examples; the suite runs ${examples.length}. ` +
      `${counted("refused")} fail in ElectroDB itself (it throws, or DynamoDB refuses its request). ` +
      `Of the other ${total - counted("refused")}, ${counted("identical")} are identical ` +
      `(${Math.round((100 * counted("identical")) / (total - counted("refused")))}%), ` +
      `${counted("different")} different, ${counted("not said")} not said and ${counted("not run")} not run yet.`,
    "",
    "| example | entity | result | why |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
  fs.writeFileSync(resultsPath, table_);
  if (unexpected.length) throw new Error(`results not as declared:\n${unexpected.join("\n")}`);
  return { examples: examples.length, identical: counted("identical") };
}

run(compare);
