// Writes fixtures.json: the items ElectroDB and DynamoDB-Toolbox put for fixed inputs,
// as DynamoDB attribute values. tests/conventions.rs checks that dynorm writes the same.
// CI runs this and fails if the committed file differs.
//
//   NODE_PATH=.ci/cache/node_modules node tests/interop/fixtures.js > tests/interop/fixtures.json
"use strict";

const { marshall } = require("@aws-sdk/util-dynamodb");
const models = require("./models.js");

const client = models.documentClient();
const templates = models.teamsWithTemplates(client, "TeamsTemplates");
const defaults = models.teamsWithDefaultKeys(client, "TeamsDefaults");
const { table: pokedex, Pokemon } = models.pokedex(client, "Pokedex");
const tasks = models.taskManager(client, "TaskManager");
const { Trainer, Badge } = models.trainers(pokedex);
const repositories = models.repositories(client, "VersionControl");
const owned = models.subCollections(client, "Owned");
const tickets = models.tickets(client, "Tickets");
/** The partition and range key values of a query's key condition, as ElectroDB sends them. */
const keyCondition = ({ ExpressionAttributeValues: values }) => ({ pk: values[":pk"], sk: values[":sk1"] });

const at = "2026-12-01T03:41:50.258Z";
const electro = (entity, input) => entity.put(input).params().Item;
const fixtures = {
  templates_team: electro(templates.Team, { teamId: "t_eng", name: "Engineering", createdAt: at }),
  templates_user: electro(templates.User, { userId: "u_alice", name: "Alice Chen", email: "alice@example.com" }),
  templates_membership: electro(templates.Membership, { teamId: "t_eng", userId: "u_alice", role: "owner", joinedAt: at }),
  defaults_team: electro(defaults.Team, { teamId: "T_Eng", name: "Engineering" }),
  defaults_membership: electro(defaults.Membership, { teamId: "T_Eng", userId: "U_Alice", role: "owner", seats: 3 }),
  defaults_membership_no_seats: electro(defaults.Membership, { teamId: "t_design", userId: "u_bob", role: "member" }),
  toolbox_pokemon: Pokemon.build(models.toolbox.PutItemCommand)
    .item({ pokemonId: "pikachu", name: "Pikachu", level: 12, types: new Set(["electric"]) })
    .params().Item,
  tasks_task: electro(tasks.Task, {
    taskId: "T#1",
    project: "Core#API",
    employee: "Ann",
    details: { estimate: 3, reviewer: { name: "Bo" } },
  }),
  tasks_task_with_status: electro(tasks.Task, { taskId: "t2", project: "core", employee: "Ann", status: "Open" }),
  tasks_employee: electro(tasks.Employee, { employee: "Ann", name: "Ann Lee" }),
  toolbox_trainer: Trainer.build(models.toolbox.PutItemCommand)
    .item({ trainerId: "ash", name: "Ash", home: { town: "Pallet", rival: { name: "Gary" } } })
    .params().Item,
  toolbox_badge: Badge.build(models.toolbox.PutItemCommand).item({ badgeId: "boulder", name: "Boulder" }).params().Item,
  repositories_public: electro(repositories, { repoOwner: "tywalch", repoName: "ElectroDB", isPrivate: false, license: "mit" }),
  repositories_private: electro(repositories, {
    repoOwner: "tywalch",
    repoName: "Secret",
    isPrivate: true,
    license: "apache-2.0",
    defaultBranch: "trunk",
  }),
  // The key condition of a query on the leading parts of `gsi1sk`, as ElectroDB sends it.
  repositories_public_query: keyCondition(repositories.query.created({ repoOwner: "tywalch", isPrivate: false }).params()),
  owned_repository: electro(owned.repository, { username: "ann", id: "r1", status: "open" }),
  owned_issue: electro(owned.issue, { username: "ann", id: "i1", status: "open" }),
  owned_pull_request: electro(owned.pullRequest, { username: "ann", id: "p1", status: "merged" }),
  // The sub-collections' queries: `owned` reads all three entities, `managed` two.
  owned_collection_query: keyCondition(owned.service.collections.owned({ username: "ann" }).params()),
  managed_collection_query: keyCondition(owned.service.collections.managed({ username: "ann" }).params()),
  // Attributes ElectroDB computes (`watch`) and transforms (`set`), in keys too.
  tickets_issue: electro(tickets, {
    repoOwner: "tywalch",
    repoName: "electrodb",
    issueNumber: "42",
    username: "ann",
    ticketType: "Anything",
    ticketNumber: "ignored",
    subject: "Keys fold case",
  }),
  tickets_issue_closed: electro(tickets, {
    repoOwner: "tywalch",
    repoName: "electrodb",
    issueNumber: "43",
    username: "bo",
    status: "Closed",
    replyViewed: "bo",
    subject: "Sub-collections",
  }),
  // An update of the status: ElectroDB sets its code and rebuilds `gsi2sk` from it.
  tickets_close: tickets.patch({ repoOwner: "tywalch", repoName: "electrodb", issueNumber: "42" })
    .set({ status: "Closed" })
    .params(),
};

// Set by the library to the time of writing: the same text, "<now>", on both sides.
const NOW = ["updatedAt", "_ct", "_md"];
const lines = Object.entries(fixtures).map(([name, item]) => {
  const attributes = marshall(item, { removeUndefinedValues: true });
  for (const attribute of NOW) {
    if (attribute in attributes) attributes[attribute] = { S: "<now>" };
  }
  const sorted = Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1)));
  return `  ${JSON.stringify(name)}: ${JSON.stringify(sorted)}`;
});
process.stdout.write(`{\n${lines.join(",\n")}\n}\n`);
