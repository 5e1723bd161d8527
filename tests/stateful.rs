//! A stateful, model-based property test: random sequences of every write path and every
//! read path over one single-table design, checked after each step against an in-memory
//! oracle.
//!
//! The write paths: `create`, `create(..).overwrite(true)`, `insert` (from an insert type),
//! `put`, `update` (a `set` of an index key template's source, of a `#[combine]` source,
//! increments, `remove` of an `Option`; the read-only source of a key named with
//! `composite`, rightly or wrongly, or read from the stored item with `read_composite`),
//! `update_raw`, `update(..).upsert()`, batch puts and deletes,
//! write transactions mixing create, put, update, delete and condition checks, `delete` and
//! `delete_raw`, and writes that must be refused (a stale version, a create over a live
//! item, an update of a missing item, an update that cannot rebuild a key, values a key
//! cannot hold). The reads: `get`, `get_raw`, `get_many`, `transact_get`, queries through
//! the GSIs (through GSI1 also hydrated, which gives the same items in the same order,
//! GSI1 projecting every attribute; through GSI5 by a computed slug, with or without its
//! `bool` part; and through the index the planner chooses from equalities), scans, a collection, and relations loaded with `find` (an
//! org with its tasks, in one Query of the shared partition or with a per-parent limit;
//! tasks with their owner, by org or through GSI2, whole or page by page within a budget
//! that no page passes). A few orgs and ids make the steps
//! collide. The table's change stream is the last read: after the run, its typed changes
//! (to the collection enum, and to `Task` alone), replayed in order onto an empty map, give
//! the table's final items, each modification and removal finding the image the replay
//! holds.
//!
//! After every step the whole table is read raw (`db.sdk().scan()`), compared with the
//! oracle item by item, and every stored item is checked:
//!
//! 1. every key attribute built from a template or a `#[combine]` equals its rendering
//!    from the item's stored sources, rendered here from the raw attributes (`updated_at`,
//!    which every write sets, and the read-only `created_at` among them); an item
//!    without a sparse index's source has none of that index's key attributes;
//! 2. the entity's identity is present and is the one its key belongs to: both entities
//!    follow ElectroDB's convention, so `__edb_e__` names the entity and `__edb_v__` its
//!    version, on every write path;
//! 3. `#[version]` went up by exactly one per successful write, and a refused write
//!    changed nothing (the oracle is compared attribute by attribute);
//! 4. `updated_at` is set by every write; `default` fields keep their first value; no
//!    update changes a `read_only` field; a literal default (`Task::note`, `Org::tier`)
//!    fills an absent attribute on every whole-item write (create, put, insert, batch and
//!    transaction puts) and on an upsert that creates the item, and on nothing else;
//!    `status` is stored as its code (`#[dynorm(set)]`) and `slug` computed from `title`
//!    (`watch`, the source of `gsi5pk`) by every write, and the `bool` `urgent` is one
//!    part of `gsi5sk` (`URGENT#true#..`); updates write paths inside `details` (a
//!    condition tests one), and never a path with `details` itself;
//! 5. the item decodes back into its model.
//!
//! The oracle says what is correct. Expectations that once failed are marked
//! `Regression`, with what went wrong.
//!
//! Where the correct behaviour is not decided (a write other than `create` aimed at an
//! expired item, which DynamoDB still holds), the oracle accepts both readings: the item
//! seen as present, as DynamoDB's conditions see it, or as absent, as reads see it.
//!
//! Why proptest with a hand-written state machine, not `proptest-state-machine`: the
//! steps are generated independently of the state, as abstract choices (one of twelve
//! keys; "the version just read" or "a stale one"), and resolved against the oracle when
//! they run. So every sequence is valid, and shrinking only removes or simplifies steps,
//! with no preconditions to re-check. The oracle also has to learn from the server the
//! values that the library generates (UUID v7 tokens, timestamps), which a pure reference
//! state machine cannot predict; and every step is async. It needs no new dependency.
//!
//! The run is deterministic: a fixed seed, a fixed number of cases, no persisted failures,
//! TTL times an hour away from now, and timestamps checked against the window of their
//! step. `PROPTEST_RNG_SEED` and `PROPTEST_CASES` explore other sequences.

mod common;

use dynorm::Request;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;

use chrono::{DateTime, Duration, TimeZone, Utc};
use dynorm::types::AttributeValue;
use dynorm::{Client, Collection, Error, ErrorKind, Item, Model, Update};
use futures::FutureExt;
use proptest::prelude::*;
use proptest::sample::select;

// ---------------------------------------------------------------------------------------
// The entities: one table, two entities, two GSIs.
// ---------------------------------------------------------------------------------------

/// A task: table keys from a template, a GSI on two templates (one with two sources), a
/// sparse GSI on an `Option`, a GSI sorted by `updated_at` (which every write changes), a
/// GSI whose sort key is the `read_only` `created_at` (an update of its other source names
/// it with `composite` or reads it), a non-key `#[combine]`, `#[version]`, `#[ttl]`,
/// `updated_at`, a `read_only` default and a UUID v7 default.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Workspace", entity = "task", stream = "new_and_old_images")]
#[dynorm(
    convention = "electrodb",
    service = "workspace",
    entity_version = "1",
    casing = "none"
)]
#[key(pk = "ORG#{org}", sk = "TASK#{id}")]
#[key(
    index = "GSI1",
    gsi1pk = "STATUS#{status}",
    gsi1sk = "DUE#{due}#P#{priority}"
)]
#[key(
    index = "GSI2",
    gsi2pk = "ASSIGNEE#{assignee}",
    gsi2sk = "ORG#{org}#TASK#{id}"
)]
#[key(index = "GSI3", gsi3pk = "ORG#{org}", gsi3sk = "UPD#{updated_at}")]
#[key(
    index = "GSI4",
    gsi4pk = "CAT#{category}",
    gsi4sk = "CREATED#{created_at}"
)]
#[key(
    index = "GSI5",
    gsi5pk = "SLUG#{slug}",
    gsi5sk = "URGENT#{urgent}#TASK#{id}"
)]
#[relation(name = "owner", one = Org, fields = [org], references = [org])]
struct Task {
    org: String,
    id: String,
    /// Stored as its code (`status_code`), in `gsi1pk` too, and read back as the status.
    #[dynorm(set = status_code, get = status_name)]
    status: String,
    due: String,
    priority: u32,
    assignee: Option<String>,
    category: String,
    title: String,
    #[combine(fields = [category, title], sep = "#")]
    label: String,
    /// Computed from `title` on every write (`slug_of`), and the source of `gsi5pk`.
    #[dynorm(watch = [title], set = slug_of)]
    slug: String,
    /// A map whose paths updates write (`details.reviewer`, `details.points`).
    details: Details,
    /// A `bool` as one part of `gsi5sk`: `true` or `false` in the key.
    urgent: bool,
    views: i64,
    /// A literal default: a whole-item write of a task without a note stores `NOTE_DEFAULT`.
    #[dynorm(default = "n0")]
    note: Option<String>,
    #[version]
    version: u64,
    #[ttl]
    expires_at: Option<DateTime<Utc>>,
    #[dynorm(updated_at)]
    updated_at: Option<DateTime<Utc>>,
    #[dynorm(default = "now", read_only)]
    created_at: Option<DateTime<Utc>>,
    #[dynorm(default = "uuid_v7")]
    token: Option<String>,
}

/// A task's details: a map, whose paths an update writes one by one, and its votes, a map
/// whose entries an update writes under keys chosen at run time (`set_entry`).
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Default)]
struct Details {
    reviewer: String,
    points: u32,
    #[serde(default)]
    votes: BTreeMap<String, u32>,
    /// A string set inside the map: elements added and deleted at its path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    labels: Option<dynorm::StringSet>,
}

/// The labels a task's details may hold.
const LABELS: [&str; 3] = ["red", "blue", "a.b"];

/// Who votes on a task: map keys that hold `.`, `[0]` and `#`, each one key.
const VOTERS: [&str; 3] = ["ann", "b.o[0]", "#cy"];

/// The votes a task's details start with: the owner's, which no action removes, so that
/// the map is never empty. With an empty map in the tasks, reading this test's stream
/// from DynamoDB Local failed ("service error", HTTP status 200), and did not without one.
fn first_votes() -> BTreeMap<String, u32> {
    BTreeMap::from([("owner".to_owned(), 1)])
}

/// The path of a voter's entry, as `TaskAction::attribute` names paths.
fn vote_path(voter: &str) -> &'static str {
    match voter {
        "ann" => "details.votes.ann",
        "b.o[0]" => "details.votes.b.o[0]",
        _ => "details.votes.#cy",
    }
}

/// The handle of `details.labels`.
const LABELS_PATH: dynorm::Attr<
    Task,
    dynorm::StringSet,
    dynorm::expr::Optional,
    dynorm::expr::Writable,
> = Task::DETAILS.field::<dynorm::StringSet>("labels");

/// The handle of `details.votes`.
const VOTES: dynorm::Attr<
    Task,
    BTreeMap<String, u32>,
    dynorm::expr::Optional,
    dynorm::expr::Writable,
> = Task::DETAILS.field::<BTreeMap<String, u32>>("votes");

/// An org: no version, so batches can write it; a sparse entry in the shared GSI1.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Workspace", entity = "org", stream = "new_and_old_images")]
#[dynorm(
    convention = "electrodb",
    service = "workspace",
    entity_version = "1",
    casing = "none"
)]
#[key(pk = "ORG#{org}", sk = "#META")]
#[key(index = "GSI1", gsi1pk = "PLAN#{plan}", gsi1sk = "ORG#{org}")]
#[relation(name = "tasks", many = Task, fields = [org], references = [org])]
#[dynorm(shape = 2, upcasts = [OrgV1])]
struct Org {
    org: String,
    name: String,
    plan: Option<String>,
    seats: u32,
    /// A literal default no write path sets: every whole-item write (and an upsert that
    /// creates the org) stores `TIER_DEFAULT`, and nothing else changes it.
    #[dynorm(default = "basic")]
    tier: Option<String>,
    #[dynorm(updated_at)]
    updated_at: Option<DateTime<Utc>>,
}

/// An org as shape 1 stored it, before `__shape` existed: its seats as text.
#[derive(serde::Deserialize)]
struct OrgV1 {
    org: String,
    name: String,
    plan: Option<String>,
    seat_text: String,
}

impl From<OrgV1> for Org {
    fn from(v1: OrgV1) -> Self {
        Org {
            org: v1.org,
            name: v1.name,
            plan: v1.plan,
            seats: v1.seat_text.parse().unwrap_or_default(),
            tier: None,
            updated_at: None,
        }
    }
}

dynorm::shared_table!(struct Workspace { Org, Task });

/// An org and its tasks: one query on `ORG#<org>`.
#[derive(Collection, Debug)]
#[allow(clippy::large_enum_variant)]
enum OrgWithTasks {
    Org(Org),
    Task(Task),
}

// ---------------------------------------------------------------------------------------
// The run.
// ---------------------------------------------------------------------------------------

/// 64 cases of 1 to 30 steps, about 930 steps each followed by a raw scan of the table:
/// about 7 s in debug mode on 2 cores, on the embedded server and on DynamoDB Local alike,
/// and about 2 s more to read the stream at the end (most of it waiting for it to go quiet).
const CASES: u32 = 64;
const MAX_STEPS: usize = 30;
const SEED: u64 = 0x5EED_0011;

#[test]
fn every_write_path_keeps_the_invariants() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let db = runtime.block_on(async {
        let db = common::db("stateful").await;
        db.tables()
            .create_shared::<Workspace>()
            .send()
            .await
            .expect("the table is created");
        db
    });
    // The table's items at the end of each case, for the stream's replay.
    let endings = std::cell::RefCell::new(Vec::new());
    common::sequences::run_sequences(CASES, SEED, op(), MAX_STEPS, |ops| {
        let ending = runtime.block_on(async {
            run_case(&db, &ops).await?;
            table_state(&db).await
        })?;
        endings.borrow_mut().push(ending);
        Ok(())
    });
    if let Err(e) = runtime.block_on(replay_stream(&db, &endings.into_inner())) {
        panic!("the stream: {e}");
    }
}

/// One case: an empty table, then every step checked.
async fn run_case(db: &Client, ops: &[Op]) -> Result<(), String> {
    clear(db).await?;
    let mut world = World::default();
    for (i, op) in ops.iter().enumerate() {
        world = step(db, &world, op)
            .await
            .map_err(|e| format!("step {i} ({op:?}): {e}"))?;
    }
    Ok(())
}

