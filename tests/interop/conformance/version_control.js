// ElectroDB's version-control service ("versioncontrol"): issues and their comments, pull
// requests and their comments, repositories, subscriptions and users in one table, as its
// `version-control-*` examples declare them, with the collections `owned` (and within it
// `managed`), `issueReview`, `PRReview`, `activity`, `subscribers`, `conversations`,
// `inbox`, `alerts`, `overview` and `watching`, and the examples' requests. Where an
// attribute is set to `new Date().toISOString()` the suite writes `now()` (clock.js).
"use strict";

const { Entity, Service, CustomAttributeType } = require("electrodb");
const { now } = require("./clock.js");

const TABLE = { keys: ["pk", "sk"] };

// types.ts
const StatusTypes = ["Open", "Closed"];
/** A status as stored: its position. */
function toStatusCode(status) {
  for (const index in StatusTypes) {
    if (StatusTypes[index] === status) return `${index}`;
  }
}
/** A stored status code as the status it stands for. */
function toStatusString(code) {
  for (const index in StatusTypes) {
    if (`${index}` === code) return StatusTypes[index];
  }
}
const PullRequestTicket = "PullRequest";
const IssueTicket = "Issue";
const IsNotTicket = "";
const TicketTypes = [IssueTicket, PullRequestTicket, IsNotTicket];
const NotYetViewed = "#";
const RepositorySubscription = "#";

const licenses = [
  "afl-3.0",
  "apache-2.0",
  "artistic-2.0",
  "bsl-1.0",
  "bsd-2-clause",
  "bsd-3-clause",
  "bsd-3-clause-clear",
  "cc",
  "cc0-1.0",
  "cc-by-4.0",
  "cc-by-sa-4.0",
  "wtfpl",
  "ecl-2.0",
  "epl-1.0",
  "epl-2.0",
  "eupl-1.1",
  "agpl-3.0",
  "gpl",
  "gpl-2.0",
  "gpl-3.0",
  "lgpl",
  "lgpl-2.1",
  "lgpl-3.0",
  "isc",
  "lppl-1.3c",
  "ms-pl",
  "mit",
  "mpl-2.0",
  "osl-3.0",
  "postgresql",
  "ofl-1.1",
  "ncsa",
  "unlicense",
  "zlib",
];

const model = (entity) => ({ entity, service: "versioncontrol", version: "1" });
const string = { type: "string" };
const required = { type: "string", required: true };
const stringSet = { type: "set", items: "string" };
/** `createdAt`: the time of the put. */
const createdAt = { type: "string", set: () => now(), readOnly: true };
/** `updatedAt`: the time of every write. */
const updatedAt = { type: "string", watch: "*", set: () => now(), readOnly: true };
const status = { type: StatusTypes, default: "Open", set: (val) => toStatusCode(val), get: (val) => toStatusString(val) };
/** A comment's `replyViewed`: `#` until the reply is viewed. */
const replyViewed = {
  type: "string",
  default: NotYetViewed,
  get: (replyViewed) => {
    if (replyViewed !== NotYetViewed) {
      return replyViewed;
    }
  },
  set: (replyViewed) => {
    if (replyViewed === undefined) {
      return NotYetViewed;
    }
    return replyViewed;
  },
};
/** A subscription's `ticketNumber` and `ticketType`: `#` for a repository's. */
const subscriptionPart = {
  default: () => IsNotTicket,
  set: (value) => (value === IsNotTicket ? RepositorySubscription : value),
  get: (value) => (value === RepositorySubscription ? IsNotTicket : value),
};

