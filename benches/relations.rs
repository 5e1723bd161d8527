//! Benchmark 6: a user, their 20 posts and each post's comments, loaded through dynorm's
//! relations against hand-written aws-sdk-dynamodb code that sends the same requests in
//! the same waves, on the embedded server (or on `DYNAMODB_ENDPOINT` when it is set).
//!
//! ```sh
//! cargo bench --bench relations
//! ```
//!
//! The models are the blog of `tests/blog` (the seed's table keys, one table). dynorm runs
//! `find::<User>().with(User::posts().with(Post::comments()))`: wave 1 is one Query of
//! the partition `USER#<id>`, which holds the user and the posts; wave 2 is one Query of
//! `POST#<id>` per post, in rounds of at most the concurrency. The hand-written side sends
//! the same two waves with the same requests: the same key conditions (for comments, with
//! the `COMMENT#` prefix of the sort key) and filter (the entity name), in the same rounds
//! (every request of a round at once, a round when the one before it has ended), and
//! decodes with hand-written `AttributeValue` code.
//!
//! Two concurrencies: 100 (dynorm's default: the 20 Queries of wave 2 in one round) and 8
//! (three rounds). For each, the rounds both sides take are counted first, with an
//! interceptor that counts maximal groups of overlapping requests (the tests'
//! `common::in_flight`, on this current-thread runtime), and checked against the rounds
//! `plan()` reports. Then the two sides are paired call by call in ABBA order
//! (`common::paired`), and the median of the per-pair ratios dynorm/hand-written is
//! reported and written to `target/criterion/paired/relations.json` (and
//! `relations_8.json`), with the rounds in `relations_rounds.json`.

mod common;

#[path = "../tests/blog/mod.rs"]
#[allow(dead_code)]
mod blog;

#[path = "../tests/common/in_flight.rs"]
#[allow(dead_code)]
mod in_flight;

use std::collections::HashMap;

use dynorm::types::AttributeValue;
use dynorm::Item;
use futures::stream::{self, StreamExt, TryStreamExt};
use uuid::Uuid;

use blog::{BlogTable, Comment, NewComment, NewPost, NewUser, Post, User};

/// Posts of the user.
const POSTS: usize = 20;
/// Comments of each post.
const COMMENTS: usize = 5;
/// Requests of one wave in flight at once, on both sides: dynorm's default (the 20
/// Queries of wave 2 in one round), and 8 (three rounds).
const CONCURRENCIES: [usize; 2] = [100, 8];

/// A user with posts, each with its comments.
type Tree = (User, Vec<(Post, Vec<Comment>)>);

struct Fixture {
    db: dynorm::Client,
    table: String,
    user: Uuid,
}

impl Fixture {
    async fn new() -> Self {
        let db = dynorm_test::local::client()
            .await
            .expect("the DynamoDB server is reachable")
            .to_builder()
            .table_prefix("bench_relations_")
            .build();
        let _ = db.tables().delete::<User>().send().await;
        db.tables()
            .create_shared::<BlogTable>()
            .send()
            .await
            .expect("the blog table is created");
        let user = db
            .insert(NewUser {
                username: "ada".into(),
                email: "ada@example.org".into(),
            })
            .send_returning_new()
            .await
            .expect("the user is written");
        for p in 0..POSTS {
            let post = db
                .insert(NewPost {
                    author_id: user.id,
                    title: format!("Post number {p}"),
                    content: "A few sentences about single-table design. ".repeat(4),
                })
                .send_returning_new()
                .await
                .expect("the post is written");
            for c in 0..COMMENTS {
                db.insert(NewComment {
                    post_id: post.id,
                    author_id: user.id,
                    body: format!("Comment {c} on post {p}: well put."),
                })
                .send_returning_new()
                .await
                .expect("the comment is written");
            }
        }
        let table = db.tables().name::<User>();
        let fixture = Self {
            db,
            table,
            user: user.id,
        };
        for in_flight in CONCURRENCIES {
            let db = &fixture.db;
            let (ours, theirs) = (
                fixture.dynorm(db, in_flight).await,
                fixture.hand_written(db, in_flight).await,
            );
            assert_eq!(ours.1.len(), POSTS);
            assert!(ours
                .1
                .iter()
                .all(|(_, comments)| comments.len() == COMMENTS));
            assert_eq!(ours, theirs, "both sides load the same tree");
        }
        fixture
    }

