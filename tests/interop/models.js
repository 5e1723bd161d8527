// The TypeScript side of the interop tests: the same entities as tests/interop.rs and
// tests/conventions.rs declare in Rust, defined with the real ElectroDB and
// DynamoDB-Toolbox. Packages come from NODE_PATH (CI installs them in .ci/cache).
"use strict";

const { Entity, Service } = require("electrodb");
const toolbox = require("dynamodb-toolbox");
const { DynamoDBClient } = require("@aws-sdk/client-dynamodb");
const { DynamoDBDocumentClient } = require("@aws-sdk/lib-dynamodb");

/** A DocumentClient for the endpoint, or an unconnected one for `.params()` only. */
function documentClient(endpoint) {
  const client = new DynamoDBClient({
    region: "us-east-1",
    endpoint: endpoint || "http://127.0.0.1:9",
    credentials: { accessKeyId: "dynorm", secretAccessKey: "local" },
  });
  return DynamoDBDocumentClient.from(client);
}

const iso = () => new Date().toISOString();

/**
 * The seed's teams design with its custom templates. `casing: "none"` keeps the seed's
 * physical keys (`TEAM#t_eng`); without it ElectroDB lowercases them.
 */
function teamsWithTemplates(client, table) {
  const Team = new Entity(
    {
      model: { entity: "team", version: "1", service: "app" },
      attributes: {
        teamId: { type: "string", required: true },
        name: { type: "string", required: true },
        createdAt: { type: "string", required: true, default: iso, readOnly: true },
        updatedAt: { type: "string", required: true, default: iso, set: iso, watch: "*" },
      },
      indexes: {
        primary: {
          collection: "teamWithMembers",
          pk: { field: "pk", composite: ["teamId"], template: "TEAM#${teamId}", casing: "none" },
          sk: { field: "sk", composite: [], template: "#METADATA", casing: "none" },
        },
      },
    },
    { client, table },
  );
  const User = new Entity(
    {
      model: { entity: "user", version: "1", service: "app" },
      attributes: {
        userId: { type: "string", required: true },
        name: { type: "string", required: true },
        email: { type: "string", required: true },
      },
      indexes: {
        primary: {
          pk: { field: "pk", composite: ["userId"], template: "USER#${userId}", casing: "none" },
          sk: { field: "sk", composite: [], template: "#METADATA", casing: "none" },
        },
      },
    },
    { client, table },
  );
  const Membership = new Entity(
    {
      model: { entity: "membership", version: "1", service: "app" },
      attributes: {
        teamId: { type: "string", required: true },
        userId: { type: "string", required: true },
        role: { type: ["owner", "admin", "member"], required: true },
        joinedAt: { type: "string", default: iso, readOnly: true },
      },
      indexes: {
        primary: {
          collection: "teamWithMembers",
          pk: { field: "pk", composite: ["teamId"], template: "TEAM#${teamId}", casing: "none" },
          sk: { field: "sk", composite: ["userId"], template: "MEMBER#${userId}", casing: "none" },
        },
        byUser: {
          index: "GSI1",
          pk: { field: "gsi1pk", composite: ["userId"], template: "USER#${userId}", casing: "none" },
          sk: { field: "gsi1sk", composite: ["teamId"], template: "TEAM#${teamId}", casing: "none" },
        },
      },
    },
    { client, table },
  );
  const service = new Service({ team: Team, membership: Membership });
  return { Team, User, Membership, service };
}

/** The same design with ElectroDB's default keys: built from service, entity, version. */
function teamsWithDefaultKeys(client, table) {
  const Team = new Entity(
    {
      model: { entity: "team", version: "1", service: "app" },
      attributes: {
        teamId: { type: "string", required: true },
        name: { type: "string", required: true },
      },
      indexes: {
        primary: {
          collection: "teamWithMembers",
          pk: { field: "pk", composite: ["teamId"] },
          sk: { field: "sk", composite: [] },
        },
      },
    },
    { client, table },
  );
  const Membership = new Entity(
    {
      model: { entity: "membership", version: "1", service: "app" },
      attributes: {
        teamId: { type: "string", required: true },
        userId: { type: "string", required: true },
        role: { type: ["owner", "admin", "member"], required: true },
        seats: { type: "number" },
      },
      indexes: {
        primary: {
          collection: "teamWithMembers",
          pk: { field: "pk", composite: ["teamId"] },
          sk: { field: "sk", composite: ["userId"] },
        },
        byUser: {
          index: "GSI1",
          pk: { field: "gsi1pk", composite: ["userId"] },
          sk: { field: "gsi1sk", composite: ["teamId", "role"] },
        },
      },
    },
    { client, table },
  );
  const service = new Service({ team: Team, membership: Membership });
  return { Team, Membership, service };
}