function entity(client, table) {
  const issues = new Entity({
    model: model("issues"),
    attributes: {
      issueNumber: string,
      repoName: string,
      repoOwner: string,
      username: string,
      ticketType: { type: TicketTypes, set: () => IssueTicket, readOnly: true },
      ticketNumber: { type: "string", readOnly: true, watch: ["issueNumber"], set: (_, { issueNumber }) => issueNumber },
      status,
      subject: string,
      body: string,
      createdAt,
      updatedAt,
    },
    indexes: {
      issue: {
        collection: "issueReview",
        pk: { composite: ["repoOwner", "repoName", "issueNumber"], field: "pk" },
        sk: { composite: [], field: "sk" },
      },
      created: {
        collection: ["owned", "managed"],
        index: "gsi1pk-gsi1sk-index",
        pk: { field: "gsi1pk", composite: ["username"] },
        sk: { field: "gsi1sk", composite: ["status", "createdAt"] },
      },
      todos: {
        collection: "activity",
        index: "gsi2pk-gsi2sk-index",
        pk: { composite: ["repoOwner", "repoName"], field: "gsi2pk" },
        sk: { composite: ["status", "createdAt"], field: "gsi2sk" },
      },
      _: {
        collection: "subscribers",
        index: "gsi4pk-gsi4sk-index",
        pk: { composite: ["repoOwner", "repoName", "ticketNumber"], field: "gsi4pk" },
        sk: { composite: [], field: "gsi4sk" },
      },
    },
  });

  const issueComments = new Entity({
    model: model("issueComment"),
    attributes: {
      issueNumber: string,
      commentId: string,
      username: string,
      replyTo: string,
      replyViewed,
      repoName: string,
      repoOwner: string,
      body: string,
      createdAt,
      updatedAt,
    },
    indexes: {
      comments: {
        collection: "issueReview",
        pk: { composite: ["repoOwner", "repoName", "issueNumber"], field: "pk" },
        sk: { composite: ["commentId"], field: "sk" },
      },
      created: {
        collection: "conversations",
        index: "gsi1pk-gsi1sk-index",
        pk: { field: "gsi1pk", composite: ["username"] },
        sk: { field: "gsi1sk", composite: ["repoOwner", "repoName", "issueNumber"] },
      },
      replies: {
        collection: "inbox",
        index: "gsi2pk-gsi2sk-index",
        pk: { composite: ["replyTo"], field: "gsi2pk" },
        sk: { composite: ["updatedAt", "replyViewed"], field: "gsi2sk" },
      },
    },
  });

  const pullRequests = new Entity({
    model: model("pullRequest"),
    attributes: {
      pullRequestNumber: required,
      repoName: required,
      repoOwner: required,
      username: required,
      ticketType: { type: TicketTypes, default: () => PullRequestTicket, set: () => PullRequestTicket, readOnly: true },
      ticketNumber: {
        type: "string",
        readOnly: true,
        watch: ["pullRequestNumber"],
        set: (_, { pullRequestNumber }) => pullRequestNumber,
      },
      status,
      // `CustomAttributeType<PullRequestReviews>('any')`: reviewer name to
      // `{ approved, updatedAt }`.
      reviewers: { type: CustomAttributeType("any") },
      createdAt,
      updatedAt,
    },
    indexes: {
      pullRequest: {
        collection: "PRReview",
        pk: { composite: ["repoOwner", "repoName", "pullRequestNumber"], field: "pk" },
        sk: { composite: [], field: "sk" },
      },
      created: {
        collection: ["owned", "managed"],
        index: "gsi1pk-gsi1sk-index",
        pk: { field: "gsi1pk", composite: ["username"] },
        sk: { field: "gsi1sk", composite: ["status", "createdAt"] },
      },
      enhancements: {
        collection: "activity",
        index: "gsi2pk-gsi2sk-index",
        pk: { field: "gsi2pk", composite: ["repoOwner", "repoName"] },
        sk: { field: "gsi2sk", composite: ["status", "createdAt"] },
      },
      _: {
        collection: "subscribers",
        index: "gsi4pk-gsi4sk-index",
        pk: { composite: ["repoOwner", "repoName", "ticketNumber"], field: "gsi4pk" },
        sk: { composite: [], field: "gsi4sk" },
      },
    },
  });

  const pullRequestComments = new Entity({
    model: model("pullRequestComment"),
    attributes: {
      repoName: string,
      username: string,
      repoOwner: string,
      pullRequestNumber: string,
      commentId: string,
      replyTo: string,
      replyViewed,
      createdAt,
      updatedAt,
    },
    indexes: {
      comments: {
        collection: "PRReview",
        pk: { composite: ["repoOwner", "repoName", "pullRequestNumber"], field: "pk" },
        sk: { composite: ["commentId"], field: "sk" },
      },
      created: {
        collection: "conversations",
        index: "gsi1pk-gsi1sk-index",
        pk: { field: "gsi1pk", composite: ["username"] },
        sk: { field: "gsi1sk", composite: ["repoOwner", "repoName"] },
      },
      replies: {
        collection: "inbox",
        index: "gsi2pk-gsi2sk-index",
        pk: { composite: ["replyTo"], field: "gsi2pk" },
        sk: { composite: ["updatedAt", "replyViewed"], field: "gsi2sk" },
      },
    },
  });

  const repositories = new Entity({
    model: model("repositories"),
    attributes: {
      repoName: string,
      repoOwner: string,
      about: string,
      username: { type: "string", readOnly: true, watch: ["repoOwner"], set: (_, { repoOwner }) => repoOwner },
      description: string,
      isPrivate: { type: "boolean" },
      license: { type: licenses },
      defaultBranch: { type: "string", default: "main" },
      topics: stringSet,
      followers: stringSet,
      stars: stringSet,
      createdAt,
      updatedAt,
    },
    indexes: {
      repositories: {
        collection: "alerts",
        pk: { composite: ["repoOwner"], field: "pk" },
        sk: { composite: ["repoName"], field: "sk" },
      },
      created: {
        collection: "owned",
        index: "gsi1pk-gsi1sk-index",
        pk: { composite: ["username"], field: "gsi1pk" },
        sk: { composite: ["isPrivate", "createdAt"], field: "gsi1sk" },
      },
    },
  });

  const subscriptions = new Entity({
    model: model("subscription"),
    attributes: {
      repoName: required,
      repoOwner: required,
      username: required,
      ticketNumber: { type: "string", ...subscriptionPart },
      ticketType: { type: TicketTypes, ...subscriptionPart },
      createdAt,
      updatedAt,
    },
    indexes: {
      repository: {
        pk: { composite: ["repoOwner", "repoName"], field: "pk" },
        sk: { composite: ["username", "ticketType", "ticketNumber"], field: "sk" },
      },
      user: {
        collection: "watching",
        index: "gsi3pk-gsi3sk-index",
        pk: { composite: ["username"], field: "gsi3pk" },
        sk: { composite: ["ticketType", "ticketNumber"], field: "gsi3sk" },
      },
      tickets: {
        collection: "subscribers",
        index: "gsi4pk-gsi4sk-index",
        pk: { composite: ["repoOwner", "repoName", "ticketNumber"], field: "gsi4pk" },
        sk: { composite: ["ticketType", "username"], field: "gsi4sk" },
      },
    },
  });

  const users = new Entity({
    model: model("user"),
    attributes: {
      username: string,
      fullName: string,
      photo: string,
      bio: string,
      location: string,
      pinned: { type: "any" },
      following: stringSet,
      followers: stringSet,
      createdAt,
      updatedAt,
    },
    indexes: {
      user: {
        collection: "overview",
        pk: { composite: ["username"], field: "pk" },
        sk: { composite: [], field: "sk" },
      },
      _: {
        collection: "owned",
        index: "gsi1pk-gsi1sk-index",
        pk: { composite: ["username"], field: "gsi1pk" },
        sk: { field: "gsi1sk", composite: [] },
      },
      subscriptions: {
        collection: "watching",
        index: "gsi3pk-gsi3sk-index",
        pk: { composite: ["username"], field: "gsi3pk" },
        sk: { composite: [], field: "gsi3sk" },
      },
    },
  });

  return new Service(
    { users, issues, repositories, pullRequests, subscriptions, issueComments, pullRequestComments },
    { client, table },
  );
}