/// Runs one step, checks its result, then the whole table; returns the world after it.
async fn step(db: &Client, world: &World, op: &Op) -> Result<World, String> {
    let since = now_ms();
    let candidates = match op.kind() {
        OpKind::Read => {
            guard(read(db, world, op)).await??;
            vec![world.clone()]
        }
        OpKind::Write => {
            let outcome = expect(world, op, since);
            match guard(write(db, world, op)).await? {
                Ok(()) if outcome.oks.is_empty() => {
                    return Err(format!(
                        "outcome: it succeeded, but the oracle expected {:?}",
                        outcome.errs
                    ))
                }
                Ok(()) => outcome.oks,
                Err(e) if outcome.errs.contains(&e.kind()) => {
                    if let Op::Transaction(ops) = op {
                        check_reasons(&e, &tx_reasons(world, ops, since))?;
                    }
                    vec![world.clone()]
                }
                Err(e) => {
                    return Err(format!(
                        "outcome: it failed with {:?} ({e}), but the oracle expected {}",
                        e.kind(),
                        outcome.describe()
                    ))
                }
            }
        }
    };
    let items = raw_items(db).await?;
    let until = Utc::now();
    for item in &items {
        check_item(item)?;
    }
    let mut first = None;
    for candidate in &candidates {
        match verify(&items, candidate, until) {
            Ok(learned) => return Ok(learned),
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    Err(first.unwrap_or_default())
}

/// Every operation a cancelled transaction blames may fail, by the oracle, with the kind
/// the reason gives.
fn check_reasons(error: &Error, expected: &[Vec<ErrorKind>]) -> Result<(), String> {
    if error.kind() != ErrorKind::TransactionCanceled {
        return Ok(());
    }
    let reasons = error.cancellation_reasons();
    let failures: Vec<_> = reasons.iter().filter(|r| r.is_failure()).collect();
    if failures.is_empty() {
        return Err(format!(
            "outcome: no cancellation reason blames an operation: {reasons:?}"
        ));
    }
    for reason in failures {
        let allowed = expected.get(reason.index).cloned().unwrap_or_default();
        let kind_ok = reason.code == "ConditionalCheckFailed"
            && reason.kind.is_some_and(|k| {
                allowed.contains(&k)
                    || (allowed.contains(&ErrorKind::TransactionCanceled)
                        && k == ErrorKind::ConditionFailed)
            });
        if allowed.is_empty() || !kind_ok {
            return Err(format!(
                "outcome: the transaction blames operation {} ({} on `{}`: {} {:?}), but the oracle says it may fail with {allowed:?}",
                reason.index, reason.operation, reason.model, reason.code, reason.kind
            ));
        }
    }
    Ok(())
}

/// A panic in the library is a failure of the step, with its message.
async fn guard<T>(future: impl Future<Output = T>) -> Result<T, String> {
    AssertUnwindSafe(future)
        .catch_unwind()
        .await
        .map_err(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            format!("the library panicked: {message}")
        })
}

// ---------------------------------------------------------------------------------------
// Values: few of each, so that steps collide; a few a key cannot hold.
// ---------------------------------------------------------------------------------------

const ORGS: [&str; 3] = ["acme", "blue", "core"];
const IDS: [&str; 4] = ["t1", "t2", "t3", "t4"];
const STATUSES: [&str; 3] = ["open", "done", "hold"];
const DUES: [&str; 3] = ["2026-01", "2026-02", "2026-03"];
const PEOPLE: [&str; 2] = ["ann", "bob"];
const CATEGORIES: [&str; 2] = ["bug", "ops"];
/// The last source of `label`, so it may hold the separator.
const TITLES: [&str; 3] = ["fix", "ship", "x#y"];

/// `Task::status` as stored: its position in `STATUSES`, or the text itself.
fn status_code(status: String) -> String {
    STATUSES
        .iter()
        .position(|s| *s == status)
        .map_or(status, |code| code.to_string())
}

/// `Task::status` as read: the status its code stands for, or the text itself.
fn status_name(code: String) -> String {
    code.parse::<usize>()
        .ok()
        .and_then(|i| STATUSES.get(i))
        .map_or(code, |s| (*s).to_owned())
}

/// `Task::slug`, computed from the title.
fn slug_of(title: &str) -> String {
    title.replace('#', "-").to_uppercase()
}
const NOTES: [&str; 2] = ["n1", "n2"];
/// `Task::note`'s literal default, which no step writes itself.
const NOTE_DEFAULT: &str = "n0";
/// `Org::tier`'s literal default.
const TIER_DEFAULT: &str = "basic";
const NAMES: [&str; 2] = ["Acme", "Blue"];
const PLANS: [&str; 2] = ["free", "pro"];
/// A first `#[combine]` source that holds the separator: refused on every path.
const BAD_CATEGORY: &str = "b#d";
/// An empty source of a sparse templated index key (see `values_refusal`).
const EMPTY: &str = "";

/// The time the run started, in whole seconds, as `#[ttl]` stores it.
fn start() -> DateTime<Utc> {
    static START: OnceLock<DateTime<Utc>> = OnceLock::new();
    *START.get_or_init(|| Utc.timestamp_opt(Utc::now().timestamp(), 0).unwrap())
}

/// Now, cut to the millisecond, as `updated_at` stores it.
fn now_ms() -> DateTime<Utc> {
    Utc.timestamp_millis_opt(Utc::now().timestamp_millis())
        .unwrap()
}

/// An expiry an hour from the start of the run, so no item expires during it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expiry {
    Past,
    Future,
}

impl Expiry {
    fn at(self) -> DateTime<Utc> {
        match self {
            Self::Past => start() - Duration::hours(1),
            Self::Future => start() + Duration::hours(1),
        }
    }
}

fn expired(task: &Task) -> bool {
    task.expires_at.is_some_and(|at| at <= Utc::now())
}

/// One of the twelve task keys.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct TKey {
    org: u8,
    id: u8,
}

impl fmt::Debug for TKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.org(), self.id())
    }
}

impl TKey {
    fn org(self) -> &'static str {
        ORGS[self.org as usize]
    }

    fn id(self) -> &'static str {
        IDS[self.id as usize]
    }

    fn typed(self) -> TaskKey {
        TaskKey {
            org: self.org().into(),
            id: self.id().into(),
        }
    }

    fn raw(self) -> Item {
        Item::from([
            ("pk".to_owned(), s(format!("ORG#{}", self.org()))),
            ("sk".to_owned(), s(format!("TASK#{}", self.id()))),
        ])
    }

    fn find(org: &str, id: &str) -> Option<Self> {
        let org = ORGS.iter().position(|o| *o == org)? as u8;
        let id = IDS.iter().position(|i| *i == id)? as u8;
        Some(Self { org, id })
    }
}

/// One of the three org keys.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct OKey(u8);

impl fmt::Debug for OKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl OKey {
    fn name(self) -> &'static str {
        ORGS[self.0 as usize]
    }

    fn raw(self) -> Item {
        Item::from([
            ("pk".to_owned(), s(format!("ORG#{}", self.name()))),
            ("sk".to_owned(), s("#META".to_owned())),
        ])
    }
}

fn s(text: String) -> AttributeValue {
    AttributeValue::S(text)
}

/// Every field of a task that a write gives.
#[derive(Clone, PartialEq)]
struct TaskFields {
    status: &'static str,
    due: &'static str,
    priority: u32,
    assignee: Option<&'static str>,
    category: &'static str,
    title: &'static str,
    views: i64,
    note: Option<&'static str>,
    expires: Option<Expiry>,
}

impl fmt::Debug for TaskFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{} {} p{} @{:?} {}#{} views={} note={:?} ttl={:?}]",
            self.status,
            self.due,
            self.priority,
            self.assignee,
            self.category,
            self.title,
            self.views,
            self.note,
            self.expires
        )
    }
}

/// Whether the library must refuse to store these values before sending.
///
/// A non-last `#[combine]` source that holds the separator must be refused. An empty
/// source of a sparse templated index is not decided: the rules refuse an empty index
/// key attribute (Regression: one was sent), but from a template the attribute would be
/// `ASSIGNEE#`, not empty, and the library leaves the item out of the index instead, as
/// it treats an empty template source as absent; both are accepted.
fn values_refusal(category: Option<&str>, sparse_source: Option<&str>) -> Refusal {
    if category == Some(BAD_CATEGORY) {
        Refusal::Must
    } else if sparse_source == Some(EMPTY) {
        Refusal::May
    } else {
        Refusal::No
    }
}

impl TaskFields {
    fn refusal(&self) -> Refusal {
        values_refusal(Some(self.category), self.assignee)
    }

    /// The task these fields make, as the model value a write is given and as the oracle
    /// expects it stored (the library rebuilds `label`; it is set here as stored).
    fn task(&self, key: TKey, version: u64, kept: Option<&Task>) -> Task {
        Task {
            org: key.org().into(),
            id: key.id().into(),
            status: self.status.into(),
            due: self.due.into(),
            priority: self.priority,
            assignee: self.assignee.map(Into::into),
            category: self.category.into(),
            title: self.title.into(),
            label: format!("{}#{}", self.category, self.title),
            slug: slug_of(self.title),
            details: Details {
                reviewer: self.title.into(),
                points: self.priority,
                votes: first_votes(),
                labels: None,
            },
            urgent: self.priority >= 2,
            views: self.views,
            note: self.note.map(Into::into),
            version,
            expires_at: self.expires.map(Expiry::at),
            updated_at: kept.and_then(|t| t.updated_at),
            created_at: kept.and_then(|t| t.created_at),
            token: kept.and_then(|t| t.token.clone()),
        }
    }

    /// The actions of an upsert that writes every field.
    fn upsert_actions(&self) -> Vec<TaskAction> {
        vec![
            TaskAction::Status(self.status),
            TaskAction::Due(self.due),
            TaskAction::Priority(self.priority),
            self.assignee
                .map_or(TaskAction::Unassign, TaskAction::Assignee),
            TaskAction::Category(self.category),
            TaskAction::Title(self.title),
            TaskAction::SetViews(self.views),
            self.note.map_or(TaskAction::RemoveNote, TaskAction::Note),
            self.expires
                .map_or(TaskAction::RemoveExpires, TaskAction::Expires),
            TaskAction::Details(self.title, self.priority),
            TaskAction::Urgent(self.priority >= 2),
        ]
    }
}

/// Every field of an org that a write gives.
#[derive(Clone, PartialEq)]
struct OrgFields {
    name: &'static str,
    plan: Option<&'static str>,
    seats: u32,
}

impl fmt::Debug for OrgFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{} plan={:?} seats={}]",
            self.name, self.plan, self.seats
        )
    }
}

impl OrgFields {
    fn refusal(&self) -> Refusal {
        values_refusal(None, self.plan)
    }

    fn org(&self, key: OKey) -> Org {
        Org {
            org: key.name().into(),
            name: self.name.into(),
            plan: self.plan.map(Into::into),
            seats: self.seats,
            tier: None,
            updated_at: None,
        }
    }

    fn upsert_actions(&self) -> Vec<OrgAction> {
        vec![
            OrgAction::Name(self.name),
            self.plan.map_or(OrgAction::RemovePlan, OrgAction::Plan),
            OrgAction::SetSeats(self.seats),
        ]
    }
}

