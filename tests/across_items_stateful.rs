//! A stateful, model-based property test of the invariants across items, unique
//! attributes and counts: random sequences of every write path of a model with a unique
//! email, a handle unique per team, and two counts on the teams (its members, and the
//! members it mentors, which may be the same team) (`create`, `put`, updates that set,
//! move or remove unique values or change the scope or the mentor, `upsert`,
//! `update_raw`, `delete`, `delete_raw`, `insert_many`, and write transactions mixing
//! creates, moves, updates and deletes), and of the teams under them (deleted, a count
//! removed as if never built, built again from the members), of a binary still on the
//! model's first shape (`OldMember`, with the same constraints) writing shape-1 items,
//! and of backfills to shape 2 killed after a few items and resumed by later steps,
//! checked after each step against an in-memory oracle.
//!
//! After every step:
//! 1. the table's items, decoded, are exactly the oracle's;
//! 2. each unique value held by an item has exactly one guard, which names that item,
//!    and no guard guards nothing (`common::guards::check_guards`);
//! 3. each team exists, and holds each count, exactly as the oracle says: a count moves
//!    with every write (created by a member arriving if it was not built, left absent by
//!    one leaving), a member leaves a deleted team freely, and a built count equals the
//!    number of members it counts;
//! 4. every read path sees the items and never a guard: `get_unique` by each held value
//!    gives its holder, and a scan gives the oracle's items;
//! 5. no guard is reachable through the model's own API: a `get`, `get_raw` or query by
//!    the key of each guard (and of each hostile id) is refused before sending;
//! 6. after a backfill that ran to its end, every item is of shape 2, and its tally holds
//!    exactly the capacity the server reported for every request it sent.
//!
//! Among the ids are hostile ones, which equal a guard's key: of an email a member may
//! hold, and of an email nobody holds. Every step that names one is refused with a
//! `Validation` error naming the model and the key attribute, and changes nothing.
//!
//! Few ids and values, so that steps collide. A fixed seed and number of cases;
//! `PROPTEST_RNG_SEED` and `PROPTEST_CASES` explore others.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use dynorm::types::AttributeValue;
use dynorm::{Client, Error, ErrorKind, Item, Model};
use proptest::prelude::*;
use proptest::sample::select;

const CASES: u32 = 24;
const MAX_STEPS: usize = 20;
const SEED: u64 = 0x5EED_0026;

const IDS: [&str; 4] = ["u1", "u2", "u3", "u4"];
/// Ids that are guards' keys: of an email members hold in turn, and of one nobody holds.
const HOSTILE: [&str; 2] = ["$unique#Member#email#a@x", "$unique#Member#email#z@x"];
const EMAILS: [&str; 3] = ["a@x", "b@x", "c#x"];
const TEAMS: [&str; 2] = ["t1", "t2"];
const HANDLES: [&str; 2] = ["h1", "h2"];

/// A team, whose members count themselves in `member_count`, and the members it mentors
/// in `mentor_count`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "CountedTeams")]
struct Team {
    #[hash_key]
    id: String,
    member_count: u64,
    mentor_count: u64,
}

/// The counts of a team.
const COUNTS: [&str; 2] = ["member_count", "mentor_count"];

/// A member: the email is unique in the table, the handle within each team; each member
/// counts in its team, and in the team that mentors it, if any.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "UniqueMembers", unique_name = "Member")]
#[count(parent = Team, into = member_count, fields = [team], references = [id])]
#[count(parent = Team, into = mentor_count, fields = [mentor], references = [id])]
#[dynorm(shape = 2, upcasts = [MemberV1])]
struct Member {
    #[hash_key]
    id: String,
    team: String,
    #[unique]
    email: String,
    #[unique(scope = team)]
    handle: Option<String>,
    mentor: Option<String>,
    name: String,
    /// Shape 2's: which shape the member was first written in (`v1`), when not this one.
    origin: Option<String>,
}

/// The first shape, as a binary still on it writes it: the same constraints and counts.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "UniqueMembers", unique_name = "Member")]
#[count(parent = Team, into = member_count, fields = [team], references = [id])]
#[count(parent = Team, into = mentor_count, fields = [mentor], references = [id])]
struct OldMember {
    #[hash_key]
    id: String,
    team: String,
    #[unique]
    email: String,
    #[unique(scope = team)]
    handle: Option<String>,
    mentor: Option<String>,
    name: String,
}

/// Shape 1, as today's model reads it.
#[derive(serde::Deserialize)]
struct MemberV1 {
    id: String,
    team: String,
    email: String,
    handle: Option<String>,
    mentor: Option<String>,
    name: String,
}