/** One DynamoDB-Toolbox entity with timestamps (`_et`, `_ct`, `_md`). */
function pokedex(client, name) {
  const table = new toolbox.Table({
    name,
    partitionKey: { name: "pk", type: "string" },
    sortKey: { name: "sk", type: "string" },
    documentClient: client,
  });
  const Pokemon = new toolbox.Entity({
    name: "POKEMON",
    table,
    schema: toolbox.item({
      pokemonId: toolbox.string().key(),
      name: toolbox.string(),
      level: toolbox.number(),
      types: toolbox.set(toolbox.string()).optional(),
    }),
    computeKey: ({ pokemonId }) => ({ pk: `POKEMON#${pokemonId}`, sk: "INFO" }),
    timestamps: true,
  });
  return { table, Pokemon };
}

/** ElectroDB's task manager: default keys of several attributes, optional key parts, an
 * attribute stored under another name (`field`), and a map with optional properties. */
function taskManager(client, table) {
  const Task = new Entity(
    {
      model: { entity: "task", version: "1", service: "taskapp" },
      attributes: {
        taskId: { type: "string", required: true },
        project: { type: "string", required: true },
        employee: { type: "string", required: true, field: "emp" },
        status: { type: "string" },
        details: {
          type: "map",
          properties: {
            estimate: { type: "number" },
            notes: { type: "string" },
            reviewer: { type: "map", properties: { name: { type: "string", required: true }, email: { type: "string" } } },
          },
        },
      },
      indexes: {
        primary: { pk: { field: "pk", composite: ["taskId"] }, sk: { field: "sk", composite: ["project", "employee"] } },
        byProject: {
          index: "GSI1",
          pk: { field: "gsi1pk", composite: ["project"] },
          sk: { field: "gsi1sk", composite: ["employee", "taskId"] },
        },
        byStatus: { index: "GSI2", pk: { field: "gsi2pk", composite: ["status"] }, sk: { field: "gsi2sk", composite: ["taskId"] } },
        assigned: {
          index: "GSI3",
          collection: "assignments",
          pk: { field: "gsi3pk", composite: ["employee"] },
          sk: { field: "gsi3sk", composite: ["project", "taskId"] },
        },
      },
    },
    { client, table },
  );
  const Employee = new Entity(
    {
      model: { entity: "employee", version: "1", service: "taskapp" },
      attributes: {
        // Stored as `emp`, as Task stores it: a collection's members must agree.
        employee: { type: "string", required: true, field: "emp" },
        name: { type: "string", required: true },
        office: { type: "string" },
      },
      indexes: {
        primary: { pk: { field: "pk", composite: ["employee"] }, sk: { field: "sk", composite: [] } },
        byOffice: { index: "GSI1", pk: { field: "gsi1pk", composite: ["office"] }, sk: { field: "gsi1sk", composite: ["employee"] } },
        assigned: {
          index: "GSI3",
          collection: "assignments",
          pk: { field: "gsi3pk", composite: ["employee"] },
          sk: { field: "gsi3sk", composite: [] },
        },
      },
    },
    { client, table },
  );
  const service = new Service({ task: Task, employee: Employee }, { client, table });
  return { Task, Employee, service };
}

/** DynamoDB-Toolbox entities beside `pokedex`'s Pokemon: a trainer with the default
 * timestamps and a nested map with optional fields, and a badge without timestamps. */
function trainers(table) {
  const Trainer = new toolbox.Entity({
    name: "TRAINER",
    table,
    schema: toolbox.item({
      trainerId: toolbox.string().key(),
      name: toolbox.string(),
      home: toolbox
        .map({
          town: toolbox.string(),
          gym: toolbox.string().optional(),
          rival: toolbox.map({ name: toolbox.string(), title: toolbox.string().optional() }).optional(),
        })
        .optional(),
    }),
    computeKey: ({ trainerId }) => ({ pk: `TRAINER#${trainerId}`, sk: "PROFILE" }),
  });
  const Badge = new toolbox.Entity({
    name: "BADGE",
    table,
    schema: toolbox.item({ badgeId: toolbox.string().key(), name: toolbox.string() }),
    computeKey: ({ badgeId }) => ({ pk: `BADGE#${badgeId}`, sk: "INFO" }),
    timestamps: false,
  });
  // A computed attribute (`link`, computed on a put from `leader`), a transformed one
  // (`transform`: stored upper case, read lower case), a literal default and a map whose
  // paths updates write.
  const Gym = new toolbox.Entity({
    name: "GYM",
    table,
    schema: toolbox.item({
      gymId: toolbox.string().key(),
      leader: toolbox.string(),
      leaderSlug: toolbox.string().link(({ leader }) => leader.toLowerCase()),
      city: toolbox.string().transform({ encode: (city) => city.toUpperCase(), decode: (city) => city.toLowerCase() }),
      badges: toolbox.number().default(8),
      address: toolbox.map({ street: toolbox.string(), number: toolbox.number() }),
    }),
    computeKey: ({ gymId }) => ({ pk: `GYM#${gymId}`, sk: "INFO" }),
    timestamps: false,
  });
  return { Trainer, Badge, Gym };
}

