//! A stateful, model-based property test of ElectroDB's list keys: random sequences of
//! every write path over three entities of one table, checked after each step against an
//! in-memory oracle through every read path.
//!
//! The entities are ElectroDB's version-control service, declared with list keys:
//! - a repository, in the collection `owned` of its owner;
//! - an issue and a pull request, in `owned` and, within it, the sub-collection `managed`;
//! - an issue's `ticket` is one part of its composite table key (`pk = [repo]`,
//!   `sk = [ticket]`) and `#[unique]` across the table: no two repositories hold the same
//!   ticket;
//! - the status, a unit enum, is a part of each sort key of `gsi1`.
//!
//! The writes: `create`, `put`, `update`, `upsert`, `delete` of issues; `insert_many` of
//! issues; `put`, `update`, `delete` of repositories and pull requests; batch writes of
//! repositories and pull requests (a model with a unique attribute has no batch write: a
//! compile error); write transactions mixing creates, updates and deletes of issues with
//! puts of repositories.
//!
//! After every step:
//! 1. the table's items, decoded by their entity, are exactly the oracle's;
//! 2. each held ticket has exactly one guard, which names its issue, and no guard guards
//!    nothing (`common::guards::check_guards`);
//! 3. `get` of every key, `get_many` of every issue key and `transact_get` give the
//!    oracle's items;
//! 4. the collection `owned` and the sub-collection `managed` of each owner give the
//!    owner's items, each of its entities;
//! 5. `range()` on a list key gives what its fields select: the issues of an owner in a
//!    status (`gsi1sk = [status, ticket]`), and a repository's tickets between two, or
//!    beginning with a prefix (`sk = [ticket]`);
//! 6. `get_unique` by each held ticket gives its issue, and by a free one nothing.
//!
//! Few values, so that steps collide. A fixed seed and number of cases
//! (`common::sequences`).

mod common;

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;

use dynorm::types::AttributeValue;
use dynorm::{Client, Collection, Error, ErrorKind, Item, Model};
use futures::FutureExt;
use proptest::prelude::*;
use proptest::sample::select;

const CASES: u32 = 16;
const MAX_STEPS: usize = 16;
const SEED: u64 = 0x5EED_0034;

const OWNERS: [&str; 2] = ["ann", "bob"];
const REPOS: [&str; 2] = ["r1", "r2"];
const TICKETS: [&str; 3] = ["t1", "t2", "t3"];
const NUMBERS: [&str; 2] = ["p1", "p2"];
const TITLES: [&str; 2] = ["First", "Second"];

/// A status: a unit enum, rendered in the keys as ElectroDB renders its enums.
#[derive(dynorm::Value, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    #[dynorm(rename = "open")]
    Open,
    #[dynorm(rename = "closed")]
    Closed,
}

const STATUSES: [Status; 2] = [Status::Open, Status::Closed];

/// A repository, in its owner's `owned` collection.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "ListKeys", entity = "repository", rename_all = "camelCase")]
#[dynorm(
    convention = "electrodb",
    service = "versioncontrol",
    entity_version = "1"
)]
#[key(pk = [owner], sk = [name])]
#[key(
    index = "gsi1pk-gsi1sk-index",
    gsi1pk = [owner],
    gsi1sk = [status, name],
    collection = "owned"
)]
struct Repository {
    owner: String,
    name: String,
    status: Status,
    stars: u32,
}

/// An issue: its ticket is part of the table key and unique across the table.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "ListKeys", entity = "issue", rename_all = "camelCase")]
#[dynorm(
    convention = "electrodb",
    service = "versioncontrol",
    entity_version = "1"
)]
#[dynorm(unique_name = "Issue")]
#[key(pk = [repo], sk = [ticket])]
#[key(
    index = "gsi1pk-gsi1sk-index",
    gsi1pk = [owner],
    gsi1sk = [status, ticket],
    collection = ["owned", "managed"]
)]
struct Issue {
    repo: String,
    #[unique]
    ticket: String,
    owner: String,
    status: Status,
    title: String,
}

/// A pull request, in `owned` and `managed` as issues are.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "ListKeys", entity = "pullRequest", rename_all = "camelCase")]
#[dynorm(
    convention = "electrodb",
    service = "versioncontrol",
    entity_version = "1"
)]
#[key(pk = [repo], sk = [number])]
#[key(
    index = "gsi1pk-gsi1sk-index",
    gsi1pk = [owner],
    gsi1sk = [status, number],
    collection = ["owned", "managed"]
)]
struct PullRequest {
    repo: String,
    number: String,
    owner: String,
    status: Status,
}