/// One action of a task update.
#[derive(Clone, Copy, Debug, PartialEq)]
enum TaskAction {
    /// The only source of `gsi1pk`.
    Status(&'static str),
    /// One of two sources of `gsi1sk`.
    Due(&'static str),
    /// The other source of `gsi1sk`.
    Priority(u32),
    /// An increment of a key source: its value is not known, so the key cannot be rebuilt.
    BumpPriority,
    /// The source of the sparse GSI2.
    Assignee(&'static str),
    Unassign,
    /// The first source of `label`.
    Category(&'static str),
    /// The last source of `label`.
    Title(&'static str),
    /// An increment (or decrement) of a plain number.
    Views(i64),
    SetViews(i64),
    Note(&'static str),
    RemoveNote,
    Expires(Expiry),
    RemoveExpires,
    /// `details`, whole.
    Details(&'static str, u32),
    /// The path `details.reviewer`.
    Reviewer(&'static str),
    /// An increment of the path `details.points`.
    BumpPoints,
    /// A voter's entry of `details.votes`, under a key chosen at run time.
    Vote(&'static str, u32),
    /// A voter's entry removed.
    Unvote(&'static str),
    /// A label added to the set `details.labels`.
    Label(&'static str),
    /// A label deleted from it: the last one deleted takes the set away.
    Unlabel(&'static str),
    /// `views` plus its own stored value (`increment_by_attribute`).
    DoubleViews,
    /// The `bool` part of `gsi5sk`.
    Urgent(bool),
}

/// What an action does to its attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// A known new value.
    Set,
    /// Gone.
    Remove,
    /// A value computed by DynamoDB, unknown before sending.
    Computed,
}

impl TaskAction {
    fn attribute(self) -> &'static str {
        match self {
            Self::Status(_) => "status",
            Self::Due(_) => "due",
            Self::Priority(_) | Self::BumpPriority => "priority",
            Self::Assignee(_) | Self::Unassign => "assignee",
            Self::Category(_) => "category",
            Self::Title(_) => "title",
            Self::Views(_) | Self::SetViews(_) => "views",
            Self::Note(_) | Self::RemoveNote => "note",
            Self::Expires(_) | Self::RemoveExpires => "expires_at",
            Self::Details(..) => "details",
            // Paths: each its own, so that two paths of `details` go together.
            Self::Reviewer(_) => "details.reviewer",
            Self::BumpPoints => "details.points",
            Self::Vote(voter, _) | Self::Unvote(voter) => vote_path(voter),
            Self::Label(_) | Self::Unlabel(_) => "details.labels",
            Self::DoubleViews => "views",
            Self::Urgent(_) => "urgent",
        }
    }

    /// Whether the action writes a path inside `details` rather than an attribute.
    fn is_path(self) -> bool {
        matches!(
            self,
            Self::Reviewer(_)
                | Self::BumpPoints
                | Self::Vote(..)
                | Self::Unvote(_)
                | Self::Label(_)
                | Self::Unlabel(_)
        )
    }

    fn effect(self) -> Effect {
        match self {
            Self::BumpPriority
            | Self::Views(_)
            | Self::BumpPoints
            | Self::DoubleViews
            | Self::Label(_)
            | Self::Unlabel(_) => Effect::Computed,
            Self::Unassign | Self::RemoveNote | Self::RemoveExpires | Self::Unvote(_) => {
                Effect::Remove
            }
            _ => Effect::Set,
        }
    }

    fn apply(self, task: &mut Task) {
        match self {
            Self::Status(v) => task.status = v.into(),
            Self::Due(v) => task.due = v.into(),
            Self::Priority(v) => task.priority = v,
            Self::BumpPriority => task.priority += 1,
            Self::Assignee(v) => task.assignee = Some(v.into()),
            Self::Unassign => task.assignee = None,
            Self::Category(v) => task.category = v.into(),
            Self::Title(v) => task.title = v.into(),
            Self::Views(by) => task.views += by,
            Self::SetViews(v) => task.views = v,
            Self::Note(v) => task.note = Some(v.into()),
            Self::RemoveNote => task.note = None,
            Self::Expires(e) => task.expires_at = Some(e.at()),
            Self::RemoveExpires => task.expires_at = None,
            Self::Details(reviewer, points) => {
                task.details = Details {
                    reviewer: reviewer.into(),
                    points,
                    votes: first_votes(),
                    labels: None,
                }
            }
            Self::Reviewer(v) => task.details.reviewer = v.into(),
            Self::BumpPoints => task.details.points += 1,
            Self::Vote(voter, v) => {
                task.details.votes.insert(voter.into(), v);
            }
            Self::Unvote(voter) => {
                task.details.votes.remove(voter);
            }
            Self::Label(label) => {
                task.details
                    .labels
                    .get_or_insert_with(Default::default)
                    .insert(label.into());
            }
            Self::Unlabel(label) => {
                if let Some(labels) = &mut task.details.labels {
                    labels.remove(label);
                    if labels.is_empty() {
                        task.details.labels = None;
                    }
                }
            }
            Self::DoubleViews => task.views *= 2,
            Self::Urgent(v) => task.urgent = v,
        }
        task.label = format!("{}#{}", task.category, task.title);
        task.slug = slug_of(&task.title);
    }

    fn add_to(self, update: Update<Task>) -> Update<Task> {
        match self {
            Self::Status(v) => update.set(Task::STATUS, v),
            Self::Due(v) => update.set(Task::DUE, v),
            Self::Priority(v) => update.set(Task::PRIORITY, v),
            Self::BumpPriority => update.increment(Task::PRIORITY, 1),
            Self::Assignee(v) => update.set(Task::ASSIGNEE, v),
            Self::Unassign => update.remove(Task::ASSIGNEE),
            Self::Category(v) => update.set(Task::CATEGORY, v),
            Self::Title(v) => update.set(Task::TITLE, v),
            Self::Views(by) if by < 0 => update.decrement(Task::VIEWS, -by),
            Self::Views(by) => update.increment(Task::VIEWS, by),
            Self::SetViews(v) => update.set(Task::VIEWS, v),
            Self::Note(v) => update.set(Task::NOTE, v),
            Self::RemoveNote => update.remove(Task::NOTE),
            Self::Expires(e) => update.set(Task::EXPIRES_AT, e.at()),
            Self::RemoveExpires => update.remove(Task::EXPIRES_AT),
            Self::Details(reviewer, points) => update.set(
                Task::DETAILS,
                Details {
                    reviewer: reviewer.into(),
                    points,
                    votes: first_votes(),
                    labels: None,
                },
            ),
            Self::Reviewer(v) => update.set(Task::DETAILS.field::<String>("reviewer"), v),
            Self::BumpPoints => update.increment(Task::DETAILS.field::<u32>("points"), 1),
            Self::Vote(voter, v) => update.set_entry(VOTES, voter, v),
            Self::Unvote(voter) => update.remove_entry(VOTES, voter),
            Self::Label(label) => update.add_to_set(LABELS_PATH, dynorm::StringSet::from([label])),
            Self::Unlabel(label) => {
                update.delete_from_set(LABELS_PATH, dynorm::StringSet::from([label]))
            }
            Self::DoubleViews => update.increment_by_attribute(Task::VIEWS, Task::VIEWS),
            Self::Urgent(v) => update.set(Task::URGENT, v),
        }
    }
}

/// The attributes of a task built from templates or `#[combine]` that an update can
/// touch: the index they key (`None` for `label`), their name and their sources.
const TASK_DERIVED: [(Option<&str>, &str, &[&str]); 12] = [
    (Some("GSI1"), "gsi1pk", &["status"]),
    (Some("GSI1"), "gsi1sk", &["due", "priority"]),
    (Some("GSI2"), "gsi2pk", &["assignee"]),
    (Some("GSI2"), "gsi2sk", &["org", "id"]),
    (Some("GSI3"), "gsi3pk", &["org"]),
    (Some("GSI3"), "gsi3sk", &["updated_at"]),
    (Some("GSI4"), "gsi4pk", &["category"]),
    (Some("GSI4"), "gsi4sk", &["created_at"]),
    (None, "label", &["category", "title"]),
    (None, "slug", &["title"]),
    (Some("GSI5"), "gsi5pk", &["title"]),
    (Some("GSI5"), "gsi5sk", &["urgent", "id"]),
];

/// Whether the library must refuse an update before sending.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Refusal {
    No,
    /// Not decided: success and a Validation error are both right.
    May,
    Must,
}

/// Whether the library must refuse a task update before sending; `alone` when it is
/// not part of a transaction.
///
/// Regression: the library rebuilt only `#[combine]` attributes, so an update of a GSI
/// template source left the index key stale. The rule: an update that
/// changes a source rebuilds every key that it feeds when all of that key's sources are
/// known in the update (`set`, or `remove` of a sparse index's source, which takes the
/// item out of the index), and is refused before sending otherwise. The sources of the
/// table key (`org`, `id`) are known from the update's key, and cannot change.
/// `updated_at` changes on every write, and dynorm knows the value it writes (Regression:
/// an update refused for not setting it, and one that left `gsi3sk` with the old time).
/// `created_at`, read-only, is known when the update names it (`composite`) or reads it
/// from the stored item (`read_composite`), which also gives every other source the
/// update does not change by an amount; a transaction cannot read first.
///
/// Not decided: whether "key" means one key attribute (`gsi1pk` alone may be rebuilt
/// from `status`) or the index's key pair (`status` needs `due` and `priority` too, as
/// the library has done since it rebuilds index keys): that refusal is accepted.
fn task_update_refusal(actions: &[TaskAction], src: KeySrc, alone: bool) -> Refusal {
    let mut seen = BTreeSet::new();
    for action in actions {
        if !seen.insert(action.attribute()) {
            return Refusal::Must; // an attribute written twice
        }
    }
    // `details` whole and a path inside it overlap.
    if seen.contains("details") && actions.iter().any(|a| a.is_path()) {
        return Refusal::Must;
    }
    let mut refusal = Refusal::No;
    for action in actions {
        let values = match action {
            TaskAction::Category(c) => values_refusal(Some(c), None),
            TaskAction::Assignee(a) => values_refusal(None, Some(a)),
            _ => Refusal::No,
        };
        refusal = refusal.max(values);
    }
    let reads = src.reads(alone);
    let known = |attribute: &str| {
        attribute == "org"
            || attribute == "id"
            || attribute == "updated_at"
            || (attribute == "created_at" && src.named_value())
            || match actions.iter().find(|a| a.attribute() == attribute) {
                Some(action) => action.effect() != Effect::Computed,
                None => reads,
            }
    };
    let touched = |sources: &[&str]| {
        sources
            .iter()
            .any(|s| actions.iter().any(|a| a.attribute() == *s))
    };
    for (index, _, sources) in TASK_DERIVED {
        if !touched(sources) {
            continue;
        }
        if !sources.iter().all(|s| known(s)) {
            return Refusal::Must;
        }
        let index_known = TASK_DERIVED
            .iter()
            .filter(|(i, _, _)| index.is_some() && *i == index)
            .all(|(_, _, sources)| sources.iter().all(|s| known(s)));
        if !index_known {
            refusal = refusal.max(Refusal::May);
        }
    }
    refusal
}

/// One action of an org update.
#[derive(Clone, Copy, Debug, PartialEq)]
enum OrgAction {
    Name(&'static str),
    /// The source of the sparse GSI1 entry.
    Plan(&'static str),
    RemovePlan,
    AddSeats(u32),
    SetSeats(u32),
}

impl OrgAction {
    fn attribute(self) -> &'static str {
        match self {
            Self::Name(_) => "name",
            Self::Plan(_) | Self::RemovePlan => "plan",
            Self::AddSeats(_) | Self::SetSeats(_) => "seats",
        }
    }

    fn apply(self, org: &mut Org) {
        match self {
            Self::Name(v) => org.name = v.into(),
            Self::Plan(v) => org.plan = Some(v.into()),
            Self::RemovePlan => org.plan = None,
            Self::AddSeats(by) => org.seats += by,
            Self::SetSeats(v) => org.seats = v,
        }
    }

    fn add_to(self, update: Update<Org>) -> Update<Org> {
        match self {
            Self::Name(v) => update.set(Org::NAME, v),
            Self::Plan(v) => update.set(Org::PLAN, v),
            Self::RemovePlan => update.remove(Org::PLAN),
            Self::AddSeats(by) => update.increment(Org::SEATS, by),
            Self::SetSeats(v) => update.set(Org::SEATS, v),
        }
    }
}

/// Whether the library must refuse an org update before sending. `plan` is the one
/// source of `gsi1pk`, and `org`, the source of `gsi1sk`, is known from the key: every
/// update of `plan` can rebuild the index key (Regression: left stale).
fn org_update_refusal(actions: &[OrgAction]) -> Refusal {
    let mut seen = BTreeSet::new();
    let mut refusal = Refusal::No;
    for action in actions {
        if !seen.insert(action.attribute()) {
            return Refusal::Must;
        }
        if let OrgAction::Plan(plan) = action {
            refusal = values_refusal(None, Some(plan));
        }
    }
    refusal
}

/// Which version an update or a condition gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ver {
    /// `expect_version` with the stored version (0 when there is none).
    Read,
    /// `expect_version` with another version.
    Stale,
    /// `ignore_version()`.
    Ignore,
    /// Neither: refused before sending.
    Omit,
}

/// Which version a put's model holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PutVer {
    /// The stored version (0 when there is none): a read-modify-write.
    Read,
    /// 0: "there is no item yet".
    Fresh,
    /// Another version.
    Stale,
}

/// Which version a delete checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DelVer {
    Any,
    Read,
    Stale,
}

/// A version that is not `current`.
fn stale(current: u64) -> u64 {
    if current == u64::MAX {
        current - 1
    } else {
        current + 1
    }
}

/// A version call, resolved against the stored item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VersionCall {
    Expect(u64),
    Ignore,
    Omit,
}

impl VersionCall {
    fn of(world: &World, key: TKey, ver: Ver, upsert: bool) -> Self {
        let stored = world.tasks.get(&key).map(|e| e.model.version);
        match ver {
            // An upsert of a missing item has no version to expect.
            Ver::Read if upsert && stored.is_none() => Self::Ignore,
            Ver::Read => Self::Expect(stored.unwrap_or(0)),
            Ver::Stale => Self::Expect(stale(stored.unwrap_or(0))),
            Ver::Ignore => Self::Ignore,
            Ver::Omit => Self::Omit,
        }
    }

    fn of_delete(world: &World, key: TKey, ver: DelVer) -> Option<u64> {
        let stored = world.tasks.get(&key).map_or(0, |e| e.model.version);
        match ver {
            DelVer::Any => None,
            DelVer::Read => Some(stored),
            DelVer::Stale => Some(stale(stored)),
        }
    }
}

/// How a task update gives the stored `created_at`, the `read_only` source of `gsi4sk`
/// that an update of `category` (`gsi4pk`) needs to rebuild GSI4's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeySrc {
    /// Neither named nor read.
    Omit,
    /// `composite(Task::CREATED_AT, v)` with the stored value, or the run's start when
    /// the task has none (which its condition then refuses).
    Name,
    /// `composite` with a value no task holds.
    Wrong,
    /// `read_composite(true)`.
    Read,
}

impl KeySrc {
    /// The value `composite` names.
    fn named(self, world: &World, key: TKey) -> Option<DateTime<Utc>> {
        match self {
            Self::Name => Some(
                world
                    .task(key)
                    .and_then(|t| t.created_at)
                    .unwrap_or_else(start),
            ),
            Self::Wrong => Some(start() - Duration::days(1)),
            Self::Omit | Self::Read => None,
        }
    }

    /// Whether `composite` names a value.
    fn named_value(self) -> bool {
        matches!(self, Self::Name | Self::Wrong)
    }

    /// Whether the update reads what it lacks from the stored item: alone, not in a
    /// transaction.
    fn reads(self, alone: bool) -> bool {
        self == Self::Read && alone
    }

    fn apply(
        self,
        update: dynorm::item::UpdateItem<Task>,
        world: &World,
        key: TKey,
    ) -> dynorm::item::UpdateItem<Task> {
        match (self, self.named(world, key)) {
            (Self::Read, _) => update.read_composite(true),
            (_, Some(value)) => update.composite(Task::CREATED_AT, value),
            (_, None) => update,
        }
    }
}

/// A condition check of a task in a transaction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum TaskCheck {
    /// `version = v`, with the stored version or a stale one.
    Version(PutVer),
    Status(&'static str),
    /// A condition on the path `details.reviewer`.
    Reviewer(&'static str),
    /// `has_key`: the voter's entry of `details.votes` is there.
    Voted(&'static str),
}

// ---------------------------------------------------------------------------------------
// The steps.
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Op {
    CreateTask {
        key: TKey,
        fields: TaskFields,
        overwrite: bool,
    },
    PutTask {
        key: TKey,
        fields: TaskFields,
        ver: PutVer,
    },
    UpdateTask {
        key: TKey,
        actions: Vec<TaskAction>,
        ver: Ver,
        src: KeySrc,
    },
    UpsertTask {
        key: TKey,
        fields: TaskFields,
        ver: Ver,
        src: KeySrc,
    },
    DeleteTask {
        key: TKey,
        ver: DelVer,
        require_exists: bool,
        raw: bool,
    },
    /// Another writer stores the task at the largest version, raw.
    SeedMaxVersion {
        key: TKey,
        fields: TaskFields,
    },
    CreateOrg {
        key: OKey,
        fields: OrgFields,
        overwrite: bool,
    },
    /// `db.insert(NewOrg { .. })`: a create from the insert type, without generated fields.
    InsertOrg {
        key: OKey,
        fields: OrgFields,
    },
    PutOrg {
        key: OKey,
        fields: OrgFields,
    },
    /// A raw `PutItem` of the org in shape 1, as an older release wrote it: every read
    /// path reads it through the upcast, and an update of it is refused.
    PutOrgV1 {
        key: OKey,
        fields: OrgFields,
    },
    /// `update`, or `update_raw` with the key as stored (`raw`).
    UpdateOrg {
        key: OKey,
        actions: Vec<OrgAction>,
        raw: bool,
    },
    /// An upsert with any actions: refused before sending unless they set every required
    /// field (`name`, `seats`), since the item it may create must read back as an `Org`.
    UpsertOrgPartial {
        key: OKey,
        actions: Vec<OrgAction>,
    },
    UpsertOrg {
        key: OKey,
        fields: OrgFields,
    },
    DeleteOrg {
        key: OKey,
        require_exists: bool,
        raw: bool,
    },
    Batch(Vec<BatchOp>),
    Transaction(Vec<TxOp>),
    GetTask {
        key: TKey,
        raw: bool,
        include_expired: bool,
    },
    GetOrg {
        key: OKey,
        raw: bool,
    },
    GetMany(Vec<TKey>),
    TransactGet(Vec<ReadKey>),
    QueryStatus(&'static str),
    /// GSI5 by the computed slug of a title, with or without its `bool` sort-key part.
    QuerySlug(&'static str, Option<bool>),
    /// `query::<Task>()` without an index: the planner chooses one from the equalities
    /// (a status, and maybe an assignee).
    QueryChosen(&'static str, Option<&'static str>),
    QueryAssignee(&'static str),
    QueryPlan(&'static str),
    ScanTasks {
        include_expired: bool,
    },
    Collection(OKey),
    /// `find::<Org>().with(Org::tasks())`: one Query of the shared partition, or with
    /// a per-parent limit, a Query of its own.
    FindOrg {
        key: OKey,
        limit: Option<usize>,
    },
    /// `find::<Task>().with(Task::owner())` by org (the owner shares the tasks'
    /// partition) or by assignee (through GSI2, the owners by BatchGetItem); with a
    /// budget, page by page until the end, no page passing it.
    FindTasks {
        roots: TaskRoots,
        budget: Option<f64>,
    },
}

/// The roots of a `FindTasks` step.
#[derive(Clone, Copy, Debug)]
enum TaskRoots {
    Org(OKey),
    Assignee(&'static str),
}

#[derive(Clone, Debug)]
enum BatchOp {
    PutOrg(OKey, OrgFields),
    DeleteOrg(OKey),
    DeleteTask(TKey),
    /// Refused: a batch cannot check a `#[version]`.
    PutTask(TKey, TaskFields),
}

#[derive(Clone, Debug)]
enum TxOp {
    CreateTask(TKey, TaskFields),
    PutTask(TKey, TaskFields, PutVer),
    UpdateTask(TKey, Vec<TaskAction>, Ver, KeySrc),
    DeleteTask(TKey, DelVer),
    CheckTask(TKey, TaskCheck),
    CreateOrg(OKey, OrgFields),
    PutOrg(OKey, OrgFields),
    UpdateOrg(OKey, Vec<OrgAction>),
    DeleteOrg(OKey),
    /// `name` exists (true) or does not.
    CheckOrg(OKey, bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum ReadKey {
    Task(TKey),
    Org(OKey),
}

#[derive(PartialEq, Eq)]
enum OpKind {
    Read,
    Write,
}

impl Op {
    fn kind(&self) -> OpKind {
        match self {
            Self::GetTask { .. }
            | Self::GetOrg { .. }
            | Self::GetMany(_)
            | Self::TransactGet(_)
            | Self::QueryStatus(_)
            | Self::QuerySlug(..)
            | Self::QueryChosen(..)
            | Self::QueryAssignee(_)
            | Self::QueryPlan(_)
            | Self::ScanTasks { .. }
            | Self::Collection(_)
            | Self::FindOrg { .. }
            | Self::FindTasks { .. } => OpKind::Read,
            _ => OpKind::Write,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Strategies.
// ---------------------------------------------------------------------------------------

/// One of the twelve task keys, often one of three hot ones, so that steps collide.
fn tkey() -> impl Strategy<Value = TKey> {
    let any = (0..ORGS.len() as u8, 0..IDS.len() as u8).prop_map(|(org, id)| TKey { org, id });
    let hot = select(&[(0, 0), (0, 1), (1, 0)][..]).prop_map(|(org, id)| TKey { org, id });
    prop_oneof![1 => hot, 1 => any]
}

fn okey() -> impl Strategy<Value = OKey> {
    (0..ORGS.len() as u8).prop_map(OKey)
}

fn expiry() -> impl Strategy<Value = Option<Expiry>> {
    prop_oneof![
        5 => Just(None),
        2 => Just(Some(Expiry::Future)),
        3 => Just(Some(Expiry::Past)),
    ]
}

fn assignee() -> impl Strategy<Value = &'static str> {
    prop_oneof![8 => select(&PEOPLE[..]), 1 => Just(EMPTY)]
}

fn category() -> impl Strategy<Value = &'static str> {
    prop_oneof![8 => select(&CATEGORIES[..]), 1 => Just(BAD_CATEGORY)]
}

fn task_fields() -> impl Strategy<Value = TaskFields> {
    (
        select(&STATUSES[..]),
        select(&DUES[..]),
        0..3u32,
        prop_oneof![1 => Just(None), 1 => assignee().prop_map(Some)],
        category(),
        select(&TITLES[..]),
        0..3i64,
        proptest::option::of(select(&NOTES[..])),
        expiry(),
    )
        .prop_map(
            |(status, due, priority, assignee, category, title, views, note, expires)| TaskFields {
                status,
                due,
                priority,
                assignee,
                category,
                title,
                views,
                note,
                expires,
            },
        )
}

fn org_fields() -> impl Strategy<Value = OrgFields> {
    (
        select(&NAMES[..]),
        prop_oneof![
            3 => Just(None),
            4 => select(&PLANS[..]).prop_map(Some),
            1 => Just(Some(EMPTY)),
        ],
        0..5u32,
    )
        .prop_map(|(name, plan, seats)| OrgFields { name, plan, seats })
}

fn task_action() -> impl Strategy<Value = TaskAction> {
    prop_oneof![
        3 => select(&STATUSES[..]).prop_map(TaskAction::Status),
        2 => select(&DUES[..]).prop_map(TaskAction::Due),
        1 => (0..3u32).prop_map(TaskAction::Priority),
        1 => Just(TaskAction::BumpPriority),
        3 => assignee().prop_map(TaskAction::Assignee),
        2 => Just(TaskAction::Unassign),
        1 => category().prop_map(TaskAction::Category),
        1 => select(&TITLES[..]).prop_map(TaskAction::Title),
        3 => (-2..=2i64).prop_map(TaskAction::Views),
        2 => select(&NOTES[..]).prop_map(TaskAction::Note),
        1 => Just(TaskAction::RemoveNote),
        2 => expiry().prop_map(|e| e.map_or(TaskAction::RemoveExpires, TaskAction::Expires)),
        1 => (select(&TITLES[..]), 0..3u32).prop_map(|(r, p)| TaskAction::Details(r, p)),
        2 => select(&TITLES[..]).prop_map(TaskAction::Reviewer),
        2 => Just(TaskAction::BumpPoints),
        2 => vote(),
        1 => select(&LABELS[..]).prop_map(TaskAction::Label),
        1 => select(&LABELS[..]).prop_map(TaskAction::Unlabel),
        1 => Just(TaskAction::DoubleViews),
        2 => any::<bool>().prop_map(TaskAction::Urgent),
    ]
}

/// A vote, or a voter's vote removed.
fn vote() -> impl Strategy<Value = TaskAction> {
    prop_oneof![
        3 => (select(&VOTERS[..]), 0..3u32).prop_map(|(voter, v)| TaskAction::Vote(voter, v)),
        1 => select(&VOTERS[..]).prop_map(TaskAction::Unvote),
    ]
}

/// An action that needs no key source: a vote, a label, or views doubled.
fn keyless() -> impl Strategy<Value = TaskAction> {
    prop_oneof![
        3 => vote(),
        2 => select(&LABELS[..]).prop_map(TaskAction::Label),
        1 => select(&LABELS[..]).prop_map(TaskAction::Unlabel),
        1 => Just(TaskAction::DoubleViews),
    ]
}

/// One to three actions, often a whole key's sources together.
fn task_actions() -> impl Strategy<Value = Vec<TaskAction>> {
    prop_oneof![
        4 => proptest::collection::vec(task_action(), 1..=3),
        2 => (select(&DUES[..]), 0..3u32)
            .prop_map(|(d, p)| vec![TaskAction::Due(d), TaskAction::Priority(p)]),
        2 => (category(), select(&TITLES[..]))
            .prop_map(|(c, t)| vec![TaskAction::Title(t), TaskAction::Category(c)]),
        1 => (select(&STATUSES[..]), select(&DUES[..]), 0..3u32, task_action()).prop_map(
            |(s, d, p, a)| vec![TaskAction::Status(s), TaskAction::Priority(p), TaskAction::Due(d), a]
        ),
    ]
}

fn org_actions() -> impl Strategy<Value = Vec<OrgAction>> {
    let action = prop_oneof![
        select(&NAMES[..]).prop_map(OrgAction::Name),
        prop_oneof![4 => select(&PLANS[..]), 1 => Just(EMPTY)].prop_map(OrgAction::Plan),
        Just(OrgAction::RemovePlan),
        (1..3u32).prop_map(OrgAction::AddSeats),
    ];
    proptest::collection::vec(action, 1..=2)
}

fn ver() -> impl Strategy<Value = Ver> {
    prop_oneof![
        6 => Just(Ver::Read),
        2 => Just(Ver::Stale),
        2 => Just(Ver::Ignore),
        1 => Just(Ver::Omit),
    ]
}

fn put_ver() -> impl Strategy<Value = PutVer> {
    prop_oneof![6 => Just(PutVer::Read), 2 => Just(PutVer::Fresh), 2 => Just(PutVer::Stale)]
}

fn del_ver() -> impl Strategy<Value = DelVer> {
    prop_oneof![Just(DelVer::Any), Just(DelVer::Read), Just(DelVer::Stale)]
}

/// How an update gives `created_at`, by weight; a wrong value once in every
/// `omit + name + read + 1`.
fn key_src(omit: u32, name: u32, read: u32) -> impl Strategy<Value = KeySrc> {
    prop_oneof![
        omit => Just(KeySrc::Omit),
        name => Just(KeySrc::Name),
        1 => Just(KeySrc::Wrong),
        read => Just(KeySrc::Read),
    ]
}

fn rarely() -> impl Strategy<Value = bool> {
    prop_oneof![3 => Just(false), 1 => Just(true)]
}

fn task_writes() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (tkey(), task_fields(), rarely())
            .prop_map(|(key, fields, overwrite)| Op::CreateTask { key, fields, overwrite }),
        3 => (tkey(), task_fields(), put_ver()).prop_map(|(key, fields, ver)| Op::PutTask { key, fields, ver }),
        6 => (tkey(), task_actions(), ver(), key_src(2, 3, 3))
            .prop_map(|(key, actions, ver, src)| Op::UpdateTask { key, actions, ver, src }),
        2 => (tkey(), task_fields(), ver(), key_src(1, 3, 3))
            .prop_map(|(key, fields, ver, src)| Op::UpsertTask { key, fields, ver, src }),
        // Actions that need no key source, alone: the entries of a map under keys chosen
        // at run time, a string set inside a map, and `views` plus its own stored value,
        // written often enough to be stored and read back.
        3 => (tkey(), proptest::collection::vec(keyless(), 1..=2)).prop_map(|(key, actions)| {
            Op::UpdateTask { key, actions, ver: Ver::Ignore, src: KeySrc::Omit }
        }),
        2 => (tkey(), del_ver(), any::<bool>(), any::<bool>()).prop_map(|(key, ver, require_exists, raw)| {
            Op::DeleteTask { key, ver, require_exists, raw }
        }),
        2 => (tkey(), task_fields()).prop_map(|(key, fields)| Op::SeedMaxVersion { key, fields }),
    ]
}

fn org_writes() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (okey(), org_fields(), rarely())
            .prop_map(|(key, fields, overwrite)| Op::CreateOrg { key, fields, overwrite }),
        1 => (okey(), org_fields()).prop_map(|(key, fields)| Op::PutOrg { key, fields }),
        1 => (okey(), org_fields().prop_filter("a stored key", |f| f.plan != Some(EMPTY)))
            .prop_map(|(key, fields)| Op::PutOrgV1 { key, fields }),
        1 => (okey(), org_fields()).prop_map(|(key, fields)| Op::InsertOrg { key, fields }),
        2 => (okey(), org_actions(), any::<bool>())
            .prop_map(|(key, actions, raw)| Op::UpdateOrg { key, actions, raw }),
        1 => (okey(), org_fields()).prop_map(|(key, fields)| Op::UpsertOrg { key, fields }),
        1 => (okey(), org_actions()).prop_map(|(key, actions)| Op::UpsertOrgPartial { key, actions }),
        1 => (okey(), any::<bool>(), any::<bool>())
            .prop_map(|(key, require_exists, raw)| Op::DeleteOrg { key, require_exists, raw }),
    ]
}

fn batch_op() -> impl Strategy<Value = BatchOp> {
    prop_oneof![
        4 => (okey(), org_fields()).prop_map(|(k, f)| BatchOp::PutOrg(k, f)),
        2 => okey().prop_map(BatchOp::DeleteOrg),
        3 => tkey().prop_map(BatchOp::DeleteTask),
        1 => (tkey(), task_fields()).prop_map(|(k, f)| BatchOp::PutTask(k, f)),
    ]
}

fn tx_op() -> impl Strategy<Value = TxOp> {
    prop_oneof![
        3 => (tkey(), task_fields()).prop_map(|(k, f)| TxOp::CreateTask(k, f)),
        2 => (tkey(), task_fields(), put_ver()).prop_map(|(k, f, v)| TxOp::PutTask(k, f, v)),
        3 => (tkey(), task_actions(), ver(), key_src(2, 4, 1))
            .prop_map(|(k, a, v, src)| TxOp::UpdateTask(k, a, v, src)),
        2 => (tkey(), del_ver()).prop_map(|(k, v)| TxOp::DeleteTask(k, v)),
        2 => (tkey(), prop_oneof![
            Just(TaskCheck::Version(PutVer::Read)),
            Just(TaskCheck::Version(PutVer::Stale)),
            select(&STATUSES[..]).prop_map(TaskCheck::Status),
            select(&TITLES[..]).prop_map(TaskCheck::Reviewer),
            select(&VOTERS[..]).prop_map(TaskCheck::Voted),
        ]).prop_map(|(k, c)| TxOp::CheckTask(k, c)),
        2 => (okey(), org_fields()).prop_map(|(k, f)| TxOp::CreateOrg(k, f)),
        1 => (okey(), org_fields()).prop_map(|(k, f)| TxOp::PutOrg(k, f)),
        1 => (okey(), org_actions()).prop_map(|(k, a)| TxOp::UpdateOrg(k, a)),
        1 => okey().prop_map(TxOp::DeleteOrg),
        1 => (okey(), any::<bool>()).prop_map(|(k, e)| TxOp::CheckOrg(k, e)),
    ]
}

fn reads() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (tkey(), any::<bool>(), rarely())
            .prop_map(|(key, raw, include_expired)| Op::GetTask { key, raw, include_expired }),
        1 => (okey(), any::<bool>()).prop_map(|(key, raw)| Op::GetOrg { key, raw }),
        2 => proptest::collection::btree_set(tkey(), 1..=4)
            .prop_map(|keys| Op::GetMany(keys.into_iter().collect())),
        2 => proptest::collection::btree_set(
            prop_oneof![3 => tkey().prop_map(ReadKey::Task), 1 => okey().prop_map(ReadKey::Org)],
            1..=4,
        )
        .prop_map(|keys| Op::TransactGet(keys.into_iter().collect())),
        2 => select(&STATUSES[..]).prop_map(Op::QueryStatus),
        2 => (select(&TITLES[..]), proptest::option::of(any::<bool>()))
            .prop_map(|(title, urgent)| Op::QuerySlug(title, urgent)),
        1 => (select(&STATUSES[..]), proptest::option::of(select(&PEOPLE[..])))
            .prop_map(|(status, person)| Op::QueryChosen(status, person)),
        2 => select(&PEOPLE[..]).prop_map(Op::QueryAssignee),
        1 => select(&PLANS[..]).prop_map(Op::QueryPlan),
        1 => rarely().prop_map(|include_expired| Op::ScanTasks { include_expired }),
        2 => okey().prop_map(Op::Collection),
        2 => (okey(), proptest::option::weighted(0.3, 1..=2usize))
            .prop_map(|(key, limit)| Op::FindOrg { key, limit }),
        2 => (
            prop_oneof![
                okey().prop_map(TaskRoots::Org),
                select(&PEOPLE[..]).prop_map(TaskRoots::Assignee),
            ],
            proptest::option::weighted(0.4, prop_oneof![Just(2.0), Just(3.5), Just(10.0)]),
        )
            .prop_map(|(roots, budget)| Op::FindTasks { roots, budget }),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => task_writes(),
        4 => org_writes(),
        2 => proptest::collection::vec(batch_op(), 1..=4).prop_map(Op::Batch),
        3 => proptest::collection::vec(tx_op(), 1..=4).prop_map(Op::Transaction),
        6 => reads(),
    ]
}

// ---------------------------------------------------------------------------------------
// The oracle.
// ---------------------------------------------------------------------------------------

/// What the table must hold: every item, as it decodes.
#[derive(Clone, Debug, Default)]
struct World {
    tasks: BTreeMap<TKey, Entry<Task>>,
    orgs: BTreeMap<OKey, Entry<Org>>,
    /// Orgs stored in shape 1 (`Op::PutOrgV1`) and not written whole since.
    old_orgs: BTreeSet<OKey>,
}

/// An item, and what its last write generated that the oracle learns from the server.
#[derive(Clone, Debug)]
struct Entry<M> {
    model: M,
    fresh: Option<Fresh>,
}

/// Written in this step: `updated_at` must lie in the step, and the generated fields
/// follow their rules.
#[derive(Clone, Copy, Debug)]
struct Fresh {
    since: DateTime<Utc>,
    created_at: Gen,
    token: Gen,
}

/// What a write does to a `default` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gen {
    /// Kept as the oracle has it.
    Keep,
    /// Generated now.
    Must,
    /// Not decided (a `put`, an `upsert` of a new item, an update of an item
    /// that has none): absent, or generated now.
    May,
}

/// What a whole-item write does to a `default` field: keeps a value the model holds.
fn generated(present: bool, otherwise: Gen) -> Gen {
    if present {
        Gen::Keep
    } else {
        otherwise
    }
}

impl Gen {
    fn keep_if(present: bool) -> Self {
        if present {
            Self::Keep
        } else {
            Self::May
        }
    }
}

/// How a write's conditions see an expired item that DynamoDB still holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sem {
    /// As present, as DynamoDB's conditions see it.
    Physical,
    /// As absent, as reads see it.
    Logical,
}

/// One item written or deleted.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
enum Change {
    Task(TKey, Option<Entry<Task>>),
    Org(OKey, Option<Entry<Org>>),
    /// An org stored in shape 1.
    OldOrg(OKey, Entry<Org>),
}

/// A write's result by the oracle: the changes if it may succeed, and the errors it may
/// fail with instead, changing nothing.
struct Eval {
    ok: Option<Vec<Change>>,
    errs: Vec<ErrorKind>,
}

fn done(changes: Vec<Change>) -> Eval {
    Eval {
        ok: Some(changes),
        errs: Vec::new(),
    }
}

impl Eval {
    /// The same, or a refusal before sending.
    fn or_refused_if(mut self, refusal: Refusal) -> Self {
        if refusal == Refusal::May {
            self.errs.push(VALIDATION);
        }
        self
    }
}

/// What a write may do: succeed with one of these worlds, or fail with one of these
/// kinds, changing nothing.
struct Outcome {
    oks: Vec<World>,
    errs: Vec<ErrorKind>,
}

impl Outcome {
    fn describe(&self) -> String {
        match (self.oks.is_empty(), self.errs.is_empty()) {
            (true, _) => format!("{:?}", self.errs),
            (false, true) => "success".to_owned(),
            (false, false) => format!("success or {:?}", self.errs),
        }
    }
}

impl World {
    fn task(&self, key: TKey) -> Option<&Task> {
        self.tasks.get(&key).map(|e| &e.model)
    }

    /// The task as a write's conditions see it.
    fn seen_task(&self, key: TKey, sem: Sem) -> Option<&Task> {
        self.task(key)
            .filter(|t| sem == Sem::Physical || !expired(t))
    }

    /// The task as reads see it by default.
    fn live_task(&self, key: TKey) -> Option<&Task> {
        self.seen_task(key, Sem::Logical)
    }

    fn org(&self, key: OKey) -> Option<&Org> {
        self.orgs.get(&key).map(|e| &e.model)
    }

    fn apply(&self, changes: Vec<Change>) -> World {
        let mut world = self.clone();
        for change in changes {
            match change {
                Change::Task(key, Some(entry)) => {
                    world.tasks.insert(key, entry);
                }
                Change::Task(key, None) => {
                    world.tasks.remove(&key);
                }
                Change::Org(key, Some(entry)) => {
                    world.old_orgs.remove(&key);
                    world.orgs.insert(key, entry);
                }
                Change::Org(key, None) => {
                    world.old_orgs.remove(&key);
                    world.orgs.remove(&key);
                }
                Change::OldOrg(key, entry) => {
                    world.old_orgs.insert(key);
                    world.orgs.insert(key, entry);
                }
            }
        }
        world
    }
}

const VALIDATION: ErrorKind = ErrorKind::Validation;

fn refused(kinds: &[ErrorKind]) -> Eval {
    Eval {
        ok: None,
        errs: kinds.to_vec(),
    }
}

/// The outcome of a write: under both readings of expired items, which agree unless the
/// write is aimed at one.
fn expect(world: &World, op: &Op, since: DateTime<Utc>) -> Outcome {
    let mut outcome = Outcome {
        oks: Vec::new(),
        errs: Vec::new(),
    };
    for sem in [Sem::Logical, Sem::Physical] {
        let result = eval(world, op, sem, since);
        outcome
            .oks
            .extend(result.ok.map(|changes| world.apply(changes)));
        outcome.errs.extend(result.errs);
    }
    outcome
}

fn eval(world: &World, op: &Op, sem: Sem, since: DateTime<Utc>) -> Eval {
    match op {
        Op::CreateTask {
            key,
            fields,
            overwrite,
        } => create_task(world, *key, fields, *overwrite, sem, since),
        Op::PutTask { key, fields, ver } => put_task(
            world,
            *key,
            &put_model(world, *key, fields, *ver),
            sem,
            since,
            Gen::Keep,
        ),
        Op::UpdateTask {
            key,
            actions,
            ver,
            src,
        } => {
            let call = VersionCall::of(world, *key, *ver, false);
            let how = How::alone(*src);
            update_task(world, *key, actions, call, None, how, sem, since)
        }
        Op::UpsertTask {
            key,
            fields,
            ver,
            src,
        } => {
            let call = VersionCall::of(world, *key, *ver, true);
            let actions = fields.upsert_actions();
            let how = How::alone(*src);
            update_task(world, *key, &actions, call, Some(fields), how, sem, since)
        }
        Op::DeleteTask {
            key,
            ver,
            require_exists,
            ..
        } => {
            let call = VersionCall::of_delete(world, *key, *ver);
            delete_task(world, *key, call, *require_exists, sem)
        }
        Op::SeedMaxVersion { key, fields } => done(vec![Change::Task(
            *key,
            Some(Entry {
                model: seed_model(*key, fields),
                fresh: None,
            }),
        )]),
        Op::CreateOrg {
            key,
            fields,
            overwrite,
        } => create_org(world, *key, fields, *overwrite, since),
        Op::InsertOrg { key, fields } => create_org(world, *key, fields, false, since),
        Op::PutOrg { key, fields } => put_org(*key, fields, since),
        Op::PutOrgV1 { key, fields } => done(vec![Change::OldOrg(
            *key,
            Entry {
                model: fields.org(*key),
                fresh: None,
            },
        )]),
        Op::UpdateOrg { key, actions, .. } => update_org(world, *key, actions, false, since),
        Op::UpsertOrg { key, fields } => {
            update_org(world, *key, &fields.upsert_actions(), true, since)
        }
        Op::UpsertOrgPartial { key, actions } => {
            let name = actions.iter().any(|a| matches!(a, OrgAction::Name(_)));
            let seats = actions
                .iter()
                .any(|a| matches!(a, OrgAction::AddSeats(_) | OrgAction::SetSeats(_)));
            if !(name && seats) {
                // Regression: such an upsert created an org its own model could not read.
                return refused(&[VALIDATION]);
            }
            update_org(world, *key, actions, true, since)
        }
        Op::DeleteOrg {
            key,
            require_exists,
            ..
        } => {
            if *require_exists && world.org(*key).is_none() {
                return refused(&[ErrorKind::NotFound]);
            }
            done(vec![Change::Org(*key, None)])
        }
        Op::Batch(ops) => batch(ops, since),
        Op::Transaction(ops) => transaction(world, ops, sem, since),
        _ => unreachable!("reads are not evaluated as writes"),
    }
}

fn fresh_task(since: DateTime<Utc>, created_at: Gen, token: Gen) -> Option<Fresh> {
    Some(Fresh {
        since,
        created_at,
        token,
    })
}

fn create_task(
    world: &World,
    key: TKey,
    fields: &TaskFields,
    overwrite: bool,
    sem: Sem,
    since: DateTime<Utc>,
) -> Eval {
    if overwrite {
        // With a `#[version]`, `overwrite(true)` is not unconditional, whatever the guide's
        // example suggests: it checks the version the model holds, as `put` does (an
        // unconditional write could not keep invariant 3). The model holds the version read.
        let model = create_model(world, key, fields, true);
        return put_task(world, key, &model, sem, since, Gen::Must);
    }
    match fields.refusal() {
        Refusal::Must => refused(&[VALIDATION]),
        refusal => create_task_sent(world, key, fields, since).or_refused_if(refusal),
    }
}

fn create_task_sent(world: &World, key: TKey, fields: &TaskFields, since: DateTime<Utc>) -> Eval {
    // Regression: `create` over an expired item that DynamoDB still holds failed with
    // AlreadyExists; it must see the item as absent, whatever `Sem` says.
    if world.live_task(key).is_some() {
        return refused(&[ErrorKind::AlreadyExists]);
    }
    done(vec![Change::Task(
        key,
        Some(Entry {
            model: noted(fields.task(key, 1, None)),
            fresh: fresh_task(since, Gen::Must, Gen::Must),
        }),
    )])
}

/// A task as a whole-item write stores it: without a note, with the literal default.
fn noted(mut task: Task) -> Task {
    if task.note.is_none() {
        task.note = Some(NOTE_DEFAULT.into());
    }
    task
}

/// The model a put is given: the fields, at the chosen version, with the generated
/// fields of the stored item (a read-modify-write).
fn put_model(world: &World, key: TKey, fields: &TaskFields, ver: PutVer) -> Task {
    let stored = world.task(key);
    let current = stored.map_or(0, |t| t.version);
    let version = match ver {
        PutVer::Read => current,
        PutVer::Fresh => 0,
        PutVer::Stale => stale(current),
    };
    fields.task(key, version, stored)
}

/// A put of `model`; `generates` says what it does to the `default` fields it lacks
/// (`create` fills them in, a `put` is not decided).
fn put_task(
    world: &World,
    key: TKey,
    model: &Task,
    sem: Sem,
    since: DateTime<Utc>,
    generates: Gen,
) -> Eval {
    match values_refusal(Some(&model.category), model.assignee.as_deref()) {
        Refusal::Must => refused(&[VALIDATION]),
        refusal => put_task_sent(world, key, model, sem, since, generates).or_refused_if(refusal),
    }
}

fn put_task_sent(
    world: &World,
    key: TKey,
    model: &Task,
    sem: Sem,
    since: DateTime<Utc>,
    generates: Gen,
) -> Eval {
    // Regression: a put at the largest version overflowed (a panic in debug builds); it
    // must be refused before sending.
    if model.version == u64::MAX {
        return refused(&[VALIDATION]);
    }
    match (world.seen_task(key, sem), model.version) {
        (None, 0) => {}
        (None, _) => return refused(&[ErrorKind::VersionConflict]),
        (Some(_), 0) => return refused(&[ErrorKind::AlreadyExists, ErrorKind::VersionConflict]),
        (Some(stored), v) if stored.version == v => {}
        (Some(_), _) => return refused(&[ErrorKind::VersionConflict]),
    }
    let mut stored = noted(model.clone());
    stored.version = model.version + 1;
    done(vec![Change::Task(
        key,
        Some(Entry {
            fresh: fresh_task(
                since,
                generated(stored.created_at.is_some(), generates),
                generated(stored.token.is_some(), generates),
            ),
            model: stored,
        }),
    )])
}

/// How an update is sent: how it gives `created_at`, and whether alone or in a
/// transaction.
#[derive(Clone, Copy)]
struct How {
    src: KeySrc,
    alone: bool,
}

impl How {
    fn alone(src: KeySrc) -> Self {
        Self { src, alone: true }
    }
}

/// An update (`upsert` holds the fields of an upsert, whose actions write them all).
#[allow(clippy::too_many_arguments)]
fn update_task(
    world: &World,
    key: TKey,
    actions: &[TaskAction],
    call: VersionCall,
    upsert: Option<&TaskFields>,
    how: How,
    sem: Sem,
    since: DateTime<Utc>,
) -> Eval {
    let refusal = task_update_refusal(actions, how.src, how.alone);
    if refusal == Refusal::Must || call == VersionCall::Omit {
        return refused(&[VALIDATION]);
    }
    update_task_sent(world, key, actions, call, upsert, how.src, sem, since).or_refused_if(refusal)
}

/// An update that is sent. A `created_at` it names is required by its condition: a task
/// that does not hold it fails it (Regression: a wrong value would store a stale key).
#[allow(clippy::too_many_arguments)]
fn update_task_sent(
    world: &World,
    key: TKey,
    actions: &[TaskAction],
    call: VersionCall,
    upsert: Option<&TaskFields>,
    src: KeySrc,
    sem: Sem,
    since: DateTime<Utc>,
) -> Eval {
    let named = src.named(world, key);
    let Some(stored) = world.seen_task(key, sem) else {
        let Some(fields) = upsert else {
            return refused(&[ErrorKind::NotFound]);
        };
        if let VersionCall::Expect(_) = call {
            return refused(&[ErrorKind::VersionConflict]);
        }
        if named.is_some() {
            // No item holds the value named.
            return refused(&[ErrorKind::ConditionFailed]);
        }
        // Regression: an upsert of a new single-table item wrote no entity name (and, as
        // any update, no GSI keys); the new item must be whole, as `create` writes it.
        return done(vec![Change::Task(
            key,
            Some(Entry {
                model: fields.task(key, 1, None),
                fresh: fresh_task(since, Gen::May, Gen::May),
            }),
        )]);
    };
    match call {
        VersionCall::Expect(v) if v != stored.version => {
            return refused(&[ErrorKind::VersionConflict])
        }
        // Regression: an update at the largest version stored a version that no longer
        // fits the field; it must be refused (how is not decided when the version is
        // ignored).
        VersionCall::Expect(_) if stored.version == u64::MAX => return refused(&[VALIDATION]),
        VersionCall::Ignore if stored.version == u64::MAX => {
            return refused(&[
                VALIDATION,
                ErrorKind::ConditionFailed,
                ErrorKind::VersionConflict,
            ])
        }
        _ => {}
    }
    if named.is_some() && named != stored.created_at {
        return refused(&[ErrorKind::ConditionFailed]);
    }
    let mut task = stored.clone();
    for action in actions {
        action.apply(&mut task);
    }
    task.version += 1;
    let fresh = fresh_task(
        since,
        Gen::keep_if(task.created_at.is_some()),
        Gen::keep_if(task.token.is_some()),
    );
    done(vec![Change::Task(key, Some(Entry { model: task, fresh }))])
}

fn delete_task(
    world: &World,
    key: TKey,
    expect: Option<u64>,
    require_exists: bool,
    sem: Sem,
) -> Eval {
    match world.seen_task(key, sem) {
        None if require_exists => refused(&[ErrorKind::NotFound]),
        None if expect.is_some() => refused(&[ErrorKind::VersionConflict]),
        Some(stored) if expect.is_some_and(|v| v != stored.version) => {
            refused(&[ErrorKind::VersionConflict])
        }
        _ => done(vec![Change::Task(key, None)]),
    }
}

/// The task another writer stores at the largest version, whole and exact.
fn seed_model(key: TKey, fields: &TaskFields) -> Task {
    let mut fields = fields.clone();
    if fields.category == BAD_CATEGORY {
        fields.category = CATEGORIES[0];
    }
    if fields.assignee == Some(EMPTY) {
        fields.assignee = None;
    }
    let mut task = fields.task(key, u64::MAX, None);
    task.created_at = Some(start());
    task.updated_at = Some(start());
    task.token = Some("0190a000-0000-7000-8000-000000000000".into());
    task
}

fn create_org(
    world: &World,
    key: OKey,
    fields: &OrgFields,
    overwrite: bool,
    since: DateTime<Utc>,
) -> Eval {
    if !overwrite && world.org(key).is_some() {
        return match fields.refusal() {
            Refusal::Must => refused(&[VALIDATION]),
            refusal => refused(&[ErrorKind::AlreadyExists]).or_refused_if(refusal),
        };
    }
    put_org(key, fields, since)
}

fn put_org(key: OKey, fields: &OrgFields, since: DateTime<Utc>) -> Eval {
    let refusal = fields.refusal();
    if refusal == Refusal::Must {
        return refused(&[VALIDATION]);
    }
    let mut org = fields.org(key);
    org.tier = Some(TIER_DEFAULT.into());
    done(vec![Change::Org(
        key,
        Some(Entry {
            model: org,
            fresh: fresh_task(since, Gen::Keep, Gen::Keep),
        }),
    )])
    .or_refused_if(refusal)
}

fn update_org(
    world: &World,
    key: OKey,
    actions: &[OrgAction],
    upsert: bool,
    since: DateTime<Utc>,
) -> Eval {
    let refusal = org_update_refusal(actions);
    if refusal == Refusal::Must {
        return refused(&[VALIDATION]);
    }
    update_org_sent(world, key, actions, upsert, since).or_refused_if(refusal)
}

fn update_org_sent(
    world: &World,
    key: OKey,
    actions: &[OrgAction],
    upsert: bool,
    since: DateTime<Utc>,
) -> Eval {
    let old = world.org(key).is_some() && world.old_orgs.contains(&key);
    if old {
        // An org in shape 1 holds no `seats` (its `seat_text` stands for them), and an
        // upsert could mark it as the current shape: both are refused. Other updates
        // leave it in shape 1, which reads what they wrote.
        let seats = actions.iter().any(|a| a.attribute() == "seats");
        if upsert || seats {
            return refused(&[ErrorKind::ConditionFailed]);
        }
    }
    let mut org = match world.org(key) {
        Some(org) => org.clone(),
        // An upsert that creates the org fills its literal default, which no action sets.
        None if upsert => Org {
            org: key.name().into(),
            name: String::new(),
            plan: None,
            seats: 0,
            tier: Some(TIER_DEFAULT.into()),
            updated_at: None,
        },
        None => return refused(&[ErrorKind::NotFound]),
    };
    for action in actions {
        action.apply(&mut org);
    }
    if old {
        // Shape 1 has no `updated_at`: its upcast reads none.
        org.updated_at = None;
        let entry = Entry {
            model: org,
            fresh: None,
        };
        return done(vec![Change::OldOrg(key, entry)]);
    }
    done(vec![Change::Org(
        key,
        Some(Entry {
            model: org,
            fresh: fresh_task(since, Gen::Keep, Gen::Keep),
        }),
    )])
}

fn batch(ops: &[BatchOp], since: DateTime<Utc>) -> Eval {
    let mut may_refuse = false;
    let mut keys = BTreeSet::new();
    let mut changes = Vec::new();
    for op in ops {
        let key = match op {
            BatchOp::PutOrg(key, fields) => {
                match put_org(*key, fields, since) {
                    Eval {
                        ok: Some(put),
                        errs,
                    } => {
                        changes.extend(put);
                        may_refuse |= !errs.is_empty();
                    }
                    refusal => return refusal,
                }
                ReadKey::Org(*key)
            }
            BatchOp::DeleteOrg(key) => {
                changes.push(Change::Org(*key, None));
                ReadKey::Org(*key)
            }
            BatchOp::DeleteTask(key) => {
                changes.push(Change::Task(*key, None));
                ReadKey::Task(*key)
            }
            // A batch cannot check a version, so it refuses versioned models.
            BatchOp::PutTask(..) => return refused(&[VALIDATION]),
        };
        if !keys.insert(key) {
            return refused(&[VALIDATION]); // a key written twice
        }
    }
    let refusal = if may_refuse {
        Refusal::May
    } else {
        Refusal::No
    };
    done(changes).or_refused_if(refusal)
}

/// One operation of a transaction, evaluated alone against the world before it.
fn eval_tx_op(world: &World, op: &TxOp, sem: Sem, since: DateTime<Utc>) -> (ReadKey, Eval) {
    match op {
        TxOp::CreateTask(key, fields) => (
            ReadKey::Task(*key),
            create_task(world, *key, fields, false, sem, since),
        ),
        TxOp::PutTask(key, fields, ver) => (
            ReadKey::Task(*key),
            put_task(
                world,
                *key,
                &put_model(world, *key, fields, *ver),
                sem,
                since,
                Gen::Keep,
            ),
        ),
        TxOp::UpdateTask(key, actions, ver, src) => {
            let call = VersionCall::of(world, *key, *ver, false);
            let how = How {
                src: *src,
                alone: false,
            };
            (
                ReadKey::Task(*key),
                update_task(world, *key, actions, call, None, how, sem, since),
            )
        }
        TxOp::DeleteTask(key, ver) => {
            let call = VersionCall::of_delete(world, *key, *ver);
            (
                ReadKey::Task(*key),
                delete_task(world, *key, call, false, sem),
            )
        }
        TxOp::CheckTask(key, check) => {
            let seen = world.seen_task(*key, sem);
            let holds = match check {
                TaskCheck::Version(ver) => {
                    let expected = check_version(world, *key, *ver);
                    seen.is_some_and(|t| t.version == expected)
                }
                TaskCheck::Status(status) => seen.is_some_and(|t| t.status == *status),
                TaskCheck::Reviewer(reviewer) => {
                    seen.is_some_and(|t| t.details.reviewer == *reviewer)
                }
                TaskCheck::Voted(voter) => {
                    seen.is_some_and(|t| t.details.votes.contains_key(*voter))
                }
            };
            let result = if holds {
                done(Vec::new())
            } else {
                refused(&[ErrorKind::ConditionFailed])
            };
            (ReadKey::Task(*key), result)
        }
        TxOp::CreateOrg(key, fields) => (
            ReadKey::Org(*key),
            create_org(world, *key, fields, false, since),
        ),
        TxOp::PutOrg(key, fields) => (ReadKey::Org(*key), put_org(*key, fields, since)),
        TxOp::UpdateOrg(key, actions) => (
            ReadKey::Org(*key),
            update_org(world, *key, actions, false, since),
        ),
        TxOp::DeleteOrg(key) => (ReadKey::Org(*key), done(vec![Change::Org(*key, None)])),
        TxOp::CheckOrg(key, exists) => {
            let result = if world.org(*key).is_some() == *exists {
                done(Vec::new())
            } else {
                refused(&[ErrorKind::ConditionFailed])
            };
            (ReadKey::Org(*key), result)
        }
    }
}

fn transaction(world: &World, ops: &[TxOp], sem: Sem, since: DateTime<Utc>) -> Eval {
    let mut keys = BTreeSet::new();
    let mut validation = false;
    let mut cancelled = false;
    let mut errs = Vec::new();
    let mut changes = Vec::new();
    for op in ops {
        let (key, result) = eval_tx_op(world, op, sem, since);
        if !keys.insert(key) {
            validation = true; // one item touched twice: refused before sending
        }
        match result.ok {
            Some(more) => changes.extend(more),
            None if result.errs == [VALIDATION] => validation = true,
            None => cancelled = true,
        }
        // Refused before sending, or cancelled by DynamoDB.
        errs.extend(result.errs.into_iter().map(|k| {
            if k == VALIDATION {
                VALIDATION
            } else {
                ErrorKind::TransactionCanceled
            }
        }));
    }
    if validation {
        refused(&[VALIDATION])
    } else if cancelled {
        Eval { ok: None, errs }
    } else {
        Eval {
            ok: Some(changes),
            errs,
        }
    }
}

/// The kinds each operation of a transaction may be cancelled with, under either reading
/// of expired items.
fn tx_reasons(world: &World, ops: &[TxOp], since: DateTime<Utc>) -> Vec<Vec<ErrorKind>> {
    ops.iter()
        .map(|op| {
            [Sem::Logical, Sem::Physical]
                .into_iter()
                .flat_map(|sem| eval_tx_op(world, op, sem, since).1.errs)
                .filter(|k| *k != VALIDATION)
                .collect()
        })
        .collect()
}

fn check_version(world: &World, key: TKey, ver: PutVer) -> u64 {
    let stored = world.task(key).map_or(0, |t| t.version);
    match ver {
        PutVer::Stale => stale(stored),
        _ => stored,
    }
}

// ---------------------------------------------------------------------------------------
// Running the steps on the server.
// ---------------------------------------------------------------------------------------

fn task_update(actions: &[TaskAction]) -> Update<Task> {
    actions
        .iter()
        .fold(Update::new(), |update, action| action.add_to(update))
}

fn org_update(actions: &[OrgAction]) -> Update<Org> {
    actions
        .iter()
        .fold(Update::new(), |update, action| action.add_to(update))
}

fn versioned<M: Model>(
    update: dynorm::item::UpdateItem<M>,
    call: VersionCall,
) -> dynorm::item::UpdateItem<M> {
    match call {
        VersionCall::Expect(v) => update.expect_version(v),
        VersionCall::Ignore => update.ignore_version(),
        VersionCall::Omit => update,
    }
}

/// A model for `create`: its generated fields empty, for the library to fill; with
/// `overwrite`, at the version read.
fn create_model(world: &World, key: TKey, fields: &TaskFields, overwrite: bool) -> Task {
    let version = match world.task(key) {
        Some(stored) if overwrite => stored.version,
        _ => 0,
    };
    fields.task(key, version, None)
}

async fn write(db: &Client, world: &World, op: &Op) -> Result<(), Error> {
    match op {
        Op::CreateTask {
            key,
            fields,
            overwrite,
        } => {
            db.create(&create_model(world, *key, fields, *overwrite))
                .overwrite(*overwrite)
                .send()
                .await
        }
        Op::PutTask { key, fields, ver } => {
            db.put(&put_model(world, *key, fields, *ver)).send().await
        }
        Op::UpdateTask {
            key,
            actions,
            ver,
            src,
        } => {
            let update = db.update::<Task>(key.typed()).apply(task_update(actions));
            let update = src.apply(update, world, *key);
            versioned(update, VersionCall::of(world, *key, *ver, false))
                .send()
                .await
        }
        Op::UpsertTask {
            key,
            fields,
            ver,
            src,
        } => {
            let update = db
                .update::<Task>(key.typed())
                .apply(task_update(&fields.upsert_actions()))
                .upsert();
            let update = src.apply(update, world, *key);
            versioned(update, VersionCall::of(world, *key, *ver, true))
                .send()
                .await
        }
        Op::DeleteTask {
            key,
            ver,
            require_exists,
            raw,
        } => {
            let mut delete = if *raw {
                dynorm::item::DeleteItem::<Task>::raw(db, key.raw())
            } else {
                db.delete::<Task>(key.typed())
            };
            delete = delete.require_exists(*require_exists);
            if let Some(v) = VersionCall::of_delete(world, *key, *ver) {
                delete = delete.expect_version(v);
            }
            delete.send().await
        }
        Op::SeedMaxVersion { key, fields } => {
            let item = seed_model(*key, fields).to_item()?;
            db.sdk()
                .put_item()
                .table_name(db.tables().name::<Task>())
                .set_item(Some(item))
                .send()
                .await
                .map(drop)
                .map_err(Error::service)
        }
        Op::CreateOrg {
            key,
            fields,
            overwrite,
        } => {
            db.create(&fields.org(*key))
                .overwrite(*overwrite)
                .send()
                .await
        }
        Op::InsertOrg { key, fields } => {
            let org = fields.org(*key);
            db.insert(NewOrg {
                org: org.org,
                name: org.name,
                plan: org.plan,
                seats: org.seats,
                tier: org.tier,
            })
            .send()
            .await
        }
        Op::PutOrg { key, fields } => db.put(&fields.org(*key)).send().await,
        Op::PutOrgV1 { key, fields } => {
            put_org_v1(db, &fields.org(*key)).await;
            Ok(())
        }
        Op::UpdateOrg { key, actions, raw } => {
            let update = if *raw {
                dynorm::item::UpdateItem::<Org>::raw(db, key.raw())
            } else {
                db.update::<Org>(key.name())
            };
            update.apply(org_update(actions)).send().await
        }
        Op::UpsertOrg { key, fields } => {
            db.update::<Org>(key.name())
                .apply(org_update(&fields.upsert_actions()))
                .upsert()
                .send()
                .await
        }
        Op::UpsertOrgPartial { key, actions } => {
            db.update::<Org>(key.name())
                .apply(org_update(actions))
                .upsert()
                .send()
                .await
        }
        Op::DeleteOrg {
            key,
            require_exists,
            raw,
        } => {
            let delete = if *raw {
                dynorm::item::DeleteItem::<Org>::raw(db, key.raw())
            } else {
                db.delete::<Org>(key.name())
            };
            delete.require_exists(*require_exists).send().await
        }
        Op::Batch(ops) => {
            let orgs: Vec<Option<Org>> = ops
                .iter()
                .map(|op| match op {
                    BatchOp::PutOrg(key, fields) => Some(fields.org(*key)),
                    _ => None,
                })
                .collect();
            let tasks: Vec<Option<Task>> = ops
                .iter()
                .map(|op| match op {
                    BatchOp::PutTask(key, fields) => Some(create_model(world, *key, fields, false)),
                    _ => None,
                })
                .collect();
            let mut batch = db.batch_write();
            for (i, op) in ops.iter().enumerate() {
                batch = match op {
                    BatchOp::PutOrg(..) => batch.put(orgs[i].as_ref().unwrap()),
                    BatchOp::PutTask(..) => batch.put(tasks[i].as_ref().unwrap()),
                    BatchOp::DeleteOrg(key) => batch.delete::<Org>(key.name()),
                    BatchOp::DeleteTask(key) => batch.delete::<Task>(key.typed()),
                };
            }
            batch.send().await.map(drop)
        }
        Op::Transaction(ops) => {
            let orgs: Vec<Option<Org>> = ops
                .iter()
                .map(|op| match op {
                    TxOp::CreateOrg(key, fields) | TxOp::PutOrg(key, fields) => {
                        Some(fields.org(*key))
                    }
                    _ => None,
                })
                .collect();
            let tasks: Vec<Option<Task>> = ops
                .iter()
                .map(|op| match op {
                    TxOp::CreateTask(key, fields) => Some(create_model(world, *key, fields, false)),
                    TxOp::PutTask(key, fields, ver) => Some(put_model(world, *key, fields, *ver)),
                    _ => None,
                })
                .collect();
            let mut tx = db.transact_write();
            for (i, op) in ops.iter().enumerate() {
                tx = match op {
                    TxOp::CreateTask(..) => tx.write(db.create(tasks[i].as_ref().unwrap())),
                    TxOp::PutTask(..) => tx.write(db.put(tasks[i].as_ref().unwrap())),
                    TxOp::UpdateTask(key, actions, ver, src) => {
                        let update = db.update::<Task>(key.typed()).apply(task_update(actions));
                        let update = src.apply(update, world, *key);
                        tx.write(versioned(update, VersionCall::of(world, *key, *ver, false)))
                    }
                    TxOp::DeleteTask(key, ver) => {
                        let mut delete = db.delete::<Task>(key.typed());
                        if let Some(v) = VersionCall::of_delete(world, *key, *ver) {
                            delete = delete.expect_version(v);
                        }
                        tx.write(delete)
                    }
                    TxOp::CheckTask(key, check) => {
                        let condition = match check {
                            TaskCheck::Version(ver) => {
                                Task::VERSION.eq(check_version(world, *key, *ver))
                            }
                            TaskCheck::Status(status) => Task::STATUS.eq(*status),
                            TaskCheck::Reviewer(reviewer) => {
                                Task::DETAILS.field::<String>("reviewer").eq(*reviewer)
                            }
                            TaskCheck::Voted(voter) => VOTES.has_key(*voter),
                        };
                        tx.check::<Task>(key.typed(), condition)
                    }
                    TxOp::CreateOrg(..) => tx.write(db.create(orgs[i].as_ref().unwrap())),
                    TxOp::PutOrg(..) => tx.write(db.put(orgs[i].as_ref().unwrap())),
                    TxOp::UpdateOrg(key, actions) => {
                        tx.write(db.update::<Org>(key.name()).apply(org_update(actions)))
                    }
                    TxOp::DeleteOrg(key) => tx.write(db.delete::<Org>(key.name())),
                    TxOp::CheckOrg(key, exists) => {
                        let condition = if *exists {
                            Org::NAME.exists()
                        } else {
                            Org::NAME.not_exists()
                        };
                        tx.check::<Org>(key.name(), condition)
                    }
                };
            }
            tx.send().await
        }
        _ => unreachable!("reads are not sent as writes"),
    }
}

/// Sorts tasks by key, for comparing sets of them.
fn by_key(mut tasks: Vec<Task>) -> Vec<Task> {
    tasks.sort_by(|a, b| (&a.org, &a.id).cmp(&(&b.org, &b.id)));
    tasks
}

fn same<T: fmt::Debug + PartialEq>(what: &str, found: T, expected: T) -> Result<(), String> {
    if found == expected {
        Ok(())
    } else {
        Err(format!(
            "read: {what} returned\n    {found:?}\nbut the oracle expected\n    {expected:?}"
        ))
    }
}

fn failed(what: &str) -> impl FnOnce(Error) -> String + '_ {
    move |e| format!("read: {what} failed: {e}")
}

/// Runs a read and compares it with the oracle. By default an expired item reads as
/// absent on every read path.
async fn read(db: &Client, world: &World, op: &Op) -> Result<(), String> {
    let live_tasks = || {
        world
            .tasks
            .keys()
            .filter_map(|k| world.live_task(*k).cloned())
    };
    match op {
        Op::GetTask {
            key,
            raw,
            include_expired,
        } => {
            let get = if *raw {
                dynorm::item::GetItem::<Task>::raw(db, key.raw())
            } else {
                db.get::<Task>(key.typed())
            };
            let found = get
                .include_expired(*include_expired)
                .consistent_read(true)
                .send()
                .await
                .map_err(failed("get"))?;
            let expected = if *include_expired {
                world.task(*key)
            } else {
                world.live_task(*key)
            };
            same("get", found.as_ref(), expected)
        }
        Op::GetOrg { key, raw } => {
            let get = if *raw {
                dynorm::item::GetItem::<Org>::raw(db, key.raw())
            } else {
                db.get::<Org>(key.name())
            };
            let found = get.send().await.map_err(failed("get"))?;
            same("get", found.as_ref(), world.org(*key))
        }
        Op::GetMany(keys) => {
            let found = db
                .get_many::<Task, _>(keys.iter().map(|k| k.typed()))
                .send()
                .await
                .map_err(failed("get_many"))?;
            // Regression: get_many returned expired items.
            let expected = keys
                .iter()
                .filter_map(|k| world.live_task(*k).cloned())
                .collect();
            same("get_many", by_key(found), by_key(expected))
        }
        Op::TransactGet(keys) => {
            let mut tx = db.transact_get();
            for key in keys {
                tx = match key {
                    ReadKey::Task(k) => tx.get::<Task>(k.typed()),
                    ReadKey::Org(k) => tx.get::<Org>(k.name()),
                };
            }
            let items = tx.send().await.map_err(failed("transact_get"))?;
            for (i, key) in keys.iter().enumerate() {
                match key {
                    // Regression: transact_get returned expired items.
                    ReadKey::Task(k) => same(
                        "transact_get",
                        items
                            .get::<Task>(i)
                            .map_err(failed("transact_get"))?
                            .as_ref(),
                        world.live_task(*k),
                    )?,
                    ReadKey::Org(k) => same(
                        "transact_get",
                        items
                            .get::<Org>(i)
                            .map_err(failed("transact_get"))?
                            .as_ref(),
                        world.org(*k),
                    )?,
                }
            }
            Ok(())
        }
        Op::QueryStatus(status) => {
            let found = db
                .query_by::<TaskGSI1>(*status)
                .all()
                .await
                .map_err(failed("query GSI1"))?;
            // GSI1 projects every attribute: hydrated, the query gives the same items in
            // the same order.
            let hydrated = db
                .query_by::<TaskGSI1>(*status)
                .hydrate()
                .all()
                .await
                .map_err(failed("hydrated query GSI1"))?;
            same("hydrated query GSI1", &hydrated, &found)?;
            let expected = live_tasks().filter(|t| t.status == *status).collect();
            same("query GSI1", by_key(found), by_key(expected))
        }
        Op::QuerySlug(title, urgent) => {
            let slug = slug_of(title);
            let query = db.query_by::<TaskGSI5>(slug.clone());
            let query = match urgent {
                Some(urgent) => query.matching(Task::URGENT.eq(*urgent)),
                None => query,
            };
            let found = query.all().await.map_err(failed("query GSI5"))?;
            let expected = live_tasks()
                .filter(|t| t.slug == slug && urgent.is_none_or(|u| t.urgent == u))
                .collect();
            same("query GSI5", by_key(found), by_key(expected))
        }
        Op::QueryChosen(status, person) => {
            let equalities = match person {
                Some(person) => Task::STATUS.eq(*status) & Task::ASSIGNEE.eq(*person),
                None => Task::STATUS.eq(*status),
            };
            let found = db
                .query::<Task>()
                .matching(equalities)
                .all()
                .await
                .map_err(failed("query choosing its index"))?;
            let expected = live_tasks()
                .filter(|t| {
                    t.status == *status && person.is_none_or(|p| t.assignee.as_deref() == Some(p))
                })
                .collect();
            same("query choosing its index", by_key(found), by_key(expected))
        }
        Op::QueryAssignee(person) => {
            let found = db
                .query_by::<TaskGSI2>(*person)
                .all()
                .await
                .map_err(failed("query GSI2"))?;
            let expected: Vec<Task> = live_tasks()
                .filter(|t| t.assignee.as_deref() == Some(*person))
                .collect();
            // The org leads GSI2's sort key: it goes into the key condition, not a filter.
            for org in ORGS {
                let found = db
                    .query_by::<TaskGSI2>(*person)
                    .matching(Task::ORG.eq(org))
                    .all()
                    .await
                    .map_err(failed("query GSI2 on a leading sort key field"))?;
                let expected = expected.iter().filter(|t| t.org == org).cloned().collect();
                same(
                    "query GSI2 on a leading sort key field",
                    by_key(found),
                    by_key(expected),
                )?;
            }
            same("query GSI2", by_key(found), by_key(expected))
        }
        Op::QueryPlan(plan) => {
            let mut found = db
                .query_by::<OrgGSI1>(*plan)
                .all()
                .await
                .map_err(failed("query GSI1 of orgs"))?;
            found.sort_by(|a, b| a.org.cmp(&b.org));
            let expected: Vec<Org> = world
                .orgs
                .values()
                .map(|e| e.model.clone())
                .filter(|o| o.plan.as_deref() == Some(*plan))
                .collect();
            same("query GSI1 of orgs", found, expected)
        }
        Op::ScanTasks { include_expired } => {
            let found = db
                .scan::<Task>()
                .include_expired(*include_expired)
                .consistent_read(true)
                .all()
                .await
                .map_err(failed("scan"))?;
            let expected = if *include_expired {
                world.tasks.values().map(|e| e.model.clone()).collect()
            } else {
                live_tasks().collect()
            };
            same("scan", by_key(found), by_key(expected))
        }
        Op::Collection(key) => {
            let tally = dynorm::observe::Tally::default();
            let found = db
                .collection::<OrgWithTasks>(key.name())
                .tally(&tally)
                .all()
                .await
                .map_err(failed("collection"))?;
            let mut rows: Vec<String> = Vec::new();
            for item in found {
                rows.push(match item {
                    OrgWithTasks::Org(org) => format!("{org:?}"),
                    OrgWithTasks::Task(task) => format!("{task:?}"),
                });
            }
            // In range key order: `#META` sorts before `TASK#...`. Regression: a
            // collection returned expired items.
            let mut expected: Vec<String> = world
                .org(*key)
                .map(|o| format!("{o:?}"))
                .into_iter()
                .collect();
            expected.extend(
                live_tasks()
                    .filter(|t| t.org == key.name())
                    .map(|t| format!("{t:?}")),
            );
            same("collection", rows, expected)?;
            same("collection skipped", tally.skipped(), 0)
        }
        Op::FindOrg { key, limit } => {
            let tasks = match limit {
                Some(limit) => Org::tasks().limit(u32::try_from(*limit).expect("small")),
                None => Org::tasks(),
            };
            let found = db
                .find::<Org>()
                .matching(Org::ORG.eq(key.name()))
                .with(tasks)
                .first()
                .await
                .map_err(failed("find org with tasks"))?;
            // The tasks in range key order (`TASK#<id>`), live ones only.
            let mut tasks: Vec<Task> = live_tasks().filter(|t| t.org == key.name()).collect();
            tasks.sort_by(|a, b| a.id.cmp(&b.id));
            tasks.truncate(limit.unwrap_or(usize::MAX));
            let expected = world.org(*key).map(|org| (org.clone(), tasks));
            same("find org with tasks", found, expected)
        }
        Op::FindTasks { roots, budget } => {
            let find = || {
                let find = db.find::<Task>().with(Task::owner());
                match roots {
                    TaskRoots::Org(key) => find.matching(Task::ORG.eq(key.name())),
                    TaskRoots::Assignee(person) => find.matching(Task::ASSIGNEE.eq(*person)),
                }
            };
            let mut expected: Vec<Task> = match roots {
                TaskRoots::Org(key) => live_tasks().filter(|t| t.org == key.name()).collect(),
                TaskRoots::Assignee(person) => live_tasks()
                    .filter(|t| t.assignee.as_deref() == Some(*person))
                    .collect(),
            };
            let mut found = match budget {
                None => find()
                    .all()
                    .await
                    .map_err(failed("find tasks with owner"))?,
                Some(units) => budgeted_pages(find, *units).await?,
            };
            found.sort_by(|(a, _), (b, _)| (&a.org, &a.id).cmp(&(&b.org, &b.id)));
            expected = by_key(expected);
            let expected: Vec<(Task, Option<Org>)> = expected
                .into_iter()
                .map(|t| {
                    let owner = world.orgs.iter().find(|(k, _)| k.name() == t.org);
                    (t, owner.map(|(_, e)| e.model.clone()))
                })
                .collect();
            same("find tasks with owner", found, expected)
        }
        _ => unreachable!("writes are not read"),
    }
}

/// Every page of a budgeted find, from the first to the last: each page's consumed
/// capacity within `units`, the pages' roots together.
async fn budgeted_pages<L>(
    find: impl Fn() -> dynorm::relation::Find<Task, L>,
    units: f64,
) -> Result<Vec<L::Joined>, String>
where
    L: dynorm::relation::Load<Task>,
{
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1000 {
        let tally = dynorm::observe::Tally::default();
        let page = find()
            .max_item_bytes(4096)
            .tally(&tally)
            .budget(units)
            .page(cursor.as_deref())
            .await
            .map_err(failed("budgeted find"))?;
        let spent = tally.consumed_capacity().map_or(0.0, |c| c.units);
        if spent > units {
            return Err(format!(
                "a budgeted find page spent {spent} of {units} units"
            ));
        }
        all.extend(page.items);
        cursor = page.cursor;
        if cursor.is_none() {
            return Ok(all);
        }
    }
    Err("a budgeted find did not end in 1000 pages".into())
}

// ---------------------------------------------------------------------------------------
// The checks of the whole table.
// ---------------------------------------------------------------------------------------

async fn raw_items(db: &Client) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let output = db
            .sdk()
            .scan()
            .table_name(db.tables().name::<Task>())
            .consistent_read(true)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .map_err(|e| format!("the raw scan failed: {e:?}"))?;
        items.extend(output.items.unwrap_or_default());
        match output.last_evaluated_key.filter(|k| !k.is_empty()) {
            Some(key) => start = Some(key),
            None => return Ok(items),
        }
    }
}

/// Stores `org` as shape 1 did: its keys and identity as today, its seats as text, and
/// no `__shape`.
async fn put_org_v1(db: &Client, org: &Org) {
    let mut item = org.to_item().expect("an org converts");
    item.remove("__shape");
    item.remove("updated_at");
    let seats = item.remove("seats").and_then(|s| s.as_n().ok().cloned());
    item.insert(
        "seat_text".into(),
        AttributeValue::S(seats.unwrap_or_default()),
    );
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Org>())
        .set_item(Some(item))
        .send()
        .await
        .expect("the raw put of a shape-1 org");
}

/// Deletes every item, raw, for the next case.
async fn clear(db: &Client) -> Result<(), String> {
    for item in raw_items(db).await? {
        let key: Item = ["pk", "sk"]
            .into_iter()
            .filter_map(|k| item.get(k).map(|v| (k.to_owned(), v.clone())))
            .collect();
        db.sdk()
            .delete_item()
            .table_name(db.tables().name::<Task>())
            .set_key(Some(key))
            .send()
            .await
            .map_err(|e| format!("clearing the table failed: {e:?}"))?;
    }
    Ok(())
}

/// A stored attribute's text, as a template or `#[combine]` renders it.
fn text(item: &Item, name: &str) -> Option<String> {
    match item.get(name) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        Some(AttributeValue::N(n)) => Some(n.clone()),
        _ => None,
    }
}

/// Invariants 1, 2 and 5 on one stored item, from its raw attributes alone.
fn check_item(item: &Item) -> Result<(), String> {
    let show = || format!("{:?}", BTreeMap::from_iter(item.iter()));
    let sk = text(item, "sk").ok_or_else(|| format!("an item without `sk`: {}", show()))?;
    let entity = if sk == "#META" {
        "org"
    } else if sk.starts_with("TASK#") {
        "task"
    } else {
        return Err(format!("an item of no entity: {}", show()));
    };
    let stored_entity = text(item, "__edb_e__");
    let stored_version = text(item, "__edb_v__");
    if stored_entity.as_deref() != Some(entity) || stored_version.as_deref() != Some("1") {
        return Err(format!(
            "invariant 2: the identity is {stored_entity:?} version {stored_version:?}, not {entity:?} version \"1\", in {}",
            show()
        ));
    }
    let source = |name: &str| {
        text(item, name).ok_or_else(|| {
            format!(
                "invariant 5: the source `{name}` is missing from {}",
                show()
            )
        })
    };
    let org = source("org")?;
    let mut expected: Vec<(&str, Option<String>)> = vec![("pk", Some(format!("ORG#{org}")))];
    let allowed: &[&str] = if entity == "task" {
        let id = source("id")?;
        // Under ElectroDB's convention an index whose other key is complete is written whole:
        // the key whose source is absent (or empty) as its text up to that source, as
        // ElectroDB's `put` writes it, on every path (see `values_refusal`).
        let assignee = text(item, "assignee").filter(|a| !a.is_empty());
        expected.extend([
            ("sk", Some(format!("TASK#{id}"))),
            // `status` is stored as its code, by every path, and the key is built from it.
            ("gsi1pk", Some(format!("STATUS#{}", source("status")?))),
            (
                "gsi1sk",
                Some(format!("DUE#{}#P#{}", source("due")?, source("priority")?)),
            ),
            (
                "gsi2pk",
                Some(format!(
                    "ASSIGNEE#{}",
                    assignee.as_deref().unwrap_or_default()
                )),
            ),
            ("gsi2sk", Some(format!("ORG#{org}#TASK#{id}"))),
            // Every write sets `updated_at`, and renders it into `gsi3sk` (Regression: an
            // update left the old time).
            ("gsi3pk", Some(format!("ORG#{org}"))),
            (
                "gsi3sk",
                Some(format!(
                    "UPD#{}",
                    text(item, "updated_at").unwrap_or_default()
                )),
            ),
            // `created_at` is read-only: an update of `category` named or read it.
            ("gsi4pk", Some(format!("CAT#{}", source("category")?))),
            (
                "gsi4sk",
                Some(format!(
                    "CREATED#{}",
                    text(item, "created_at").unwrap_or_default()
                )),
            ),
            (
                "label",
                Some(format!("{}#{}", source("category")?, source("title")?)),
            ),
            ("slug", Some(slug_of(&source("title")?))),
            (
                "gsi5pk",
                Some(format!("SLUG#{}", slug_of(&source("title")?))),
            ),
            (
                "gsi5sk",
                Some(format!(
                    "URGENT#{}#TASK#{id}",
                    match item.get("urgent") {
                        Some(AttributeValue::Bool(urgent)) => urgent.to_string(),
                        other => return Err(format!("`urgent` is {other:?} in {}", show())),
                    }
                )),
            ),
        ]);
        let status = source("status")?;
        if !STATUSES
            .iter()
            .any(|s| status_code((*s).to_owned()) == status)
        {
            return Err(format!(
                "invariant 1: `status` is stored as {status:?}, not as a status's code, in {}",
                show()
            ));
        }
        &[
            "pk",
            "sk",
            "gsi1pk",
            "gsi1sk",
            "gsi2pk",
            "gsi2sk",
            "gsi3pk",
            "gsi3sk",
            "gsi4pk",
            "gsi4sk",
            "gsi5pk",
            "gsi5sk",
            "__edb_e__",
            "__edb_v__",
            "org",
            "id",
            "status",
            "due",
            "priority",
            "assignee",
            "category",
            "title",
            "label",
            "slug",
            "details",
            "urgent",
            "views",
            "note",
            "version",
            "expires_at",
            "updated_at",
            "created_at",
            "token",
        ]
    } else {
        // GSI1 is written whole, as ElectroDB writes it (see `gsi2pk` above).
        let plan = text(item, "plan").filter(|p| !p.is_empty());
        expected.extend([
            ("sk", Some("#META".to_owned())),
            (
                "gsi1pk",
                Some(format!("PLAN#{}", plan.as_deref().unwrap_or_default())),
            ),
            ("gsi1sk", Some(format!("ORG#{org}"))),
        ]);
        &[
            "pk",
            "sk",
            "gsi1pk",
            "gsi1sk",
            "__edb_e__",
            "__edb_v__",
            "org",
            "name",
            "plan",
            "seats",
            "tier",
            "updated_at",
            "__shape",
            "seat_text",
        ]
    };
    if entity == "org" {
        // Shape 2, written whole by this release, or shape 1, as `PutOrgV1` wrote it.
        let shape = text(item, "__shape");
        let current = shape.as_deref() == Some("2") && item.contains_key("seats");
        let old = shape.is_none() && item.contains_key("seat_text") && !item.contains_key("seats");
        if !current && !old {
            return Err(format!("an org of neither shape: {}", show()));
        }
    }
    for (attribute, rendered) in expected {
        let stored = text(item, attribute);
        if stored != rendered {
            return Err(format!(
                "invariant 1: `{attribute}` is {stored:?}, but its sources render {rendered:?}, in {}",
                show()
            ));
        }
    }
    if let Some(extra) = item.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("an unknown attribute `{extra}` in {}", show()));
    }
    let decoded = if entity == "task" {
        Task::from_item(item.clone()).map(drop)
    } else {
        Org::from_item(item.clone()).map(drop)
    };
    decoded.map_err(|e| format!("invariant 5: the item does not decode ({e}): {}", show()))
}