// The service's data: ElectroDB's repository, a fork of it and two more, with issues, pull
// requests, their comments and who follows them. Every item is written at `now()`.
const electrodb = { repoOwner: "tywalch", repoName: "electrodb" };
const seed = [
  [
    "users",
    {
      username: "tywalch",
      fullName: "Tyler Walch",
      photo: "https://example.com/tywalch.png",
      bio: "Writes ElectroDB.",
      location: "Atlanta",
      pinned: ["electrodb", "recipes"],
      following: ["sparky"],
      followers: ["sparky", "ann"],
    },
  ],
  ["users", { username: "sparky", fullName: "Sparky", bio: "Reviews pull requests.", following: ["tywalch"], followers: ["tywalch"] }],
  [
    "repositories",
    {
      ...electrodb,
      about: "A DynamoDB library",
      description: "Single-table design made simple",
      isPrivate: false,
      license: "mit",
      topics: ["dynamodb", "typescript"],
      followers: ["ann"],
      stars: ["ann", "sparky"],
    },
  ],
  ["repositories", { repoOwner: "tywalch", repoName: "notes", about: "Private notes", isPrivate: true, license: "apache-2.0" }],
  ["repositories", { repoOwner: "tywalch", repoName: "recipes", isPrivate: false, license: "unlicense", defaultBranch: "trunk" }],
  ["repositories", { repoOwner: "sparky", repoName: "electrodb", about: "A fork", isPrivate: false, license: "mit" }],
  ["issues", { ...electrodb, issueNumber: "287", username: "sparky", subject: "Keys fold case", body: "Why lower case?" }],
  ["issues", { ...electrodb, issueNumber: "301", username: "tywalch", status: "Closed", subject: "Docs", body: "Write them" }],
  ["issues", { ...electrodb, issueNumber: "302", username: "tywalch", subject: "Collections", body: "Sub-collections" }],
  ["issueComments", { ...electrodb, issueNumber: "287", commentId: "comment-001", username: "sparky", replyTo: "tywalch", body: "Any news?" }],
  [
    "issueComments",
    { ...electrodb, issueNumber: "287", commentId: "comment-002", username: "tywalch", replyTo: "sparky", replyViewed: "2024-04-30T09:00:00.000Z", body: "Soon" },
  ],
  ["issueComments", { ...electrodb, issueNumber: "301", commentId: "comment-003", username: "ann", replyTo: "tywalch", body: "Done?" }],
  [
    "pullRequests",
    {
      ...electrodb,
      pullRequestNumber: "414",
      username: "ann",
      reviewers: {
        sparky: { approved: false, updatedAt: "2024-04-29T10:00:00.000Z" },
        tywalch: { approved: true, updatedAt: "2024-04-30T11:00:00.000Z" },
      },
    },
  ],
  ["pullRequests", { ...electrodb, pullRequestNumber: "415", username: "tywalch" }],
  ["pullRequests", { ...electrodb, pullRequestNumber: "416", username: "tywalch", status: "Closed" }],
  ["pullRequestComments", { ...electrodb, pullRequestNumber: "414", commentId: "comment-101", username: "tywalch", replyTo: "ann" }],
  ["pullRequestComments", { ...electrodb, pullRequestNumber: "414", commentId: "comment-102", username: "sparky", replyTo: "tywalch" }],
  ["subscriptions", { ...electrodb, username: "sparky" }],
  ["subscriptions", { ...electrodb, username: "tywalch" }],
  ["subscriptions", { ...electrodb, username: "ann", ticketType: IssueTicket, ticketNumber: "287" }],
];