dynorm::shared_table!(struct ListKeys { Repository, Issue, PullRequest });

/// Everything an owner owns.
#[derive(Collection, Debug)]
#[dynorm(index = "gsi1pk-gsi1sk-index")]
enum Owned {
    Repository(Repository),
    Issue(Issue),
    PullRequest(PullRequest),
}

/// What an owner manages: the sub-collection of `owned` holding issues and pull requests.
#[derive(Collection, Debug)]
#[dynorm(index = "gsi1pk-gsi1sk-index")]
enum Managed {
    Issue(Issue),
    PullRequest(PullRequest),
}

// ---------------------------------------------------------------------------------------
// The steps.
// ---------------------------------------------------------------------------------------

/// The key and fields of an issue a step writes.
#[derive(Clone, Debug)]
struct IssueRow {
    repo: &'static str,
    ticket: &'static str,
    owner: &'static str,
    status: Status,
}

impl IssueRow {
    fn issue(&self, title: &str) -> Issue {
        Issue {
            repo: self.repo.into(),
            ticket: self.ticket.into(),
            owner: self.owner.into(),
            status: self.status,
            title: title.into(),
        }
    }
}

/// How an update that moves a list key knows the key's other sources.
#[derive(Clone, Copy, Debug)]
enum Src {
    /// `.composite(owner, ..)` with the stored owner.
    Named,
    /// `.composite(owner, ..)` with another owner: refused by the update's condition.
    Stale,
    /// `.read_composite(true)`: read from the stored item.
    Read,
}