fn is_uuid_v7(token: &str) -> bool {
    token.len() == 36 && token.as_bytes()[14] == b'7' && token.as_bytes()[8] == b'-'
}

/// Learns what the last write generated, checking it against its rules (invariant 4).
fn learn(
    fresh: Fresh,
    found: &Task,
    expected: &mut Task,
    until: DateTime<Utc>,
) -> Result<(), String> {
    let within = |t: Option<DateTime<Utc>>| t.is_some_and(|t| t >= fresh.since && t <= until);
    let window = format!("{} to {}", fresh.since, until);
    if !within(found.updated_at) {
        return Err(format!(
            "invariant 4: `updated_at` is {:?}, not set by the write ({window})",
            found.updated_at
        ));
    }
    expected.updated_at = found.updated_at;
    let created_ok = match fresh.created_at {
        Gen::Keep => true,
        Gen::Must => within(found.created_at),
        Gen::May => found.created_at.is_none() || within(found.created_at),
    };
    if !created_ok {
        return Err(format!(
            "invariant 4: `created_at` is {:?}; the write should have {:?} it ({window}), the oracle had {:?}",
            found.created_at, fresh.created_at, expected.created_at
        ));
    }
    if fresh.created_at != Gen::Keep {
        expected.created_at = found.created_at;
    }
    let token_ok = match fresh.token {
        Gen::Keep => true,
        Gen::Must => found.token.as_deref().is_some_and(is_uuid_v7),
        Gen::May => found.token.as_deref().is_none_or(is_uuid_v7),
    };
    if !token_ok {
        return Err(format!(
            "invariant 4: `token` is {:?}; the write should have {:?} a UUID v7",
            found.token, fresh.token
        ));
    }
    if fresh.token != Gen::Keep {
        expected.token.clone_from(&found.token);
    }
    Ok(())
}

