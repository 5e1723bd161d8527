//! Relation loads take the rounds their plan says: an interceptor of the tests' own counts
//! the requests in flight and the sequential rounds they come in (maximal groups of
//! overlapping requests), and these are checked against `plan()` for the concurrency set
//! and for the default; no clock is read. Current-thread runtimes, on which these counts
//! are deterministic (see `common::in_flight`).

mod blog;
mod common;

use blog::*;
use common::in_flight::InFlight;
use common::Requests;
use dynorm::relation::Rounds;
use uuid::Uuid;

/// A blog table, and a client whose requests are counted by operation and in flight.
async fn blog_db(label: &str) -> (dynorm::Client, Requests, InFlight) {
    let db = common::db(label).await;
    db.tables()
        .create_shared::<BlogTable>()
        .send()
        .await
        .unwrap();
    let requests = Requests::new();
    let in_flight = InFlight::new();
    let counted = in_flight.client(&requests.client(&db));
    (counted, requests, in_flight)
}

/// A user with `posts` posts, each with two comments by that user.
async fn user_with_posts(db: &dynorm::Client, posts: usize) -> User {
    let user = User {
        id: Uuid::now_v7(),
        username: "ada".into(),
        email: "ada@example.org".into(),
    };
    db.put(&user).send().await.unwrap();
    let posts: Vec<Post> = (0..posts)
        .map(|i| Post {
            id: Uuid::now_v7(),
            author_id: user.id,
            title: format!("post {i}"),
            content: "...".into(),
        })
        .collect();
    db.batch_write().put_many(&posts).send().await.unwrap();
    let comments: Vec<Comment> = posts
        .iter()
        .flat_map(|p| {
            (0..2).map(|i| Comment {
                id: Uuid::now_v7(),
                post_id: p.id,
                author_id: user.id,
                body: format!("comment {i}"),
            })
        })
        .collect();
    db.batch_write().put_many(&comments).send().await.unwrap();
    user
}

/// A user, their posts (one Query: they share the partition `USER#<id>`) and each post's
/// comments (one Query per post), with `concurrency` if given.
async fn load_tree(
    db: &dynorm::Client,
    requests: &Requests,
    in_flight: &InFlight,
    user: &User,
    posts: usize,
    concurrency: Option<usize>,
) {
    let mut find = db
        .find::<User>()
        .matching(User::ID.eq(user.id))
        .with(User::posts().with(Post::comments()));
    if let Some(concurrency) = concurrency {
        find = find.concurrency(concurrency as u32);
    }
    let plan = find.plan().unwrap();
    let in_one_round = concurrency.unwrap_or(100);
    assert_eq!(plan.concurrency as usize, in_one_round, "{plan}");
    assert_eq!(plan.waves.len(), 2, "{plan}");
    assert_eq!(plan.rounds[0], [Rounds::One], "{plan}");
    assert_eq!(
        plan.rounds[1],
        [Rounds::PerParent {
            concurrency: in_one_round as u32
        }],
        "{plan}"
    );
    assert!(
        plan.waves[1][0].contains(&format!("{in_one_round} in flight")),
        "{plan}"
    );
    let planned = plan.total_rounds(posts as u32) as usize;
    assert_eq!(planned, 1 + posts.div_ceil(in_one_round), "{plan}");

    requests.clear();
    in_flight.reset();
    let (found, loaded) = find.first().await.unwrap().unwrap();
    assert_eq!(found.id, user.id);
    assert_eq!(loaded.len(), posts);
    assert!(loaded
        .iter()
        .all(|(p, comments)| comments.len() == 2 && comments.iter().all(|c| c.post_id == p.id)));

    // The plan's requests, in the plan's rounds, never more at once than it says.
    assert_eq!(
        plan.total_requests(posts as u32) as usize,
        1 + posts,
        "{plan}"
    );
    requests.assert_counts([("Query", 1 + posts)]);
    assert_eq!(in_flight.started(), 1 + posts);
    assert_eq!(in_flight.rounds(), planned, "{plan}");
    assert_eq!(in_flight.most(), in_one_round.min(posts), "{plan}");
    assert_eq!(in_flight.now(), 0);
}