const q = (name, entityName, runs, more = {}) => ({ name, entityName, seed, runs, ...more });
/** A collection's example: its reads return the items of several entities. */
const c = (name, entityName, runs, more = {}) => q(name, entityName, runs, { ...more, collection: true });

// The functions the examples define, each returning its request before `.go()`; the
// example's options to `.go()` are its `go`.
const approvePullRequest = (repoOwner, repoName, pullRequestNumber, username) => (s) =>
  s.entities.pullRequests
    .patch({ repoOwner, repoName, pullRequestNumber })
    .data(({ reviewers }, { set }) => set(reviewers[username], { approved: true, updatedAt: now() }))
    .where(({ reviewers }, { exists }) => exists(reviewers[username]));
const getOwnedItems = (username) => (s) => s.collections.owned({ username });
const followRepository = (repoOwner, repoName, follower) => (s) =>
  s.entities.repositories.update({ repoOwner, repoName }).add({ followers: [follower] });
const reviewIssue = (issue) => (s) => s.collections.issueReview(issue);
const reviewPullRequest = (pr) => (s) => s.collections.PRReview(pr);
const getPublicRepository = (username) => (s) => s.entities.repositories.query.created({ username, isPrivate: false });
/** `markAsRead` of an issue's comment (the example's call is of one). */
const markAsRead = (user, comment) => (s) =>
  s.entities.issueComments
    .patch(comment)
    .set({ replyViewed: now() })
    .where(({ replyTo }, { eq }) => eq(replyTo, user));