/// The fields that differ, named by the invariant they break.
fn task_diff(found: &Task, expected: &Task) -> String {
    let mut out = Vec::new();
    let mut field = |name: &str, invariant: &str, a: String, b: String| {
        if a != b {
            out.push(format!("{invariant}`{name}` is {a}, the oracle says {b}"));
        }
    };
    field(
        "version",
        "invariant 3: ",
        format!("{}", found.version),
        format!("{}", expected.version),
    );
    for (name, a, b) in [
        ("updated_at", found.updated_at, expected.updated_at),
        ("created_at", found.created_at, expected.created_at),
        ("expires_at", found.expires_at, expected.expires_at),
    ] {
        let invariant = if name == "expires_at" {
            ""
        } else {
            "invariant 4: "
        };
        field(name, invariant, format!("{a:?}"), format!("{b:?}"));
    }
    field(
        "token",
        "invariant 4: ",
        format!("{:?}", found.token),
        format!("{:?}", expected.token),
    );
    let found_rest = format!(
        "{:?}",
        (
            &found.status,
            &found.due,
            found.priority,
            &found.assignee,
            &found.category,
            &found.title,
            &found.label,
            &found.slug,
            &found.details,
            found.urgent,
            found.views,
            &found.note
        )
    );
    let expected_rest = format!(
        "{:?}",
        (
            &expected.status,
            &expected.due,
            expected.priority,
            &expected.assignee,
            &expected.category,
            &expected.title,
            &expected.label,
            &expected.slug,
            &expected.details,
            expected.urgent,
            expected.views,
            &expected.note
        )
    );
    field(
        "(status, due, priority, assignee, category, title, label, slug, details, urgent, views, note)",
        "",
        found_rest,
        expected_rest,
    );
    out.join("; ")
}