#[tokio::test]
async fn twenty_posts_at_eight_in_flight_take_the_planned_four_rounds() {
    let (db, requests, in_flight) = blog_db("rounds_eight").await;
    let user = user_with_posts(&db, 20).await;
    // Wave 1: one round; wave 2: 20 Queries, 8 at a time, 3 rounds.
    load_tree(&db, &requests, &in_flight, &user, 20, Some(8)).await;
    // One at a time: a round per request.
    load_tree(&db, &requests, &in_flight, &user, 20, Some(1)).await;
}

#[tokio::test]
async fn by_default_a_wave_of_a_hundred_parents_is_one_round() {
    let (db, requests, in_flight) = blog_db("rounds_default").await;
    let user = user_with_posts(&db, 20).await;
    load_tree(&db, &requests, &in_flight, &user, 20, None).await;
    let many = user_with_posts(&db, 100).await;
    load_tree(&db, &requests, &in_flight, &many, 100, None).await;
}

#[tokio::test]
async fn batch_gets_of_a_one_relation_are_sent_with_the_concurrency_too() {
    let (db, requests, in_flight) = blog_db("rounds_batch_get").await;
    let writer = User {
        id: Uuid::now_v7(),
        username: "writer".into(),
        email: "writer@example.org".into(),
    };
    db.put(&writer).send().await.unwrap();
    let post = Post {
        id: Uuid::now_v7(),
        author_id: writer.id,
        title: "popular".into(),
        content: "...".into(),
    };
    db.put(&post).send().await.unwrap();
    // 130 comments by 130 distinct readers: two BatchGetItems, of 100 and 30 keys.
    let readers: Vec<User> = (0..130)
        .map(|i| User {
            id: Uuid::now_v7(),
            username: format!("reader{i}"),
            email: format!("reader{i}@example.org"),
        })
        .collect();
    db.batch_write().put_many(&readers).send().await.unwrap();
    let comments: Vec<Comment> = readers
        .iter()
        .map(|r| Comment {
            id: Uuid::now_v7(),
            post_id: post.id,
            author_id: r.id,
            body: "hi".into(),
        })
        .collect();
    db.batch_write().put_many(&comments).send().await.unwrap();

    for (concurrency, planned, most) in [(1, 1 + 2, 1), (2, 1 + 1, 2)] {
        let find = db
            .find::<Comment>()
            .matching(Comment::POST_ID.eq(post.id))
            .with(Comment::author())
            .concurrency(concurrency);
        let plan = find.plan().unwrap();
        assert_eq!(
            plan.rounds[1],
            [Rounds::PerHundredParents { concurrency }],
            "{plan}"
        );
        assert_eq!(plan.total_rounds(130) as usize, planned, "{plan}");
        requests.clear();
        in_flight.reset();
        let found = find.all().await.unwrap();
        assert_eq!(found.len(), 130);
        assert!(found
            .iter()
            .all(|(c, a)| a.as_ref().map(|a| a.id) == Some(c.author_id)));
        requests.assert_counts([("Query", 1), ("BatchGetItem", 2)]);
        assert_eq!(in_flight.rounds(), planned, "{plan}");
        assert_eq!(in_flight.most(), most, "{plan}");
    }
}

#[tokio::test]
async fn a_concurrency_of_zero_is_refused_before_sending() {
    let (db, requests, in_flight) = blog_db("rounds_zero").await;
    requests.clear();
    in_flight.reset();
    let find = db
        .find::<User>()
        .matching(User::ID.eq(missing_id()))
        .with(User::posts())
        .concurrency(0);
    let refused = find.plan().unwrap_err();
    assert!(refused.kind() == dynorm::ErrorKind::Validation, "{refused}");
    assert_eq!(refused.model(), Some("User"));
    assert_eq!(refused.operation(), Some("find"));
    assert!(refused.to_string().contains("concurrency 0"), "{refused}");
    let refused = find.all().await.unwrap_err();
    assert!(refused.kind() == dynorm::ErrorKind::Validation, "{refused}");
    assert_eq!(in_flight.started(), 0, "nothing is sent");
    assert_eq!(requests.total(), 0);
}