#[derive(Clone, Debug)]
enum BatchOp {
    PutRepo(&'static str, &'static str, Status),
    DeleteRepo(&'static str, &'static str),
    PutPull(&'static str, &'static str, &'static str, Status),
    DeletePull(&'static str, &'static str),
}

#[derive(Clone, Debug)]
enum TxOp {
    CreateIssue(IssueRow),
    SetStatus(&'static str, &'static str, Status),
    DeleteIssue(&'static str, &'static str),
    PutRepo(&'static str, &'static str, Status),
}

#[derive(Clone, Debug)]
enum Op {
    CreateIssue(IssueRow),
    PutIssue(IssueRow),
    /// Sets the status, the title, or both, of an issue. A new status moves the issue's
    /// `gsi1` keys, whose other source, the owner, the update names (`Src`).
    UpdateIssue(
        &'static str,
        &'static str,
        Option<Status>,
        Option<&'static str>,
        Src,
    ),
    UpsertIssue(IssueRow),
    DeleteIssue(&'static str, &'static str),
    InsertIssues(Vec<IssueRow>),
    PutRepo(&'static str, &'static str, Status),
    UpdateRepo(&'static str, &'static str, Status),
    DeleteRepo(&'static str, &'static str),
    PutPull(&'static str, &'static str, &'static str, Status),
    DeletePull(&'static str, &'static str),
    Batch(Vec<BatchOp>),
    Transaction(Vec<TxOp>),
}

fn status() -> impl Strategy<Value = Status> {
    select(&STATUSES[..])
}

fn issue_row() -> impl Strategy<Value = IssueRow> {
    (
        select(&REPOS[..]),
        select(&TICKETS[..]),
        select(&OWNERS[..]),
        status(),
    )
        .prop_map(|(repo, ticket, owner, status)| IssueRow {
            repo,
            ticket,
            owner,
            status,
        })
}

fn batch_op() -> impl Strategy<Value = BatchOp> {
    prop_oneof![
        (select(&OWNERS[..]), select(&REPOS[..]), status())
            .prop_map(|(o, n, s)| BatchOp::PutRepo(o, n, s)),
        (select(&OWNERS[..]), select(&REPOS[..])).prop_map(|(o, n)| BatchOp::DeleteRepo(o, n)),
        (
            select(&REPOS[..]),
            select(&NUMBERS[..]),
            select(&OWNERS[..]),
            status()
        )
            .prop_map(|(r, n, o, s)| BatchOp::PutPull(r, n, o, s)),
        (select(&REPOS[..]), select(&NUMBERS[..])).prop_map(|(r, n)| BatchOp::DeletePull(r, n)),
    ]
}

fn tx_op() -> impl Strategy<Value = TxOp> {
    prop_oneof![
        issue_row().prop_map(TxOp::CreateIssue),
        (select(&REPOS[..]), select(&TICKETS[..]), status())
            .prop_map(|(r, t, s)| TxOp::SetStatus(r, t, s)),
        (select(&REPOS[..]), select(&TICKETS[..])).prop_map(|(r, t)| TxOp::DeleteIssue(r, t)),
        (select(&OWNERS[..]), select(&REPOS[..]), status())
            .prop_map(|(o, n, s)| TxOp::PutRepo(o, n, s)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let key = || (select(&REPOS[..]), select(&TICKETS[..]));
    prop_oneof![
        4 => issue_row().prop_map(Op::CreateIssue),
        2 => issue_row().prop_map(Op::PutIssue),
        3 => (
            key(),
            proptest::option::of(status()),
            proptest::option::of(select(&TITLES[..])),
            prop_oneof![3 => Just(Src::Named), 1 => Just(Src::Stale), 2 => Just(Src::Read)],
        )
            .prop_filter("an update sets something", |(_, s, t, _)| s.is_some() || t.is_some())
            .prop_map(|((r, t), s, title, src)| Op::UpdateIssue(r, t, s, title, src)),
        2 => issue_row().prop_map(Op::UpsertIssue),
        2 => key().prop_map(|(r, t)| Op::DeleteIssue(r, t)),
        1 => proptest::collection::vec(issue_row(), 1..=3).prop_map(Op::InsertIssues),
        2 => (select(&OWNERS[..]), select(&REPOS[..]), status())
            .prop_map(|(o, n, s)| Op::PutRepo(o, n, s)),
        1 => (select(&OWNERS[..]), select(&REPOS[..]), status())
            .prop_map(|(o, n, s)| Op::UpdateRepo(o, n, s)),
        1 => (select(&OWNERS[..]), select(&REPOS[..])).prop_map(|(o, n)| Op::DeleteRepo(o, n)),
        2 => (select(&REPOS[..]), select(&NUMBERS[..]), select(&OWNERS[..]), status())
            .prop_map(|(r, n, o, s)| Op::PutPull(r, n, o, s)),
        1 => (select(&REPOS[..]), select(&NUMBERS[..])).prop_map(|(r, n)| Op::DeletePull(r, n)),
        1 => proptest::collection::vec(batch_op(), 1..=3).prop_map(Op::Batch),
        2 => proptest::collection::vec(tx_op(), 1..=3).prop_map(Op::Transaction),
    ]
}

// ---------------------------------------------------------------------------------------
// The oracle.
// ---------------------------------------------------------------------------------------

type Key = (String, String);

/// The items the table should hold, by entity and key.
#[derive(Clone, Debug, Default, PartialEq)]
struct World {
    repos: BTreeMap<Key, Repository>,
    issues: BTreeMap<Key, Issue>,
    pulls: BTreeMap<Key, PullRequest>,
}

fn key(a: &str, b: &str) -> Key {
    (a.into(), b.into())
}

fn repository(owner: &str, name: &str, status: Status) -> Repository {
    Repository {
        owner: owner.into(),
        name: name.into(),
        status,
        stars: 0,
    }
}

fn pull(repo: &str, number: &str, owner: &str, status: Status) -> PullRequest {
    PullRequest {
        repo: repo.into(),
        number: number.into(),
        owner: owner.into(),
        status,
    }
}

impl World {
    /// Whether an issue other than the one at `key` holds `ticket`.
    fn ticket_held_elsewhere(&self, at: &Key, ticket: &str) -> bool {
        self.issues
            .iter()
            .any(|(k, issue)| k != at && issue.ticket == ticket)
    }

    /// `issue` written over this world: the world after it, or the unique conflict.
    fn write_issue(&self, issue: Issue) -> Expect {
        let at = key(&issue.repo, &issue.ticket);
        if self.ticket_held_elsewhere(&at, &issue.ticket) {
            return Expect::Err(vec![ErrorKind::UniqueConflict]);
        }
        let mut next = self.clone();
        next.issues.insert(at, issue);
        Expect::Ok(next)
    }
}

/// What a step should do: leave this world, or fail with one of these kinds.
enum Expect {
    Ok(World),
    Err(Vec<ErrorKind>),
}

/// The key of the item a transaction's operation writes, with its entity.
fn tx_target(op: &TxOp) -> (&'static str, Key) {
    match op {
        TxOp::CreateIssue(row) => ("issue", key(row.repo, row.ticket)),
        TxOp::SetStatus(repo, ticket, _) | TxOp::DeleteIssue(repo, ticket) => {
            ("issue", key(repo, ticket))
        }
        TxOp::PutRepo(owner, name, _) => ("repository", key(owner, name)),
    }
}

fn batch_target(op: &BatchOp) -> (&'static str, Key) {
    match op {
        BatchOp::PutRepo(owner, name, _) | BatchOp::DeleteRepo(owner, name) => {
            ("repository", key(owner, name))
        }
        BatchOp::PutPull(repo, number, ..) | BatchOp::DeletePull(repo, number) => {
            ("pullRequest", key(repo, number))
        }
    }
}

fn twice<T: PartialEq>(targets: &[T]) -> bool {
    (1..targets.len()).any(|i| targets[..i].contains(&targets[i]))
}

/// A transaction, or `insert_many`'s one transaction: all or nothing.
fn expect_all(world: &World, ops: &[TxOp], title: &str) -> Expect {
    let targets: Vec<_> = ops.iter().map(tx_target).collect();
    if twice(&targets) {
        // The same item twice: refused before sending.
        return Expect::Err(vec![ErrorKind::Validation]);
    }
    let mut next = world.clone();
    let mut failed = false;
    let mut claims = Vec::new();
    for op in ops {
        match op {
            TxOp::CreateIssue(row) => {
                let at = key(row.repo, row.ticket);
                failed |= world.issues.contains_key(&at);
                claims.push(row.ticket);
                next.issues.insert(at, row.issue(title));
            }
            TxOp::SetStatus(repo, ticket, status) => {
                match next.issues.get_mut(&key(repo, ticket)) {
                    Some(issue) => issue.status = *status,
                    None => failed = true,
                }
            }
            TxOp::DeleteIssue(repo, ticket) => {
                next.issues.remove(&key(repo, ticket));
            }
            TxOp::PutRepo(owner, name, status) => {
                next.repos
                    .insert(key(owner, name), repository(owner, name, *status));
            }
        }
    }
    let clash = next
        .issues
        .iter()
        .any(|(k, issue)| next.ticket_held_elsewhere(k, &issue.ticket));
    let mut kinds = Vec::new();
    if failed {
        kinds.push(ErrorKind::TransactionCanceled);
    }
    if twice(&claims) {
        kinds.push(ErrorKind::Validation);
    }
    if clash {
        kinds.push(ErrorKind::UniqueConflict);
    }
    if kinds.is_empty() {
        Expect::Ok(next)
    } else {
        // When two things fail, DynamoDB may report either.
        kinds.extend([ErrorKind::UniqueConflict, ErrorKind::TransactionCanceled]);
        Expect::Err(kinds)
    }
}

fn expect(world: &World, op: &Op) -> Expect {
    let mut next = world.clone();
    match op {
        Op::CreateIssue(row) => {
            if world.issues.contains_key(&key(row.repo, row.ticket)) {
                // The issue holds its ticket's guard itself: either check may fail first.
                return Expect::Err(vec![ErrorKind::AlreadyExists, ErrorKind::UniqueConflict]);
            }
            world.write_issue(row.issue("created"))
        }
        Op::PutIssue(row) => world.write_issue(row.issue("put")),
        Op::UpdateIssue(repo, ticket, status, title, src) => {
            let Some(mut issue) = world.issues.get(&key(repo, ticket)).cloned() else {
                return Expect::Err(vec![ErrorKind::NotFound, ErrorKind::ConditionFailed]);
            };
            if status.is_some() && matches!(src, Src::Stale) {
                return Expect::Err(vec![ErrorKind::ConditionFailed]);
            }
            if let Some(status) = status {
                issue.status = *status;
            }
            if let Some(title) = title {
                issue.title = (*title).into();
            }
            world.write_issue(issue)
        }
        Op::UpsertIssue(row) => world.write_issue(row.issue("upserted")),
        Op::DeleteIssue(repo, ticket) => {
            next.issues.remove(&key(repo, ticket));
            Expect::Ok(next)
        }
        Op::InsertIssues(rows) => {
            let ops: Vec<TxOp> = rows.iter().cloned().map(TxOp::CreateIssue).collect();
            expect_all(world, &ops, "inserted")
        }
        Op::PutRepo(owner, name, status) => {
            next.repos
                .insert(key(owner, name), repository(owner, name, *status));
            Expect::Ok(next)
        }
        Op::UpdateRepo(owner, name, status) => match next.repos.get_mut(&key(owner, name)) {
            Some(repo) => {
                repo.status = *status;
                repo.stars += 1;
                Expect::Ok(next)
            }
            None => Expect::Err(vec![ErrorKind::NotFound]),
        },
        Op::DeleteRepo(owner, name) => {
            next.repos.remove(&key(owner, name));
            Expect::Ok(next)
        }
        Op::PutPull(repo, number, owner, status) => {
            next.pulls
                .insert(key(repo, number), pull(repo, number, owner, *status));
            Expect::Ok(next)
        }
        Op::DeletePull(repo, number) => {
            next.pulls.remove(&key(repo, number));
            Expect::Ok(next)
        }
        Op::Batch(ops) => {
            if twice(&ops.iter().map(batch_target).collect::<Vec<_>>()) {
                return Expect::Err(vec![ErrorKind::Validation]);
            }
            for op in ops {
                match op {
                    BatchOp::PutRepo(owner, name, status) => {
                        next.repos
                            .insert(key(owner, name), repository(owner, name, *status));
                    }
                    BatchOp::DeleteRepo(owner, name) => {
                        next.repos.remove(&key(owner, name));
                    }
                    BatchOp::PutPull(repo, number, owner, status) => {
                        next.pulls
                            .insert(key(repo, number), pull(repo, number, owner, *status));
                    }
                    BatchOp::DeletePull(repo, number) => {
                        next.pulls.remove(&key(repo, number));
                    }
                }
            }
            Expect::Ok(next)
        }
        Op::Transaction(ops) => expect_all(world, ops, "created"),
    }
}

// ---------------------------------------------------------------------------------------
// The writes.
// ---------------------------------------------------------------------------------------

fn issue_key(repo: &str, ticket: &str) -> IssueKey {
    IssueKey {
        repo: repo.into(),
        ticket: ticket.into(),
    }
}

fn repo_key(owner: &str, name: &str) -> RepositoryKey {
    RepositoryKey {
        owner: owner.into(),
        name: name.into(),
    }
}

fn pull_key(repo: &str, number: &str) -> PullRequestKey {
    PullRequestKey {
        repo: repo.into(),
        number: number.into(),
    }
}

/// The owner an update names for the issue at `repo`, `ticket`: the stored one, or the
/// other owner when `stale` (any owner for an issue that does not exist).
fn owner_of(world: &World, repo: &str, ticket: &str, stale: bool) -> &'static str {
    let stored = world
        .issues
        .get(&key(repo, ticket))
        .map_or(0, |i| usize::from(i.owner != OWNERS[0]));
    OWNERS[if stale { 1 - stored } else { stored }]
}

async fn write(db: &Client, world: &World, op: &Op) -> Result<(), Error> {
    match op {
        Op::CreateIssue(row) => db.create(&row.issue("created")).send().await,
        Op::PutIssue(row) => db.put(&row.issue("put")).send().await,
        Op::UpdateIssue(repo, ticket, status, title, src) => {
            let mut update = db.update::<Issue>(issue_key(repo, ticket));
            if let Some(status) = status {
                update = update.set(Issue::STATUS, *status);
                update = match src {
                    Src::Read => update.read_composite(true),
                    Src::Named | Src::Stale => {
                        let stale = matches!(src, Src::Stale);
                        update.composite(Issue::OWNER, owner_of(world, repo, ticket, stale))
                    }
                };
            }
            if let Some(title) = title {
                update = update.set(Issue::TITLE, *title);
            }
            update.send().await
        }
        Op::UpsertIssue(row) => {
            db.update::<Issue>(issue_key(row.repo, row.ticket))
                .set(Issue::OWNER, row.owner)
                .set(Issue::STATUS, row.status)
                .set(Issue::TITLE, "upserted")
                .upsert()
                .send()
                .await
        }
        Op::DeleteIssue(repo, ticket) => db.delete::<Issue>(issue_key(repo, ticket)).send().await,
        Op::InsertIssues(rows) => {
            let rows = rows.iter().map(|r| NewIssue {
                repo: r.repo.into(),
                ticket: r.ticket.into(),
                owner: r.owner.into(),
                status: r.status,
                title: "inserted".into(),
            });
            db.insert_many(rows.collect::<Vec<_>>())
                .send()
                .await
                .map(drop)
        }
        Op::PutRepo(owner, name, status) => db.put(&repository(owner, name, *status)).send().await,
        Op::UpdateRepo(owner, name, status) => {
            db.update::<Repository>(repo_key(owner, name))
                .set(Repository::STATUS, *status)
                .increment(Repository::STARS, 1)
                .send()
                .await
        }
        Op::DeleteRepo(owner, name) => db.delete::<Repository>(repo_key(owner, name)).send().await,
        Op::PutPull(repo, number, owner, status) => {
            db.put(&pull(repo, number, owner, *status)).send().await
        }
        Op::DeletePull(repo, number) => {
            db.delete::<PullRequest>(pull_key(repo, number))
                .send()
                .await
        }
        Op::Batch(ops) => {
            let repos: Vec<Repository> = ops
                .iter()
                .filter_map(|op| match op {
                    BatchOp::PutRepo(o, n, s) => Some(repository(o, n, *s)),
                    _ => None,
                })
                .collect();
            let pulls: Vec<PullRequest> = ops
                .iter()
                .filter_map(|op| match op {
                    BatchOp::PutPull(r, n, o, s) => Some(pull(r, n, o, *s)),
                    _ => None,
                })
                .collect();
            let mut batch = db.batch_write();
            for repo in &repos {
                batch = batch.put(repo);
            }
            for pull in &pulls {
                batch = batch.put(pull);
            }
            for op in ops {
                batch = match op {
                    BatchOp::DeleteRepo(o, n) => batch.delete::<Repository>(repo_key(o, n)),
                    BatchOp::DeletePull(r, n) => batch.delete::<PullRequest>(pull_key(r, n)),
                    BatchOp::PutRepo(..) | BatchOp::PutPull(..) => batch,
                };
            }
            batch.send().await.map(drop)
        }
        Op::Transaction(ops) => {
            let issues: Vec<Issue> = ops
                .iter()
                .filter_map(|op| match op {
                    TxOp::CreateIssue(row) => Some(row.issue("created")),
                    _ => None,
                })
                .collect();
            let repos: Vec<Repository> = ops
                .iter()
                .filter_map(|op| match op {
                    TxOp::PutRepo(o, n, s) => Some(repository(o, n, *s)),
                    _ => None,
                })
                .collect();
            let (mut issues, mut repos) = (issues.iter(), repos.iter());
            let mut tx = db.transact_write();
            for op in ops {
                tx = match op {
                    TxOp::CreateIssue(_) => tx.write(db.create(issues.next().expect("made"))),
                    TxOp::SetStatus(repo, ticket, status) => tx.write(
                        db.update::<Issue>(issue_key(repo, ticket))
                            .set(Issue::STATUS, *status)
                            .composite(Issue::OWNER, owner_of(world, repo, ticket, false)),
                    ),
                    TxOp::DeleteIssue(repo, ticket) => {
                        tx.write(db.delete::<Issue>(issue_key(repo, ticket)))
                    }
                    TxOp::PutRepo(..) => tx.write(db.put(repos.next().expect("made"))),
                };
            }
            tx.send().await
        }
    }
}

// ---------------------------------------------------------------------------------------
// The checks.
// ---------------------------------------------------------------------------------------

fn entity_of(item: &Item) -> Option<&str> {
    match item.get("__edb_e__") {
        Some(AttributeValue::S(name)) => Some(name),
        _ => None,
    }
}

fn failed(path: &'static str) -> impl Fn(Error) -> String {
    move |e| format!("{path} failed: {e}")
}

fn same<T: std::fmt::Debug + PartialEq>(path: &str, found: T, expected: T) -> Result<(), String> {
    if found == expected {
        Ok(())
    } else {
        Err(format!(
            "{path} gave {found:#?}\nthe oracle holds {expected:#?}"
        ))
    }
}

/// Sorted by their `Debug` text, to compare as sets.
fn sorted<T: std::fmt::Debug>(mut items: Vec<T>) -> Vec<T> {
    items.sort_by_key(|i| format!("{i:?}"));
    items
}

async fn check(db: &Client, world: &World) -> Result<(), String> {
    // 1. The table holds exactly the oracle's items, and the ticket guards.
    let mut stored = World::default();
    for item in common::guards::scan_all(db, &db.tables().name::<Issue>()).await {
        if item.contains_key("__dynorm_unique__") {
            continue;
        }
        let decoded = match entity_of(&item) {
            Some("repository") => Repository::from_item(item)
                .map(|r| drop(stored.repos.insert(key(&r.owner, &r.name), r))),
            Some("issue") => Issue::from_item(item)
                .map(|i| drop(stored.issues.insert(key(&i.repo, &i.ticket), i))),
            Some("pullRequest") => PullRequest::from_item(item)
                .map(|p| drop(stored.pulls.insert(key(&p.repo, &p.number), p))),
            other => return Err(format!("an item of no entity of the table: {other:?}")),
        };
        decoded.map_err(|e| format!("an item does not decode: {e}"))?;
    }
    same("the table", &stored, world)?;
    // `check_guards` asserts: its panic is this step's failure, so the run shrinks it.
    AssertUnwindSafe(common::guards::check_guards::<Issue>(db))
        .catch_unwind()
        .await
        .map_err(|panic| match panic.downcast_ref::<String>() {
            Some(message) => format!("the guards: {message}"),
            None => "the guards do not hold".to_owned(),
        })?;

    // 3. Reads by key.
    for repo in REPOS {
        for ticket in TICKETS {
            let found = db
                .get::<Issue>(issue_key(repo, ticket))
                .consistent_read(true)
                .send()
                .await
                .map_err(failed("get"))?;
            same("get", found.as_ref(), world.issues.get(&key(repo, ticket)))?;
        }
        for number in NUMBERS {
            let found = db
                .get::<PullRequest>(pull_key(repo, number))
                .consistent_read(true)
                .send()
                .await
                .map_err(failed("get"))?;
            same("get", found.as_ref(), world.pulls.get(&key(repo, number)))?;
        }
    }
    let every_issue_key: Vec<IssueKey> = REPOS
        .iter()
        .flat_map(|r| TICKETS.iter().map(move |t| issue_key(r, t)))
        .collect();
    let many = db
        .get_many::<Issue, _>(every_issue_key)
        .send()
        .await
        .map_err(failed("get_many"))?;
    same(
        "get_many",
        sorted(many),
        sorted(world.issues.values().cloned().collect()),
    )?;
    let mut tx = db.transact_get();
    for owner in OWNERS {
        for name in REPOS {
            tx = tx.get::<Repository>(repo_key(owner, name));
        }
    }
    let items = tx.send().await.map_err(failed("transact_get"))?;
    let mut at = 0;
    for owner in OWNERS {
        for name in REPOS {
            let found = items
                .get::<Repository>(at)
                .map_err(failed("transact_get"))?;
            same(
                "transact_get",
                found.as_ref(),
                world.repos.get(&key(owner, name)),
            )?;
            at += 1;
        }
    }

    // 4. The collection and its sub-collection, of each owner.
    for owner in OWNERS {
        let mut found = World::default();
        for item in db
            .collection::<Owned>(owner)
            .all()
            .await
            .map_err(failed("the owned collection"))?
        {
            let fresh = match item {
                Owned::Repository(r) => found.repos.insert(key(&r.owner, &r.name), r).is_none(),
                Owned::Issue(i) => found.issues.insert(key(&i.repo, &i.ticket), i).is_none(),
                Owned::PullRequest(p) => found.pulls.insert(key(&p.repo, &p.number), p).is_none(),
            };
            if !fresh {
                return Err(format!("a collection of {owner} gave an item twice"));
            }
        }
        let mut expected = world.clone();
        expected.repos.retain(|_, r| r.owner == owner);
        expected.issues.retain(|_, i| i.owner == owner);
        expected.pulls.retain(|_, p| p.owner == owner);
        same("the owned collection", &found, &expected)?;
        // DynamoDB counts the same items (`Select: COUNT`, with the members' filter).
        let counted = db
            .collection::<Owned>(owner)
            .count()
            .await
            .map_err(failed("the owned collection's count"))?;
        let listed = expected.repos.len() + expected.issues.len() + expected.pulls.len();
        if counted as usize != listed {
            return Err(format!(
                "the owned collection of {owner} counts {counted} items, and holds {listed}"
            ));
        }
        // A filter on an issue's attributes applies to every item read: the repositories
        // and pull requests have no title, so they stay, with the open issues.
        let filtered = || {
            db.collection::<Owned>(owner)
                .filter(Issue::TITLE.not_exists() | Issue::STATUS.eq(Status::Open))
        };
        let mut found = World::default();
        for item in filtered()
            .all()
            .await
            .map_err(failed("the filtered collection"))?
        {
            match item {
                Owned::Repository(r) => {
                    found.repos.insert(key(&r.owner, &r.name), r);
                }
                Owned::Issue(i) => {
                    found.issues.insert(key(&i.repo, &i.ticket), i);
                }
                Owned::PullRequest(p) => {
                    found.pulls.insert(key(&p.repo, &p.number), p);
                }
            }
        }
        let mut open = expected.clone();
        open.issues.retain(|_, i| i.status == Status::Open);
        same("the filtered collection", &found, &open)?;
        let counted = filtered()
            .count()
            .await
            .map_err(failed("the filtered collection's count"))?;
        let listed = open.repos.len() + open.issues.len() + open.pulls.len();
        if counted as usize != listed {
            return Err(format!(
                "the filtered collection of {owner} counts {counted} items, and holds {listed}"
            ));
        }
        let mut found = World::default();
        for item in db
            .collection::<Managed>(owner)
            .all()
            .await
            .map_err(failed("the managed sub-collection"))?
        {
            let fresh = match item {
                Managed::Issue(i) => found.issues.insert(key(&i.repo, &i.ticket), i).is_none(),
                Managed::PullRequest(p) => found.pulls.insert(key(&p.repo, &p.number), p).is_none(),
            };
            if !fresh {
                return Err(format!("a collection of {owner} gave an item twice"));
            }
        }
        expected.repos.clear();
        same("the managed sub-collection", &found, &expected)?;
        let counted = db
            .collection::<Managed>(owner)
            .count()
            .await
            .map_err(failed("the managed sub-collection's count"))?;
        let listed = expected.issues.len() + expected.pulls.len();
        if counted as usize != listed {
            return Err(format!(
                "the managed sub-collection of {owner} counts {counted} items, and holds {listed}"
            ));
        }

        // 5. range() on the list key `[status, ticket]`.
        for status in STATUSES {
            let found = db
                .query_by::<IssueGsi1pkGsi1skIndex>(owner)
                .range(Issue::STATUS.eq(status))
                .all()
                .await
                .map_err(failed("the status query"))?;
            let expected: Vec<Issue> = world
                .issues
                .values()
                .filter(|i| i.owner == owner && i.status == status)
                .cloned()
                .collect();
            same("the status query", sorted(found), sorted(expected))?;
        }
    }
    // 5. range() on the table's list key `[ticket]`.
    for repo in REPOS {
        let between = db
            .query_by::<Issue>(repo)
            .range(Issue::TICKET.between("t1", "t2"))
            .all()
            .await
            .map_err(failed("the ticket range"))?;
        let expected: Vec<Issue> = world
            .issues
            .values()
            .filter(|i| i.repo == repo && ["t1", "t2"].contains(&i.ticket.as_str()))
            .cloned()
            .collect();
        same("the ticket range", sorted(between), sorted(expected))?;
        let prefixed = db
            .query_by::<Issue>(repo)
            .range(Issue::TICKET.begins_with("t3"))
            .all()
            .await
            .map_err(failed("the ticket prefix"))?;
        let expected: Vec<Issue> = world
            .issues
            .values()
            .filter(|i| i.repo == repo && i.ticket == "t3")
            .cloned()
            .collect();
        same("the ticket prefix", sorted(prefixed), sorted(expected))?;
    }

    // 6. get_unique by each ticket.
    for ticket in TICKETS {
        let found = db
            .get_unique::<Issue>()
            .value(Issue::TICKET, ticket)
            .consistent_read(true)
            .send()
            .await
            .map_err(failed("get_unique"))?;
        let expected = world.issues.values().find(|i| i.ticket == ticket);
        same("get_unique", found.as_ref(), expected)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The run.
// ---------------------------------------------------------------------------------------

async fn run_case(db: &Client, ops: &[Op]) -> Result<(), String> {
    let table = db.tables().name::<Issue>();
    for item in common::guards::scan_all(db, &table).await {
        db.sdk()
            .delete_item()
            .table_name(&table)
            .key("pk", item["pk"].clone())
            .key("sk", item["sk"].clone())
            .send()
            .await
            .map_err(|e| format!("clearing the table failed: {e:?}"))?;
    }
    let mut world = World::default();
    for (i, op) in ops.iter().enumerate() {
        let expected = expect(&world, op);
        let result = write(db, &world, op).await;
        world = match (expected, result) {
            (Expect::Ok(next), Ok(())) => next,
            (Expect::Err(kinds), Err(e)) if kinds.contains(&e.kind()) => world,
            (Expect::Ok(_), Err(e)) => {
                return Err(format!(
                    "step {i} ({op:?}) failed with {e}, but the oracle expected success"
                ))
            }
            (Expect::Err(kinds), Ok(())) => {
                return Err(format!(
                    "step {i} ({op:?}) succeeded, but the oracle expected {kinds:?}"
                ))
            }
            (Expect::Err(kinds), Err(e)) => {
                return Err(format!(
                    "step {i} ({op:?}) failed with {e} ({:?}), but the oracle expected {kinds:?}",
                    e.kind()
                ))
            }
        };
        check(db, &world)
            .await
            .map_err(|e| format!("after step {i} ({op:?}): {e}"))?;
    }
    Ok(())
}

#[test]
fn list_keys_hold_on_every_write_path() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let db = runtime.block_on(async {
        let db = common::db("list_keys_stateful").await;
        db.tables()
            .create_shared::<ListKeys>()
            .send()
            .await
            .expect("the table is created");
        db
    });
    common::sequences::run_sequences(CASES, SEED, op(), MAX_STEPS, |ops| {
        runtime.block_on(run_case(&db, &ops))
    });
}