/// Compares the table with a candidate world, learning the generated values of this
/// step's writes; returns the world as learned.
fn verify(items: &[Item], candidate: &World, until: DateTime<Utc>) -> Result<World, String> {
    let mut tasks = BTreeMap::new();
    let mut orgs = BTreeMap::new();
    for item in items {
        let org = text(item, "org").unwrap_or_default();
        if text(item, "__edb_e__").as_deref() == Some("task") {
            let id = text(item, "id").unwrap_or_default();
            let key = TKey::find(&org, &id).ok_or_else(|| format!("an unknown task {org}/{id}"))?;
            let task = Task::from_item(item.clone()).map_err(|e| format!("invariant 5: {e}"))?;
            tasks.insert(key, task);
        } else {
            let key = ORGS
                .iter()
                .position(|o| *o == org)
                .map(|i| OKey(i as u8))
                .ok_or_else(|| format!("an unknown org {org}"))?;
            let found = Org::from_item(item.clone()).map_err(|e| format!("invariant 5: {e}"))?;
            orgs.insert(key, found);
        }
    }
    let task_keys: Vec<TKey> = tasks.keys().copied().collect();
    let expected_task_keys: Vec<TKey> = candidate.tasks.keys().copied().collect();
    if task_keys != expected_task_keys {
        return Err(format!(
            "oracle: the table holds the tasks {task_keys:?}, the oracle {expected_task_keys:?}"
        ));
    }
    let org_keys: Vec<OKey> = orgs.keys().copied().collect();
    let expected_org_keys: Vec<OKey> = candidate.orgs.keys().copied().collect();
    if org_keys != expected_org_keys {
        return Err(format!(
            "oracle: the table holds the orgs {org_keys:?}, the oracle {expected_org_keys:?}"
        ));
    }
    let mut learned = candidate.clone();
    for (key, found) in &tasks {
        let entry = learned.tasks.get_mut(key).unwrap();
        if let Some(fresh) = entry.fresh.take() {
            learn(fresh, found, &mut entry.model, until)
                .map_err(|e| format!("task {key:?}: {e}"))?;
        }
        if *found != entry.model {
            return Err(format!("task {key:?}: {}", task_diff(found, &entry.model)));
        }
    }
    for (key, found) in &orgs {
        let entry = learned.orgs.get_mut(key).unwrap();
        if let Some(fresh) = entry.fresh.take() {
            let within = found
                .updated_at
                .is_some_and(|t| t >= fresh.since && t <= until);
            if !within {
                return Err(format!(
                    "org {key:?}: invariant 4: `updated_at` is {:?}, not set by the write",
                    found.updated_at
                ));
            }
            entry.model.updated_at = found.updated_at;
        }
        if *found != entry.model {
            return Err(format!(
                "org {key:?}: the table holds {found:?}, the oracle {:?}",
                entry.model
            ));
        }
    }
    Ok(learned)
}