const getSubscribed = (repoOwner, repoName, ticketNumber = IsNotTicket) => (s) =>
  s.collections.subscribers({ repoOwner, repoName, ticketNumber });
/** `getUnreadComments`: its two queries, of issues' comments and pull requests'. */
const getUnreadComments = (user, start, end) => {
  const first = { updatedAt: start, replyViewed: NotYetViewed };
  const last = { updatedAt: end, replyViewed: NotYetViewed };
  return [
    (s) => s.entities.issueComments.query.replies({ replyTo: user }).between(first, last),
    (s) => s.entities.pullRequestComments.query.replies({ replyTo: user }).between(first, last),
  ];
};
const getUserPullRequests = (username, status) => (s) => s.entities.pullRequests.query.created({ username, status });

const desc = { go: { order: "desc" } };
/** The collection reviews: read newest first (dynorm's `descending()`). */
const descCollection = desc;

const examples = [
  q("version-control-approve-pull-request", "pullRequest", [approvePullRequest("tywalch", "electrodb", "414", "sparky")], {
    go: { returnOnConditionCheckFailure: true },
  }),
  c("version-control-first-page-load", "issues, pullRequest, repositories, user", [getOwnedItems("tywalch")]),
  q("version-control-follow-repository", "repositories", [followRepository("tywalch", "electrodb", "sparky")]),
  c(
    "version-control-issue-review",
    "issues, issueComment",
    [reviewIssue({ repoOwner: "tywalch", repoName: "electrodb", issueNumber: "287" })],
    descCollection,
  ),
  c(
    "version-control-pr-review",
    "pullRequest, pullRequestComment",
    [reviewPullRequest({ repoOwner: "tywalch", repoName: "electrodb", pullRequestNumber: "414" })],
    descCollection,
  ),
  q("version-control-public-repositories", "repositories", [getPublicRepository("tywalch")]),
  q("version-control-read-reply", "issueComment", [
    markAsRead("tywalch", { repoOwner: "tywalch", repoName: "electrodb", issueNumber: "287", commentId: "comment-001", username: "sparky" }),
  ]),
  c("version-control-subscribers", "issues, pullRequest, subscription", [getSubscribed("tywalch", "electrodb")], {
    differs:
      "ElectroDB's query does not apply `ticketNumber`'s `set` to the key: it reads `ticketnumber_`, where it stores `ticketnumber_#`, and finds nothing; dynorm's applies it and finds the repository's subscribers",
  }),
  q("version-control-unread-comments", "issueComment, pullRequestComment", getUnreadComments("tywalch", "0000-00-00", "9999-99-99")),
  q("version-control-user-pull-requests", "pullRequest", [getUserPullRequests("tywalch", "Open")], {
    ...desc,
    differs:
      "ElectroDB's query does not apply `status`'s `set` to the key: it reads `status_open`, where it stores `status_0`, and finds nothing; dynorm's applies it and finds the open pull request",
  }),
];

const identities = ["issues", "issueComment", "pullRequest", "pullRequestComment", "repositories", "subscription", "user"].map(
  (entity) => ({ entity, version: "1" }),
);

module.exports = { entity, TABLE, identity: { entity: "versioncontrol", version: "1" }, identities, examples };