impl From<MemberV1> for Member {
    fn from(v1: MemberV1) -> Self {
        Member {
            id: v1.id,
            team: v1.team,
            email: v1.email,
            handle: v1.handle,
            mentor: v1.mentor,
            name: v1.name,
            origin: Some("v1".into()),
        }
    }
}

impl Member {
    /// The team this member counts in for each of [`COUNTS`].
    fn counted_in(&self, count: usize) -> Option<&str> {
        match count {
            0 => Some(&self.team),
            _ => self.mentor.as_deref(),
        }
    }
}

#[derive(Clone, Debug)]
struct Fields {
    team: &'static str,
    email: &'static str,
    handle: Option<&'static str>,
    mentor: Option<&'static str>,
}

impl Fields {
    fn member(&self, id: &str, name: &str) -> Member {
        Member {
            id: id.into(),
            team: self.team.into(),
            email: self.email.into(),
            handle: self.handle.map(Into::into),
            mentor: self.mentor.map(Into::into),
            name: name.into(),
            origin: None,
        }
    }

    fn old_member(&self, id: &str) -> OldMember {
        OldMember {
            id: id.into(),
            team: self.team.into(),
            email: self.email.into(),
            handle: self.handle.map(Into::into),
            mentor: self.mentor.map(Into::into),
            name: "old".into(),
        }
    }
}