/**
 * A version-control service's repositories, with a boolean and an enum in a sort key
 * (`gsi1sk` holds `isprivate_false`), as ElectroDB's version-control example keys them.
 */
function repositories(client, table) {
  return new Entity(
    {
      model: { entity: "repositories", service: "versioncontrol", version: "1" },
      attributes: {
        repoOwner: { type: "string", required: true },
        repoName: { type: "string", required: true },
        isPrivate: { type: "boolean", required: true },
        license: { type: ["mit", "apache-2.0", "unlicense"], required: true },
        defaultBranch: { type: "string", default: "main" },
      },
      indexes: {
        repositories: {
          collection: "alerts",
          pk: { field: "pk", composite: ["repoOwner"] },
          sk: { field: "sk", composite: ["repoName"] },
        },
        created: {
          collection: "owned",
          index: "gsi1pk-gsi1sk-index",
          pk: { field: "gsi1pk", composite: ["repoOwner"] },
          sk: { field: "gsi1sk", composite: ["isPrivate", "license", "repoName"] },
        },
      },
    },
    { client, table },
  );
}

/**
 * ElectroDB's sub-collections: a user's repositories are `owned`; their issues and pull
 * requests are `owned`, and within it `managed` (`collection: ["owned", "managed"]`).
 */
function subCollections(client, table) {
  const entity = (name, collection) =>
    new Entity(
      {
        model: { entity: name, service: "versioncontrol", version: "1" },
        attributes: {
          username: { type: "string", required: true },
          id: { type: "string", required: true },
          status: { type: "string", required: true },
        },
        indexes: {
          record: { pk: { field: "pk", composite: ["id"] }, sk: { field: "sk", composite: [] } },
          owned: {
            collection,
            index: "gsi1pk-gsi1sk-index",
            pk: { field: "gsi1pk", composite: ["username"] },
            sk: { field: "gsi1sk", composite: ["status", "id"] },
          },
        },
      },
      { client, table },
    );
  const repository = entity("repository", "owned");
  const issue = entity("issue", ["owned", "managed"]);
  const pullRequest = entity("pullRequest", ["owned", "managed"]);
  return { repository, issue, pullRequest, service: new Service({ repository, issue, pullRequest }) };
}

/** ElectroDB's version-control status codes: a status is stored as its position. */
const STATUSES = ["Open", "Closed"];
/** ElectroDB's version-control marker of a reply nobody has viewed yet. */
const NOT_YET_VIEWED = "#";

/**
 * The version-control service's issues, with attributes ElectroDB computes: `ticketNumber`
 * follows `issueNumber` (`watch`), `status` is stored as a code (`set`, `get`) and is part
 * of an index's sort key, `replyViewed` stores a marker for "not viewed yet", and
 * `ticketType` is always `Issue`. Written from ElectroDB's version-control example.
 */
function tickets(client, table) {
  return new Entity(
    {
      model: { entity: "issues", service: "versioncontrol", version: "1" },
      attributes: {
        issueNumber: { type: "string", required: true },
        repoName: { type: "string", required: true },
        repoOwner: { type: "string", required: true },
        username: { type: "string", required: true },
        ticketType: { type: "string", set: () => "Issue", readOnly: true },
        ticketNumber: {
          type: "string",
          readOnly: true,
          watch: ["issueNumber"],
          set: (_, { issueNumber }) => issueNumber,
        },
        status: {
          type: STATUSES,
          default: "Open",
          set: (status) => {
            const index = STATUSES.indexOf(status);
            return index < 0 ? undefined : `${index}`;
          },
          get: (code) => STATUSES[Number(code)],
        },
        replyViewed: {
          type: "string",
          get: (viewed) => (viewed === NOT_YET_VIEWED ? undefined : viewed),
          set: (viewed) => (viewed === undefined ? NOT_YET_VIEWED : viewed),
        },
        subject: { type: "string", required: true },
      },
      indexes: {
        issue: {
          collection: "issueReview",
          pk: { field: "pk", composite: ["repoOwner", "repoName", "issueNumber"] },
          sk: { field: "sk", composite: [] },
        },
        todos: {
          collection: "activity",
          index: "gsi2pk-gsi2sk-index",
          pk: { field: "gsi2pk", composite: ["repoOwner", "repoName"] },
          sk: { field: "gsi2sk", composite: ["status", "issueNumber"] },
        },
        subscribers: {
          collection: "subscribers",
          index: "gsi4pk-gsi4sk-index",
          pk: { field: "gsi4pk", composite: ["repoOwner", "repoName", "ticketNumber"] },
          sk: { field: "gsi4sk", composite: [] },
        },
      },
    },
    { client, table },
  );
}

module.exports = {
  documentClient,
  teamsWithTemplates,
  teamsWithDefaultKeys,
  taskManager,
  pokedex,
  trainers,
  toolbox,
  repositories,
  subCollections,
  tickets,
};