// ---------------------------------------------------------------------------------------
// The stream, replayed.
// ---------------------------------------------------------------------------------------

/// An item's identity in the replay: its entity, org and id.
type ReplayKey = (&'static str, String, String);

/// The table's items, decoded, by identity.
async fn table_state(db: &Client) -> Result<BTreeMap<ReplayKey, String>, String> {
    let mut table = BTreeMap::new();
    for item in raw_items(db).await? {
        let (key, shown) = if text(&item, "__edb_e__").as_deref() == Some("task") {
            let task = Task::from_item(item).map_err(|e| e.to_string())?;
            (
                ("task", task.org.clone(), task.id.clone()),
                format!("{task:?}"),
            )
        } else {
            let org = Org::from_item(item).map_err(|e| e.to_string())?;
            (("org", org.org.clone(), String::new()), format!("{org:?}"))
        };
        table.insert(key, shown);
    }
    Ok(table)
}

/// The stream of the whole run, from its first record: every case's writes and clears,
/// replayed in order onto an empty map, pass through the table's items at the end of each
/// case (`endings`), in order, and end with the table's items. A modification or removal
/// must find the image the replay holds, and each change's typed key is its item's key.
async fn replay_stream(db: &Client, endings: &[BTreeMap<ReplayKey, String>]) -> Result<(), String> {
    use dynorm_streams::ChangeKind;
    use futures::StreamExt;

    let idle = std::time::Duration::from_secs(1);
    let poll = std::time::Duration::from_millis(50);
    // `Task` alone reads the same task changes and skips the orgs', alongside.
    let task_only = async {
        let tally = dynorm::observe::Tally::default();
        let mut tasks = dynorm_streams::changes::<Task>(db)
            .tally(&tally)
            .poll_interval(poll)
            .stop_when_idle(idle)
            .stream();
        let mut seen = 0usize;
        while let Some(change) = tasks.next().await {
            change.map_err(|e| format!("task change {seen}: {e}"))?;
            seen += 1;
        }
        Ok::<_, String>((seen, tally.skipped() as usize))
    };
    let mut replayed: BTreeMap<ReplayKey, String> = BTreeMap::new();
    let mut changes = dynorm_streams::collection_changes::<OrgWithTasks>(db)
        .poll_interval(poll)
        .stop_when_idle(idle)
        .stream();
    let mut count = 0usize;
    let mut task_changes = 0usize;
    let mut endings_reached = 0usize;
    // Each case's ending, in order; an empty one may come before the first change.
    while endings.get(endings_reached) == Some(&replayed) {
        endings_reached += 1;
    }
    let all = async {
        while let Some(change) = changes.next().await {
            let change = change.map_err(|e| format!("change {count}: {e}"))?;
            count += 1;
            let key: ReplayKey = match &change.key {
                OrgWithTasksKey::Org(key) => ("org", key.org.clone(), String::new()),
                OrgWithTasksKey::Task(key) => {
                    task_changes += 1;
                    ("task", key.org.clone(), key.id.clone())
                }
            };
            let image_key = |item: &OrgWithTasks| -> ReplayKey {
                match item {
                    OrgWithTasks::Org(org) => ("org", org.org.clone(), String::new()),
                    OrgWithTasks::Task(task) => ("task", task.org.clone(), task.id.clone()),
                }
            };
            let show = |item: &OrgWithTasks| match item {
                OrgWithTasks::Org(org) => format!("{org:?}"),
                OrgWithTasks::Task(task) => format!("{task:?}"),
            };
            let (old, new) = match &change.kind {
                ChangeKind::Insert { new } => (None, Some(new)),
                ChangeKind::Modify { old, new } => (Some(old), Some(new)),
                ChangeKind::Remove { old } | ChangeKind::Expire { old } => (Some(old), None),
            };
            for image in old.iter().chain(new.iter()) {
                same("a change's typed key", &image_key(image), &key)?;
            }
            let held = match new {
                Some(new) => replayed.insert(key.clone(), show(new)),
                None => replayed.remove(&key),
            };
            same(
                &format!("the image before change {count} ({})", change.kind_name()),
                held,
                old.map(show),
            )?;
            // Each case's ending, in order; an empty one is passed by its own clear at the latest.
            while endings.get(endings_reached) == Some(&replayed) {
                endings_reached += 1;
            }
        }
        Ok::<_, String>(())
    };
    let (all, task_only) = futures::join!(all, task_only);
    all?;
    let (seen, skipped) = task_only?;
    if count == 0 {
        return Err("the stream is empty".into());
    }
    same("the replayed items", &replayed, &table_state(db).await?)?;
    same(
        "the case endings the replay passed",
        endings_reached,
        endings.len(),
    )?;
    same("the changes of Task", seen, task_changes)?;
    same(
        "the org changes Task skipped",
        skipped,
        count - task_changes,
    )
}
