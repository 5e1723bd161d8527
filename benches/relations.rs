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
//! `POST#<id>` per post, all 20 in one round (dynorm's default concurrency, 100, set
//! explicitly on both sides). The hand-written side sends the same two waves with
//! the same requests: the same key conditions (for comments, with the `COMMENT#` prefix of
//! the sort key) and filter (the entity name), at the same
//! concurrency, and decodes with hand-written `AttributeValue` code.
//!
//! The two sides are paired call by call in ABBA order (`common::paired`), and the median
//! of the per-pair ratios dynorm/hand-written is reported and written to
//! `target/criterion/paired/relations.json`.

mod common;

#[path = "../tests/blog/mod.rs"]
#[allow(dead_code)]
mod blog;

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
/// Requests of one wave in flight at once, on both sides: dynorm's default concurrency,
/// so that the 20 Queries of wave 2 go in one round.
const IN_FLIGHT: usize = 100;

/// A user with posts, each with its comments.
type Tree = (User, Vec<(Post, Vec<Comment>)>);

struct Fixture {
    db: dynorm::Client,
    table: String,
    user: Uuid,
}

impl Fixture {
    async fn new() -> Self {
        let db = dynorm::local::client()
            .await
            .expect("the DynamoDB server is reachable")
            .with_table_prefix("bench_relations_");
        let _ = db.delete_table::<User>().await;
        db.create_shared_table::<BlogTable>()
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
        let table = db.table_name::<User>();
        let fixture = Self {
            db,
            table,
            user: user.id,
        };
        let (ours, theirs) = (fixture.dynorm().await, fixture.hand_written().await);
        assert_eq!(ours.1.len(), POSTS);
        assert!(ours
            .1
            .iter()
            .all(|(_, comments)| comments.len() == COMMENTS));
        assert_eq!(ours, theirs, "both sides load the same tree");
        fixture
    }

    async fn dynorm(&self) -> Tree {
        self.db
            .find::<User>()
            .matching(User::ID.eq(self.user))
            .with(User::posts().with(Post::comments()))
            .concurrency(IN_FLIGHT)
            .first()
            .await
            .expect("dynorm loads the tree")
            .expect("the user exists")
    }

    async fn hand_written(&self) -> Tree {
        // Wave 1: the user's partition holds the user and the posts.
        let mut user = None;
        let mut posts = Vec::with_capacity(POSTS);
        let key = AttributeValue::S(format!("USER#{}", self.user));
        let mut start = None;
        loop {
            let output = self
                .db
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
        // Wave 2: the comments of each post, concurrently.
        let comments: Vec<Vec<Comment>> = stream::iter(posts.iter().map(|p| self.comments(p.id)))
            .buffered(IN_FLIGHT)
            .try_collect()
            .await
            .expect("the comments are read");
        (
            user.expect("the user exists"),
            posts.into_iter().zip(comments).collect(),
        )
    }

    async fn comments(&self, post: Uuid) -> Result<Vec<Comment>, dynorm::Error> {
        let mut comments = Vec::with_capacity(COMMENTS);
        let mut start = None;
        loop {
            let output = self
                .db
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
    // `BENCH_ONLY=dynorm` or `BENCH_ONLY=raw`: one side only, for a profiler.
    if let Ok(only) = std::env::var("BENCH_ONLY") {
        rt.block_on(async {
            for _ in 0..pairs {
                match only.as_str() {
                    "dynorm" => drop(fixture.dynorm().await),
                    _ => drop(fixture.hand_written().await),
                }
            }
        });
        return;
    }
    rt.block_on(async {
        let f = &fixture;
        for _ in 0..pairs.min(40) {
            f.dynorm().await;
            f.hand_written().await;
        }
        let (dynorm, raw) = (|| f.dynorm(), || f.hand_written());
        common::paired::paired(&mode, "relations", pairs, dynorm, raw).await;
    });
}