#[derive(Clone, Debug)]
enum Action {
    Email(&'static str),
    Handle(Option<&'static str>),
    Team(&'static str),
    Mentor(Option<&'static str>),
    Name(&'static str),
}

#[derive(Clone, Debug)]
enum TxOp {
    Create(&'static str, Fields),
    Email(&'static str, &'static str),
    Move(&'static str, &'static str),
    Delete(&'static str),
}

#[derive(Clone, Debug)]
enum Op {
    Create(&'static str, Fields),
    Put(&'static str, Fields),
    Update(&'static str, Vec<Action>),
    UpdateRaw(&'static str, &'static str),
    Upsert(&'static str, Fields),
    Delete(&'static str),
    DeleteRaw(&'static str),
    InsertMany(Vec<(&'static str, Fields)>),
    Transaction(Vec<TxOp>),
    /// The team is deleted, its members left in it.
    DeleteTeam(&'static str),
    /// One of the team's counts is removed, as if it had never been built.
    DropCount(&'static str, usize),
    /// The team is written with every count built from its members, as a backfill would.
    BuildTeam(&'static str),
    /// A binary still on shape 1 puts a member.
    PutOld(&'static str, Fields),
    /// A backfill to shape 2 (the run left unfinished by the last one, or a new run),
    /// killed after this many items, or run to its end.
    Backfill(Option<u8>),
}

fn id() -> impl Strategy<Value = &'static str> {
    prop_oneof![6 => select(&IDS[..]), 1 => select(&HOSTILE[..])]
}

fn is_hostile(id: &str) -> bool {
    HOSTILE.contains(&id)
}

/// Whether a step names a hostile id.
fn names_hostile(op: &Op) -> bool {
    match op {
        Op::Create(id, _)
        | Op::Put(id, _)
        | Op::Update(id, _)
        | Op::UpdateRaw(id, _)
        | Op::Upsert(id, _)
        | Op::Delete(id)
        | Op::DeleteRaw(id)
        | Op::PutOld(id, _) => is_hostile(id),
        Op::InsertMany(rows) => rows.iter().any(|(id, _)| is_hostile(id)),
        Op::Transaction(ops) => ops.iter().any(|op| match op {
            TxOp::Create(id, _) | TxOp::Email(id, _) | TxOp::Move(id, _) | TxOp::Delete(id) => {
                is_hostile(id)
            }
        }),
        // Teams are not members: their keys are never a member's guard's.
        Op::DeleteTeam(_) | Op::DropCount(..) | Op::BuildTeam(_) | Op::Backfill(_) => false,
    }
}

fn fields() -> impl Strategy<Value = Fields> {
    (
        select(&TEAMS[..]),
        select(&EMAILS[..]),
        proptest::option::of(select(&HANDLES[..])),
        proptest::option::of(select(&TEAMS[..])),
    )
        .prop_map(|(team, email, handle, mentor)| Fields {
            team,
            email,
            handle,
            mentor,
        })
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        select(&EMAILS[..]).prop_map(Action::Email),
        proptest::option::of(select(&HANDLES[..])).prop_map(Action::Handle),
        select(&TEAMS[..]).prop_map(Action::Team),
        proptest::option::of(select(&TEAMS[..])).prop_map(Action::Mentor),
        Just(Action::Name("renamed")),
    ]
}

fn tx_op() -> impl Strategy<Value = TxOp> {
    prop_oneof![
        (id(), fields()).prop_map(|(id, f)| TxOp::Create(id, f)),
        (id(), select(&EMAILS[..])).prop_map(|(id, e)| TxOp::Email(id, e)),
        (id(), select(&TEAMS[..])).prop_map(|(id, t)| TxOp::Move(id, t)),
        id().prop_map(TxOp::Delete),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (id(), fields()).prop_map(|(id, f)| Op::Create(id, f)),
        2 => (id(), fields()).prop_map(|(id, f)| Op::Put(id, f)),
        3 => (id(), proptest::collection::vec(action(), 1..=2)).prop_map(|(id, a)| Op::Update(id, a)),
        1 => (id(), select(&EMAILS[..])).prop_map(|(id, e)| Op::UpdateRaw(id, e)),
        1 => (id(), fields()).prop_map(|(id, f)| Op::Upsert(id, f)),
        2 => id().prop_map(Op::Delete),
        1 => id().prop_map(Op::DeleteRaw),
        1 => proptest::collection::vec((id(), fields()), 1..=3).prop_map(Op::InsertMany),
        2 => proptest::collection::vec(tx_op(), 1..=3).prop_map(Op::Transaction),
        1 => select(&TEAMS[..]).prop_map(Op::DeleteTeam),
        1 => (select(&TEAMS[..]), 0..COUNTS.len()).prop_map(|(t, c)| Op::DropCount(t, c)),
        1 => select(&TEAMS[..]).prop_map(Op::BuildTeam),
        2 => (id(), fields()).prop_map(|(id, f)| Op::PutOld(id, f)),
        2 => proptest::option::of(1..4u8).prop_map(Op::Backfill),
    ]
}

/// The oracle: the members by id.
type World = BTreeMap<String, Member>;

/// Whether two members hold a unique value in common.
fn clash(a: &Member, b: &Member) -> bool {
    a.email == b.email || (a.team == b.team && a.handle.is_some() && a.handle == b.handle)
}

/// Whether `member`, written over `world`, clashes with another member.
fn clashes(world: &World, member: &Member) -> bool {
    world
        .values()
        .any(|m| m.id != member.id && clash(m, member))
}

/// What the oracle expects of a write: the world after it, the kinds it may fail with, or
/// the refusal of a key that addresses a guard (or, when `or_twice`, the refusal of a
/// transaction that names one item twice, which may be found first).
enum Expect {
    Ok(World),
    Err(Vec<ErrorKind>),
    Refused { or_twice: bool },
}

/// Whether a transaction (or `insert_many`) names one id twice.
fn names_twice(op: &Op) -> bool {
    let ids: Vec<&str> = match op {
        Op::InsertMany(rows) => rows.iter().map(|(id, _)| *id).collect(),
        Op::Transaction(ops) => ops
            .iter()
            .map(|op| match op {
                TxOp::Create(id, _) | TxOp::Email(id, _) | TxOp::Move(id, _) | TxOp::Delete(id) => {
                    *id
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    (1..ids.len()).any(|i| ids[..i].contains(&ids[i]))
}

fn expect(world: &World, op: &Op) -> Expect {
    if names_hostile(op) {
        return Expect::Refused {
            or_twice: names_twice(op),
        };
    }
    let ok_unless_clash = |member: Member| {
        if clashes(world, &member) {
            Expect::Err(vec![ErrorKind::UniqueConflict])
        } else {
            let mut next = world.clone();
            next.insert(member.id.clone(), member);
            Expect::Ok(next)
        }
    };
    match op {
        Op::Create(id, fields) => {
            if world.contains_key(*id) {
                // Either check may fail first.
                let member = fields.member(id, "created");
                let mut kinds = vec![ErrorKind::AlreadyExists];
                if clashes(world, &member) {
                    kinds.push(ErrorKind::UniqueConflict);
                }
                Expect::Err(kinds)
            } else {
                ok_unless_clash(fields.member(id, "created"))
            }
        }
        Op::Put(id, fields) => ok_unless_clash(fields.member(id, "put")),
        Op::PutOld(id, fields) => {
            let mut member = fields.member(id, "old");
            member.origin = Some("v1".into());
            ok_unless_clash(member)
        }
        Op::Upsert(id, fields) => {
            // A new item has only what the upsert sets: no handle.
            let mut member = world.get(*id).cloned().unwrap_or_else(|| {
                Fields {
                    handle: None,
                    mentor: None,
                    ..fields.clone()
                }
                .member(id, "upserted")
            });
            member.email = fields.email.into();
            member.team = fields.team.into();
            member.name = "upserted".into();
            ok_unless_clash(member)
        }
        Op::Update(id, actions) => {
            let slot = |a: &Action| std::mem::discriminant(a);
            if actions.len() == 2 && slot(&actions[0]) == slot(&actions[1]) {
                // An attribute updated twice: refused before sending.
                return Expect::Err(vec![ErrorKind::Validation]);
            }
            let Some(mut member) = world.get(*id).cloned() else {
                return Expect::Err(vec![ErrorKind::NotFound]);
            };
            for action in actions {
                match action {
                    Action::Email(email) => member.email = (*email).into(),
                    Action::Handle(handle) => member.handle = handle.map(Into::into),
                    Action::Team(team) => member.team = (*team).into(),
                    Action::Mentor(team) => member.mentor = team.map(Into::into),
                    Action::Name(name) => member.name = (*name).into(),
                }
            }
            ok_unless_clash(member)
        }
        Op::UpdateRaw(id, email) => {
            let Some(mut member) = world.get(*id).cloned() else {
                return Expect::Err(vec![ErrorKind::NotFound]);
            };
            member.email = (*email).into();
            ok_unless_clash(member)
        }
        Op::Delete(id) | Op::DeleteRaw(id) => {
            let mut next = world.clone();
            next.remove(*id);
            Expect::Ok(next)
        }
        Op::InsertMany(rows) => {
            let ops = rows
                .iter()
                .map(|(id, fields)| TxOp::Create(id, fields.clone()))
                .collect::<Vec<_>>();
            expect_all(world, &ops, "inserted")
        }
        Op::Transaction(ops) => expect_all(world, ops, "created"),
        Op::DeleteTeam(_) | Op::DropCount(..) | Op::BuildTeam(_) | Op::Backfill(_) => {
            Expect::Ok(world.clone())
        }
    }
}

/// A transaction (or one chunk of `insert_many`): all or nothing.
fn expect_all(world: &World, ops: &[TxOp], name: &str) -> Expect {
    let id_of = |op: &TxOp| match op {
        TxOp::Create(id, _) | TxOp::Email(id, _) | TxOp::Move(id, _) | TxOp::Delete(id) => *id,
    };
    let ids: Vec<&str> = ops.iter().map(id_of).collect();
    if (1..ids.len()).any(|i| ids[..i].contains(&ids[i])) {
        // The same item twice: refused before sending.
        return Expect::Err(vec![ErrorKind::Validation]);
    }
    let mut next = world.clone();
    let mut failed = false;
    // The guards the operations claim, as `email <email>` and `handle <team> <handle>`.
    let mut claims: Vec<String> = Vec::new();
    for op in ops {
        match op {
            TxOp::Create(id, fields) => {
                failed |= world.contains_key(*id);
                let member = fields.member(id, name);
                claims.push(format!("email {}", member.email));
                if let Some(handle) = &member.handle {
                    claims.push(format!("handle {} {handle}", member.team));
                }
                next.insert((*id).into(), member);
            }
            TxOp::Email(id, email) => match world.get(*id) {
                Some(member) => {
                    let mut member = member.clone();
                    member.email = (*email).into();
                    if member.email != world[*id].email {
                        claims.push(format!("email {email}"));
                    }
                    next.insert((*id).into(), member);
                }
                None => {
                    // Refused by DynamoDB, but its guard is planned all the same.
                    failed = true;
                    claims.push(format!("email {email}"));
                }
            },
            TxOp::Move(id, team) => match world.get(*id) {
                Some(member) => {
                    let mut member = member.clone();
                    member.team = (*team).into();
                    if let Some(handle) =
                        member.handle.as_ref().filter(|_| world[*id].team != *team)
                    {
                        claims.push(format!("handle {team} {handle}"));
                    }
                    next.insert((*id).into(), member);
                }
                // Refused by DynamoDB: the item must exist.
                None => failed = true,
            },
            TxOp::Delete(id) => {
                next.remove(*id);
            }
        }
    }
    let two_claims = (1..claims.len()).any(|i| claims[..i].contains(&claims[i]));
    let clash_after = next
        .values()
        .any(|m| next.values().any(|o| o.id != m.id && clash(m, o)));
    let mut kinds = Vec::new();
    if failed {
        kinds.push(ErrorKind::TransactionCanceled);
    }
    if two_claims {
        kinds.push(ErrorKind::Validation);
    }
    if clash_after {
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

/// A team as the oracle holds it: each of [`COUNTS`] (`None`: not built), and whether it
/// was built from the members (and so must equal them) since it was last removed.
#[derive(Clone, Debug, PartialEq)]
struct TeamState {
    counts: [Option<u64>; 2],
    built: [bool; 2],
}

impl TeamState {
    /// A team with every count built from the members.
    fn built(world: &World, team: &str) -> Self {
        let counted = |count| {
            let n = world.values().filter(|m| m.counted_in(count) == Some(team));
            Some(n.count() as u64)
        };
        Self {
            counts: [counted(0), counted(1)],
            built: [true; 2],
        }
    }
}

/// The teams: `None` for one that was deleted.
type Teams = BTreeMap<&'static str, Option<TeamState>>;

/// What the counts do when the members go from `before` to `after` in one request: the
/// teams after it, or the kinds of error it fails with (all or nothing). A count goes up
/// only on a team that exists, and is created if it was not built; it goes down only as
/// far as zero, and stays absent if it was not built; a deleted team is left alone by
/// members leaving it.
fn move_counts(teams: &Teams, before: &World, after: &World) -> Result<Teams, Vec<ErrorKind>> {
    // By team and count: how many arrive and leave.
    let mut moves: BTreeMap<(String, usize), (i64, i64)> = BTreeMap::new();
    let ids: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for id in ids {
        for count in 0..COUNTS.len() {
            let from = before.get(id).and_then(|m| m.counted_in(count));
            let to = after.get(id).and_then(|m| m.counted_in(count));
            if from == to {
                continue;
            }
            if let Some(from) = from {
                moves.entry((from.into(), count)).or_default().1 += 1;
            }
            if let Some(to) = to {
                moves.entry((to.into(), count)).or_default().0 += 1;
            }
        }
    }
    let mut next = teams.clone();
    let mut kinds = Vec::new();
    for team in TEAMS {
        let moved: Vec<(usize, i64, i64)> = (0..COUNTS.len())
            .filter_map(|c| {
                moves
                    .get(&(team.into(), c))
                    .map(|&(up, down)| (c, up, down))
            })
            .collect();
        match next.get_mut(team).and_then(Option::as_mut) {
            Some(state) => {
                for (count, up, down) in moved {
                    let net = up - down;
                    state.counts[count] = match state.counts[count] {
                        None if net > 0 => Some(net as u64),
                        None => None,
                        Some(held) if held as i64 + net < 0 => {
                            kinds.push(ErrorKind::ConditionFailed);
                            Some(held)
                        }
                        Some(held) => Some((held as i64 + net) as u64),
                    };
                }
            }
            None if moved.iter().any(|&(_, up, _)| up > 0) => kinds.push(ErrorKind::NotFound),
            None => {}
        }
    }
    if kinds.is_empty() {
        Ok(next)
    } else {
        Err(kinds)
    }
}

/// What the oracle expects of a step, members and teams: the state after it, the kinds
/// it may fail with, or the refusal of a key that addresses a guard (as [`Expect`]).
enum StepExpect {
    Ok(World, Teams),
    Err(Vec<ErrorKind>),
    Refused { or_twice: bool },
}

fn expect_step(world: &World, teams: &Teams, op: &Op) -> StepExpect {
    let mut next = teams.clone();
    match op {
        Op::DeleteTeam(team) => {
            next.insert(team, None);
        }
        Op::DropCount(team, count) => {
            if let Some(state) = next.get_mut(team).and_then(Option::as_mut) {
                state.counts[*count] = None;
                state.built[*count] = false;
            }
        }
        Op::BuildTeam(team) => {
            next.insert(team, Some(TeamState::built(world, team)));
        }
        _ => {
            return match expect(world, op) {
                Expect::Ok(members) => match move_counts(teams, world, &members) {
                    Ok(teams) => StepExpect::Ok(members, teams),
                    Err(kinds) => StepExpect::Err(kinds),
                },
                Expect::Err(kinds) => StepExpect::Err(kinds),
                Expect::Refused { or_twice } => StepExpect::Refused { or_twice },
            }
        }
    }
    StepExpect::Ok(world.clone(), next)
}

fn raw_key(id: &str) -> Item {
    Item::from([("id".to_owned(), AttributeValue::S(id.into()))])
}

async fn write(db: &Client, world: &World, op: &Op) -> Result<(), Error> {
    match op {
        Op::Create(id, fields) => db.create(&fields.member(id, "created")).send().await,
        Op::Put(id, fields) => db.put(&fields.member(id, "put")).send().await,
        Op::PutOld(id, fields) => db.put(&fields.old_member(id)).send().await,
        Op::Backfill(_) => unreachable!("run_case runs backfills"),
        Op::Upsert(id, fields) => {
            db.update::<Member>(*id)
                .set(Member::EMAIL, fields.email)
                .set(Member::TEAM, fields.team)
                .set(Member::NAME, "upserted")
                .upsert()
                .send()
                .await
        }
        Op::Update(id, actions) => {
            let mut update = db.update::<Member>(*id);
            for action in actions {
                update = match action {
                    Action::Email(email) => update.set(Member::EMAIL, *email),
                    Action::Handle(Some(handle)) => update.set(Member::HANDLE, *handle),
                    Action::Handle(None) => update.remove(Member::HANDLE),
                    Action::Team(team) => update.set(Member::TEAM, *team),
                    Action::Mentor(Some(team)) => update.set(Member::MENTOR, *team),
                    Action::Mentor(None) => update.remove(Member::MENTOR),
                    Action::Name(name) => update.set(Member::NAME, *name),
                };
            }
            update.send().await
        }
        Op::UpdateRaw(id, email) => {
            dynorm::item::UpdateItem::<Member>::raw(db, raw_key(id))
                .set(Member::EMAIL, *email)
                .send()
                .await
        }
        Op::Delete(id) => db.delete::<Member>(*id).send().await,
        Op::DeleteRaw(id) => {
            dynorm::item::DeleteItem::<Member>::raw(db, raw_key(id))
                .send()
                .await
        }
        Op::InsertMany(rows) => {
            let rows = rows.iter().map(|(id, f)| NewMember {
                id: (*id).into(),
                team: f.team.into(),
                email: f.email.into(),
                handle: f.handle.map(Into::into),
                mentor: f.mentor.map(Into::into),
                name: "inserted".into(),
                origin: None,
            });
            db.insert_many(rows.collect::<Vec<_>>())
                .send()
                .await
                .map(drop)
        }
        Op::Transaction(ops) => {
            let members: Vec<(usize, Member)> = ops
                .iter()
                .enumerate()
                .filter_map(|(i, op)| match op {
                    TxOp::Create(id, fields) => Some((i, fields.member(id, "created"))),
                    _ => None,
                })
                .collect();
            let mut tx = db.transact_write();
            for (i, op) in ops.iter().enumerate() {
                tx = match op {
                    TxOp::Create(..) => {
                        let member = &members.iter().find(|(j, _)| *j == i).expect("made").1;
                        tx.write(db.create(member))
                    }
                    TxOp::Email(id, email) => {
                        tx.write(db.update::<Member>(*id).set(Member::EMAIL, *email))
                    }
                    TxOp::Move(id, team) => {
                        tx.write(db.update::<Member>(*id).set(Member::TEAM, *team))
                    }
                    TxOp::Delete(id) => tx.write(db.delete::<Member>(*id)),
                };
            }
            tx.send().await
        }
        Op::DeleteTeam(team) => db.delete::<Team>(*team).send().await,
        Op::DropCount(team, count) => {
            // Only on a team that exists: an update would create a missing one.
            let dropped = db
                .sdk()
                .update_item()
                .table_name(db.tables().name::<Team>())
                .set_key(Some(raw_key(team)))
                .update_expression("REMOVE #count")
                .condition_expression("attribute_exists(id)")
                .expression_attribute_names("#count", COUNTS[*count])
                .send()
                .await;
            match dropped {
                Err(e)
                    if e.as_service_error()
                        .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
                {
                    Ok(())
                }
                other => {
                    other.expect("the count is removed");
                    Ok(())
                }
            }
        }
        Op::BuildTeam(team) => {
            let built = TeamState::built(world, team);
            db.put(&Team {
                id: (*team).into(),
                member_count: built.counts[0].unwrap_or(0),
                mentor_count: built.counts[1].unwrap_or(0),
            })
            .send()
            .await
        }
    }
}

/// The items of the table as members (guards left out), and the guard invariant.
async fn check(db: &Client, world: &World, teams: &Teams) -> Result<(), String> {
    let raw = common::guards::scan_all(db, &db.tables().name::<Member>()).await;
    let (guards, items): (Vec<Item>, Vec<Item>) = raw
        .into_iter()
        .partition(|i| i.contains_key("__dynorm_unique__"));
    let guard_ids: Vec<AttributeValue> = guards.iter().map(|g| g["id"].clone()).collect();
    let mut stored = World::new();
    for item in items {
        let member =
            Member::from_item(item).map_err(|e| format!("an item does not decode: {e}"))?;
        stored.insert(member.id.clone(), member);
    }
    if &stored != world {
        return Err(format!(
            "the table holds {stored:#?}\nthe oracle holds {world:#?}"
        ));
    }
    common::guards::check_guards::<Member>(db).await;
    for team in TEAMS {
        let stored = db
            .sdk()
            .get_item()
            .table_name(db.tables().name::<Team>())
            .set_key(Some(raw_key(team)))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| format!("reading team {team} failed: {e:?}"))?
            .item
            .map(|item| {
                COUNTS.map(|count| match item.get(count) {
                    Some(AttributeValue::N(n)) => n.parse::<u64>().ok(),
                    _ => None,
                })
            });
        let expected = teams[team].as_ref();
        if stored != expected.map(|t| t.counts) {
            return Err(format!(
                "team {team} holds the counts {stored:?}, and the oracle {expected:?}"
            ));
        }
        for (count, state) in expected
            .into_iter()
            .flat_map(|t| t.counts.iter().zip(t.built).enumerate())
        {
            let members = world.values().filter(|m| m.counted_in(count) == Some(team));
            let members = members.count() as u64;
            if state.1 && *state.0 != Some(members) {
                return Err(format!(
                    "team {team} counts {:?} in {}, and has {members}",
                    state.0, COUNTS[count]
                ));
            }
        }
    }
    for member in world.values() {
        let found = db
            .get_unique::<Member>()
            .value(Member::EMAIL, &member.email)
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| format!("get_unique failed: {e}"))?;
        if found.as_ref() != Some(member) {
            return Err(format!("get_unique({}) gave {found:?}", member.email));
        }
    }
    let scanned: Vec<Member> = db
        .scan::<Member>()
        .consistent_read(true)
        .all()
        .await
        .map_err(|e| format!("the scan failed: {e}"))?;
    if scanned.len() != world.len() {
        return Err(format!(
            "the scan gave {} members, not {}",
            scanned.len(),
            world.len()
        ));
    }
    unreachable_guards(db, &guard_ids).await
}

/// The refusal of a key that addresses a guard: `Validation`, naming the model and the key
/// attribute.
fn refusal(error: &Error) -> Result<(), String> {
    let named =
        matches!(error.model(), Some("Member" | "OldMember")) && error.attribute() == Some("id");
    if error.kind() == ErrorKind::Validation && named && error.operation().is_some() {
        Ok(())
    } else {
        Err(format!(
            "not the refusal of a guard's key: {error} ({error:?})"
        ))
    }
}

/// No guard is reachable through the model's API: reads by the key of each guard, and of
/// each hostile id, are refused before sending.
async fn unreachable_guards(db: &Client, guards: &[AttributeValue]) -> Result<(), String> {
    let hostile = HOSTILE.iter().map(|id| AttributeValue::S((*id).into()));
    for key in guards.iter().cloned().chain(hostile) {
        let AttributeValue::S(id) = &key else {
            return Err(format!("a guard's key is not text: {key:?}"));
        };
        let get = db
            .get::<Member>(id.as_str())
            .consistent_read(true)
            .send()
            .await;
        let raw = dynorm::item::GetItem::<Member>::raw(db, raw_key(id))
            .send()
            .await;
        let query = db
            .query::<Member>()
            .matching(Member::ID.eq(id.as_str()))
            .all()
            .await;
        for (path, result) in [("get", get.map(|_| ())), ("get_raw", raw.map(|_| ()))]
            .into_iter()
            .chain([("query", query.map(|_| ()))])
        {
            match result {
                Ok(()) => return Err(format!("{path} of the guard key {id} was sent")),
                Err(error) => refusal(&error).map_err(|e| format!("{path} of {id}: {e}"))?,
            }
        }
    }
    Ok(())
}

/// A run name no earlier case used.
fn next_run() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("members-{}", NEXT.fetch_add(1, Ordering::SeqCst))
}

/// Sends the backfill to shape 2 of run `run`, one item a page, and drops it (as a kill
/// would stop it) after `kill_after` pages. Whether it ran to its end. A run that ends
/// has tallied the capacity of every request it sent, as the server reported it.
async fn backfill(db: &Client, run: &str, kill_after: Option<u8>) -> Result<bool, String> {
    let wire = common::observe::Wire::default();
    let tally = dynorm::observe::Tally::default();
    let pages = Arc::new(AtomicU32::new(0));
    let kill = Arc::new(tokio::sync::Notify::new());
    let (seen, killer) = (pages.clone(), kill.clone());
    let send = dynorm_migrate::backfill::<Member>(&wire.client(db), run, "MemberBackfills")
        .tally(&tally)
        .segments(2)
        .page_size(1)
        // The same worker each time, so that a run killed before takes its segments back.
        .worker("stateful")
        .on_progress(move |_| {
            let pages = seen.fetch_add(1, Ordering::SeqCst) + 1;
            if kill_after.is_some_and(|k| pages >= u32::from(k)) {
                killer.notify_one();
            }
        })
        .send();
    tokio::select! {
        report = send => {
            let report = report.map_err(|e| format!("the backfill failed: {e}"))?;
            if !report.duplicates.is_empty() || report.orphaned > 0 {
                return Err(format!("the backfill found what dynorm's writes never leave: {report:?}"));
            }
            let tallied = tally.consumed_capacity().map_or(0.0, |c| c.units);
            if (tallied - wire.capacity_units()).abs() > 1e-6 {
                return Err(format!(
                    "the backfill's tally holds {tallied} units, the server reported {}",
                    wire.capacity_units()
                ));
            }
            Ok(true)
        }
        () = kill.notified() => Ok(false),
    }
}

/// Whether the stored item `id` is of shape 1 (it has no `__shape`).
async fn of_shape_1(db: &Client, id: &str) -> bool {
    db.sdk()
        .get_item()
        .table_name(db.tables().name::<Member>())
        .set_key(Some(raw_key(id)))
        .consistent_read(true)
        .send()
        .await
        .expect("the item is read")
        .item
        .is_some_and(|item| !item.contains_key("__shape"))
}

/// Every member is stored in shape 2.
async fn every_item_current(db: &Client) -> Result<(), String> {
    let items = common::guards::scan_all(db, &db.tables().name::<Member>()).await;
    for item in items
        .iter()
        .filter(|i| !i.contains_key("__dynorm_unique__"))
    {
        if item.get("__shape") != Some(&AttributeValue::N("2".into())) {
            return Err(format!("a backfill ran to its end, and left {item:?}"));
        }
    }
    Ok(())
}

async fn run_case(db: &Client, ops: &[Op]) -> Result<(), String> {
    for item in common::guards::scan_all(db, &db.tables().name::<Member>()).await {
        db.sdk()
            .delete_item()
            .table_name(db.tables().name::<Member>())
            .key("id", item["id"].clone())
            .send()
            .await
            .map_err(|e| format!("clearing the table failed: {e:?}"))?;
    }
    let mut world = World::new();
    let mut teams = Teams::new();
    for team in TEAMS {
        db.put(&Team {
            id: team.into(),
            member_count: 0,
            mentor_count: 0,
        })
        .send()
        .await
        .map_err(|e| format!("resetting team {team} failed: {e}"))?;
        teams.insert(team, Some(TeamState::built(&world, team)));
    }
    // The backfill run in progress (a new one once a run ends), and whether a shape-1
    // item was written since it began.
    let mut run = next_run();
    let mut old_since_start = false;
    for (i, op) in ops.iter().enumerate() {
        if let Op::Backfill(kill_after) = op {
            let ended = backfill(db, &run, *kill_after)
                .await
                .map_err(|e| format!("step {i} ({op:?}): {e}"))?;
            if ended && !old_since_start {
                every_item_current(db)
                    .await
                    .map_err(|e| format!("after step {i} ({op:?}): {e}"))?;
            }
            if ended {
                run = next_run();
                old_since_start = false;
            }
            check(db, &world, &teams)
                .await
                .map_err(|e| format!("after step {i} ({op:?}): {e}"))?;
            continue;
        }
        let expected = match op {
            // An upsert cannot tell a shape-1 item (no `__shape`) from a new one: refused.
            Op::Upsert(id, _) if !is_hostile(id) && of_shape_1(db, id).await => {
                StepExpect::Err(vec![ErrorKind::ConditionFailed])
            }
            _ => expect_step(&world, &teams, op),
        };
        let result = write(db, &world, op).await;
        old_since_start |= matches!(op, Op::PutOld(..)) && result.is_ok();
        (world, teams) = match (expected, result) {
            (StepExpect::Ok(members, next), Ok(())) => (members, next),
            (StepExpect::Err(kinds), Err(e)) if kinds.contains(&e.kind()) => (world, teams),
            (StepExpect::Refused { or_twice }, Err(e)) => {
                let twice = or_twice
                    && e.kind() == ErrorKind::Validation
                    && e.message().contains("only once");
                if !twice {
                    refusal(&e).map_err(|e| format!("step {i} ({op:?}): {e}"))?;
                }
                (world, teams)
            }
            (StepExpect::Refused { .. }, Ok(())) => {
                return Err(format!(
                    "step {i} ({op:?}) succeeded, but it names a guard's key"
                ))
            }
            (StepExpect::Ok(..), Err(e)) => {
                return Err(format!(
                    "step {i} ({op:?}) failed with {e}, but the oracle expected success"
                ))
            }
            (StepExpect::Err(kinds), Ok(())) => {
                return Err(format!(
                    "step {i} ({op:?}) succeeded, but the oracle expected {kinds:?}"
                ))
            }
            (StepExpect::Err(kinds), Err(e)) => {
                return Err(format!(
                    "step {i} ({op:?}) failed with {e}, but the oracle expected {kinds:?}"
                ))
            }
        };
        check(db, &world, &teams)
            .await
            .map_err(|e| format!("after step {i} ({op:?}): {e}"))?;
    }
    Ok(())
}

#[test]
fn every_write_path_keeps_guards_and_counts() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let db = runtime.block_on(async {
        let db = common::db_with::<Member>("across_items_stateful").await;
        db.tables()
            .create::<Team>()
            .send()
            .await
            .expect("the teams' table is created");
        db
    });
    common::sequences::run_sequences(CASES, SEED, op(), MAX_STEPS, |ops| {
        runtime.block_on(run_case(&db, &ops))
    });
}