    /// The load, as dynorm plans it.
    fn find(
        &self,
        db: &dynorm::Client,
        in_flight: usize,
    ) -> dynorm::relation::Find<User, impl dynorm::relation::Load<User, Joined = Tree>> {
        db.find::<User>()
            .matching(User::ID.eq(self.user))
            .with(User::posts().with(Post::comments()))
            .concurrency(in_flight as u32)
    }

    async fn dynorm(&self, db: &dynorm::Client, in_flight: usize) -> Tree {
        self.find(db, in_flight)
            .first()
            .await
            .expect("dynorm loads the tree")
            .expect("the user exists")
    }

    /// The rounds of one load on each side, counted, and those the plan reports.
    async fn rounds(&self, in_flight: usize) -> Rounds {
        let counter = in_flight::InFlight::new();
        let db = counter.client(&self.db);
        self.dynorm(&db, in_flight).await;
        let dynorm = (counter.rounds(), counter.started(), counter.most());
        counter.reset();
        self.hand_written(&db, in_flight).await;
        let hand_written = (counter.rounds(), counter.started(), counter.most());
        let plan = self.find(&self.db, in_flight).plan().expect("a plan");
        Rounds {
            in_flight,
            planned: plan.total_rounds(POSTS as u32) as usize,
            planned_requests: plan.total_requests(POSTS as u32) as usize,
            dynorm,
            hand_written,
        }
    }

    async fn hand_written(&self, db: &dynorm::Client, in_flight: usize) -> Tree {
        // Wave 1: the user's partition holds the user and the posts.
        let mut user = None;
        let mut posts = Vec::with_capacity(POSTS);
        let key = AttributeValue::S(format!("USER#{}", self.user));
        let mut start = None;
        loop {
            let output = db
                .sdk()
                .query()
                .table_name(&self.table)
                .key_condition_expression("#n0 = :v0")
                .expression_attribute_names("#n0", "pk")
                .expression_attribute_values(":v0", key.clone())
                .set_exclusive_start_key(start)
                .send()
                .await
                .expect("the user's partition is read");
            for item in output.items.unwrap_or_default() {
                match entity(&item) {
                    "User" => user = Some(user_from_item(item)),
                    "Post" => posts.push(post_from_item(item)),
                    _ => {}
                }
            }
            match output.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => break,
            }
        }
        // Wave 2: the comments of each post, in rounds of `in_flight`: all of a round at
        // once, a round when the one before it has ended.
        let mut comments: Vec<Vec<Comment>> = Vec::with_capacity(posts.len());
        for round in posts.chunks(in_flight) {
            let answers: Vec<Vec<Comment>> =
                stream::iter(round.iter().map(|p| self.comments(db, p.id)))
                    .buffered(in_flight)
                    .try_collect()
                    .await
                    .expect("the comments are read");
            comments.extend(answers);
        }
        (
            user.expect("the user exists"),
            posts.into_iter().zip(comments).collect(),
        )
    }

    async fn comments(
        &self,
        db: &dynorm::Client,
        post: Uuid,
    ) -> Result<Vec<Comment>, dynorm::Error> {
        let mut comments = Vec::with_capacity(COMMENTS);
        let mut start = None;
        loop {
            let output = db
                .sdk()
                .query()
                .table_name(&self.table)
                .consistent_read(false)
                .scan_index_forward(true)
                .key_condition_expression("#n0 = :v0 AND begins_with(#n1, :v1)")
                .filter_expression("#n2 = :v2")
                .expression_attribute_names("#n0", "pk")
                .expression_attribute_names("#n1", "sk")
                .expression_attribute_names("#n2", "__entity")
                .expression_attribute_values(":v0", AttributeValue::S(format!("POST#{post}")))
                .expression_attribute_values(":v1", AttributeValue::S("COMMENT#".into()))
                .expression_attribute_values(":v2", AttributeValue::S("Comment".into()))
                .set_exclusive_start_key(start)
                .send()
                .await
                .expect("the comments are read");
            comments.extend(
                output
                    .items
                    .unwrap_or_default()
                    .into_iter()
                    .map(comment_from_item),
            );
            match output.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => return Ok(comments),
            }
        }
    }
}

/// The rounds of one load with `in_flight` requests at once: planned, and counted on each
/// side as (rounds, requests, most in flight).
struct Rounds {
    in_flight: usize,
    planned: usize,
    planned_requests: usize,
    dynorm: (usize, usize, usize),
    hand_written: (usize, usize, usize),
}

impl Rounds {
    /// Checks that both sides take the planned rounds and requests, and says so.
    fn check(&self) -> String {
        let Rounds {
            in_flight,
            planned,
            planned_requests,
            dynorm,
            hand_written,
        } = self;
        assert_eq!(dynorm.0, *planned, "dynorm's rounds at {in_flight}");
        assert_eq!(
            hand_written.0, *planned,
            "hand-written rounds at {in_flight}"
        );
        assert_eq!(
            dynorm.1, *planned_requests,
            "dynorm's requests at {in_flight}"
        );
        assert_eq!(dynorm, hand_written, "both sides at {in_flight}");
        format!(
            "{{\"in_flight\": {in_flight}, \"planned_rounds\": {planned}, \
             \"dynorm_rounds\": {}, \"hand_written_rounds\": {}, \"requests\": {}, \
             \"most_in_flight\": {}}}",
            dynorm.0, hand_written.0, dynorm.1, dynorm.2
        )
    }
}

fn entity(item: &Item) -> &str {
    match item.get("__entity") {
        Some(AttributeValue::S(name)) => name,
        _ => "",
    }
}

fn take_s(item: &mut HashMap<String, AttributeValue>, name: &str) -> String {
    match item.remove(name) {
        Some(AttributeValue::S(s)) => s,
        other => panic!("`{name}` is not text: {other:?}"),
    }
}

fn take_id(item: &mut Item, name: &str) -> Uuid {
    Uuid::parse_str(&take_s(item, name)).expect("a UUID")
}

fn user_from_item(mut item: Item) -> User {
    User {
        id: take_id(&mut item, "id"),
        username: take_s(&mut item, "username"),
        email: take_s(&mut item, "email"),
    }
}

fn post_from_item(mut item: Item) -> Post {
    Post {
        id: take_id(&mut item, "id"),
        author_id: take_id(&mut item, "authorId"),
        title: take_s(&mut item, "title"),
        content: take_s(&mut item, "content"),
    }
}

fn comment_from_item(mut item: Item) -> Comment {
    Comment {
        id: take_id(&mut item, "id"),
        post_id: take_id(&mut item, "postId"),
        author_id: take_id(&mut item, "authorId"),
        body: take_s(&mut item, "body"),
    }
}

fn main() {
    let mode = common::RunMode::from_args();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    if !mode.wants("paired_relations") {
        return;
    }
    let fixture = rt.block_on(Fixture::new());
    // In `cargo test` mode, a few pairs only check that the paired run works.
    let pairs = if mode.bench {
        std::env::var("BENCH_PAIRS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(400)
    } else {
        4
    };
    // `BENCH_ONLY=dynorm` or `BENCH_ONLY=raw`: one side only, for a profiler, at the
    // default concurrency.
    if let Ok(only) = std::env::var("BENCH_ONLY") {
        let (db, in_flight) = (&fixture.db, CONCURRENCIES[0]);
        rt.block_on(async {
            for _ in 0..pairs {
                match only.as_str() {
                    "dynorm" => drop(fixture.dynorm(db, in_flight).await),
                    _ => drop(fixture.hand_written(db, in_flight).await),
                }
            }
        });
        return;
    }
    rt.block_on(async {
        let f = &fixture;
        let db = &f.db;
        let mut rounds = Vec::new();
        for in_flight in CONCURRENCIES {
            let counted = f.rounds(in_flight).await;
            println!(
                "relations at {in_flight} in flight: {} rounds planned; dynorm {} rounds, \
                 hand-written {} rounds; {} requests each, at most {} in flight",
                counted.planned,
                counted.dynorm.0,
                counted.hand_written.0,
                counted.dynorm.1,
                counted.dynorm.2
            );
            rounds.push(counted.check());
        }
        if mode.bench {
            let json = format!("[{}]\n", rounds.join(", "));
            common::write_result("paired", "relations_rounds", &json);
        }
        for in_flight in CONCURRENCIES {
            for _ in 0..pairs.min(40) {
                f.dynorm(db, in_flight).await;
                f.hand_written(db, in_flight).await;
            }
            let name = match in_flight {
                100 => "relations".to_owned(),
                n => format!("relations_{n}"),
            };
            let dynorm = || f.dynorm(db, in_flight);
            let raw = || f.hand_written(db, in_flight);
            common::paired::paired(&mode, &name, pairs, dynorm, raw).await;
        }
    });
}
