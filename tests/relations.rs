//! Relations against a real server, counting requests: one Query for a post and its
//! comments (a shared partition), one BatchGetItem for the authors of 50 comments (one per
//! 100 distinct keys), depth-2 nesting in 3 waves, missing `one` targets, per-parent
//! limits, and the plan.

mod blog;
mod common;

use blog::*;
use common::Requests;
use dynorm::Model;

async fn blog_db(label: &str) -> (dynorm::Client, Requests) {
    let db = common::db(label).await;
    db.tables()
        .create_shared::<BlogTable>()
        .send()
        .await
        .unwrap();
    let requests = Requests::new();
    (requests.client(&db), requests)
}

async fn user(db: &dynorm::Client, name: &str) -> User {
    db.insert(NewUser {
        username: name.into(),
        email: format!("{name}@example.org"),
    })
    .send_returning_new()
    .await
    .unwrap()
}

async fn post(db: &dynorm::Client, author: &User, title: &str) -> Post {
    db.insert(NewPost {
        author_id: author.id,
        title: title.into(),
        content: "...".into(),
    })
    .send_returning_new()
    .await
    .unwrap()
}

async fn comment(db: &dynorm::Client, post: &Post, author: &User, body: &str) -> Comment {
    db.insert(NewComment {
        post_id: post.id,
        author_id: author.id,
        body: body.into(),
    })
    .send_returning_new()
    .await
    .unwrap()
}

#[tokio::test]
async fn a_post_and_its_comments_come_in_one_query() {
    let (db, requests) = blog_db("rel_shared").await;
    let ada = user(&db, "ada").await;
    let first = post(&db, &ada, "Understanding NoSQL Joins").await;
    let other = post(&db, &ada, "Another").await;
    let mut bodies = Vec::new();
    for i in 0..3 {
        bodies.push(
            comment(&db, &first, &ada, &format!("comment {i}"))
                .await
                .body,
        );
    }
    comment(&db, &other, &ada, "elsewhere").await;
    requests.take_all();

    let find = db
        .find::<Post>()
        .matching(Post::ID.eq(first.id))
        .with(Post::comments());
    let plan = find.plan().unwrap();
    assert_eq!(plan.waves.len(), 1, "{plan}");
    assert!(plan.to_string().contains("one partition"), "{plan}");
    assert_eq!(requests.take_all(), 0, "plan sends nothing");

    let (found, comments) = find.first().await.unwrap().unwrap();
    requests.assert_counts([("Query", 1)]);
    assert_eq!(found, first);
    let mut got: Vec<String> = comments.into_iter().map(|c| c.body).collect();
    got.sort();
    assert_eq!(got, bodies);

    // A post without comments, and a post that does not exist.
    let (alone, none) = db
        .find::<Post>()
        .matching(Post::ID.eq(other.id))
        .with(Post::comments())
        .first()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(alone, other);
    assert_eq!(none.len(), 1);
    let missing = db
        .find::<Post>()
        .matching(Post::ID.eq(missing_id()))
        .with(Post::comments())
        .first()
        .await
        .unwrap();
    assert!(missing.is_none());
}

#[tokio::test]
async fn the_authors_of_fifty_comments_are_one_batch_get() {
    let (db, requests) = blog_db("rel_batch").await;
    let writer = user(&db, "writer").await;
    let p = post(&db, &writer, "popular").await;
    // 50 comments by 25 users: each user wrote two.
    let mut authors = Vec::new();
    for i in 0..25 {
        authors.push(user(&db, &format!("reader{i}")).await);
    }
    for i in 0..50 {
        comment(&db, &p, &authors[i % 25], &format!("comment {i}")).await;
    }
    requests.take_all();
    let find = db
        .find::<Comment>()
        .matching(Comment::POST_ID.eq(p.id))
        .with(Comment::author());
    let plan = find.plan().unwrap();
    assert_eq!(plan.waves.len(), 2, "{plan}");
    assert!(plan.waves[1][0].contains("BatchGetItem"), "{plan}");
    let comments = find.all().await.unwrap();
    assert_eq!(comments.len(), 50);
    for (c, author) in &comments {
        assert_eq!(author.as_ref().map(|a| a.id), Some(c.author_id));
    }
    assert_eq!(requests.take("Query"), 1);
    assert_eq!(requests.take("BatchGetItem"), 1, "deduplicated, no N+1");
    assert_eq!(requests.take_all(), 0);
}

#[tokio::test]
async fn more_than_a_hundred_distinct_authors_are_one_batch_get_per_hundred() {
    let (db, requests) = blog_db("rel_batch_chunks").await;
    let writer = user(&db, "writer").await;
    let p = post(&db, &writer, "very popular").await;
    let readers: Vec<User> = (0..130)
        .map(|i| User {
            id: uuid::Uuid::now_v7(),
            username: format!("reader{i}"),
            email: format!("reader{i}@example.org"),
        })
        .collect();
    db.batch_write().put_many(&readers).send().await.unwrap();
    let comments: Vec<Comment> = readers
        .iter()
        .map(|r| Comment {
            id: uuid::Uuid::now_v7(),
            post_id: p.id,
            author_id: r.id,
            body: "hi".into(),
        })
        .collect();
    db.batch_write().put_many(&comments).send().await.unwrap();
    requests.take_all();
    let found = db
        .find::<Comment>()
        .matching(Comment::POST_ID.eq(p.id))
        .with(Comment::author())
        .all()
        .await
        .unwrap();
    assert_eq!(found.len(), 130);
    assert!(found
        .iter()
        .all(|(c, a)| a.as_ref().map(|a| a.id) == Some(c.author_id)));
    assert_eq!(requests.take("Query"), 1);
    assert_eq!(
        requests.take("BatchGetItem"),
        2,
        "130 keys: chunks of 100 and 30"
    );
    assert_eq!(requests.take_all(), 0);
}

#[tokio::test]
async fn posts_by_their_author_come_with_the_author_in_one_query() {
    let (db, requests) = blog_db("rel_shared_one").await;
    let writer = user(&db, "writer").await;
    for i in 0..50 {
        post(&db, &writer, &format!("post {i}")).await;
    }
    requests.take_all();
    // The author's profile is in the posts' partition, USER#<id>: no BatchGetItem.
    let find = db
        .find::<Post>()
        .matching(Post::AUTHOR_ID.eq(writer.id))
        .with(Post::author());
    let plan = find.plan().unwrap();
    assert_eq!(plan.waves.len(), 1, "{plan}");
    assert!(plan.waves[0][0].contains("`Post.author` (User)"), "{plan}");
    let posts = find.all().await.unwrap();
    assert_eq!(posts.len(), 50);
    assert!(posts
        .iter()
        .all(|(_, author)| author.as_ref() == Some(&writer)));
    requests.assert_counts([("Query", 1)]);
}

#[tokio::test]
async fn a_user_with_posts_and_their_comments_is_three_waves() {
    let (db, requests) = blog_db("rel_depth").await;
    let ada = user(&db, "ada").await;
    let grace = user(&db, "grace").await;
    let mut posts = Vec::new();
    for i in 0..4 {
        let p = post(&db, &ada, &format!("post {i}")).await;
        for j in 0..i {
            comment(&db, &p, &grace, &format!("{i}.{j}")).await;
        }
        posts.push(p);
    }
    requests.take_all();
    let find = db
        .find::<User>()
        .matching(User::ID.eq(ada.id))
        .with(User::posts().with((Post::comments().with(Comment::author()), Post::author())));
    let plan = find.plan().unwrap();
    // A user and their posts share the partition USER#{id}: one wave for both.
    assert_eq!(plan.waves.len(), 3, "{plan}");
    let (user, posts_found) = find.first().await.unwrap().unwrap();
    assert_eq!(user, ada);
    assert_eq!(posts_found.len(), 4);
    for ((p, (comments, author)), expected) in posts_found.iter().zip(0..) {
        assert_eq!(author.as_ref(), Some(&ada), "{}", p.title);
        assert_eq!(comments.len(), expected, "{}", p.title);
        assert!(comments.iter().all(|(_, a)| a.as_ref() == Some(&grace)));
    }
    // Wave 1: the user and the posts (one Query); wave 2: comments (one Query per post, 4)
    // and the posts' author (one BatchGetItem); wave 3: the comments' authors.
    requests.assert_counts([("Query", 1 + 4), ("BatchGetItem", 2)]);

    // Depth 2 without a shared partition: posts by author -> comments -> their authors is
    // 3 waves, whatever the number of posts.
    let find = db
        .find::<Post>()
        .matching(Post::AUTHOR_ID.eq(ada.id))
        .with(Post::comments().with(Comment::author()));
    assert_eq!(find.plan().unwrap().waves.len(), 3);
    let found = find.all().await.unwrap();
    assert_eq!(found.len(), 4);
    assert_eq!(requests.take("Query"), 1 + 4);
    assert_eq!(requests.take("BatchGetItem"), 1);
}

#[tokio::test]
async fn missing_one_targets_are_none_and_many_takes_limits() {
    let (db, requests) = blog_db("rel_missing").await;
    let ada = user(&db, "ada").await;
    let p = post(&db, &ada, "p").await;
    for i in 0..5 {
        comment(&db, &p, &ada, &format!("c{i}")).await;
    }
    // A comment whose author does not exist.
    let ghost = db
        .insert(NewComment {
            post_id: p.id,
            author_id: missing_id(),
            body: "ghost".into(),
        })
        .send_returning_new()
        .await
        .unwrap();
    let comments = db
        .find::<Comment>()
        .matching(Comment::POST_ID.eq(p.id))
        .with((Comment::author(), Comment::post()))
        .all()
        .await
        .unwrap();
    assert_eq!(comments.len(), 6);
    for (c, (author, parent)) in &comments {
        assert_eq!(parent.as_ref(), Some(&p));
        if c.id == ghost.id {
            assert!(author.is_none());
        } else {
            assert_eq!(author.as_ref(), Some(&ada));
        }
    }
    requests.take_all();
    let (_, limited) = db
        .find::<Post>()
        .matching(Post::ID.eq(p.id))
        .with(Post::comments().limit(2).descending())
        .first()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(limited.len(), 2);
    assert!(limited[0].id > limited[1].id, "descending by sort key");
    let (_, filtered) = db
        .find::<Post>()
        .matching(Post::ID.eq(p.id))
        .with(Post::comments().filter(Comment::BODY.eq("ghost")))
        .first()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(filtered, vec![ghost]);
}

/// A `many` relation's Query is planned once per load; each parent's request must still
/// carry that parent's own values, the same key condition and filter, and nothing else.
#[tokio::test]
async fn each_parents_query_carries_its_own_values() {
    let (db, requests) = blog_db("rel_per_parent").await;
    let ada = user(&db, "ada").await;
    let mut posts = Vec::new();
    for i in 0..3 {
        let p = post(&db, &ada, &format!("p{i}")).await;
        for j in 0..3 {
            comment(&db, &p, &ada, &format!("keep {i}.{j}")).await;
        }
        comment(&db, &p, &ada, "drop").await;
        posts.push(p);
    }
    requests.take_all();
    let (_, loaded) = db
        .find::<User>()
        .matching(User::ID.eq(ada.id))
        .with(
            User::posts().with(
                Post::comments()
                    .filter(Comment::BODY.begins_with("keep"))
                    .limit(2),
            ),
        )
        .first()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(loaded.len(), 3);
    for (p, comments) in &loaded {
        assert_eq!(comments.len(), 2, "at most 2 per post");
        for c in comments {
            assert_eq!(c.post_id, p.id);
            assert!(c.body.starts_with(&format!("keep {}.", &p.title[1..])));
        }
    }

    // Wave 1 is the user's partition; wave 2 one Query per post.
    let bodies = requests.bodies("Query");
    assert_eq!(bodies.len(), 1 + 3);
    let mut partitions: Vec<String> = Vec::new();
    let first = &bodies[1];
    for body in &bodies[1..] {
        let text = body.to_string();
        assert!(!text.contains("\\u0001"), "no stand-in is sent: {text}");
        for field in [
            "KeyConditionExpression",
            "FilterExpression",
            "ExpressionAttributeNames",
        ] {
            assert_eq!(
                body[field], first[field],
                "{field} is the same for every post"
            );
        }
        let values = body["ExpressionAttributeValues"].as_object().unwrap();
        let mut texts: Vec<&str> = values.values().filter_map(|v| v["S"].as_str()).collect();
        texts.sort_unstable();
        assert!(texts.contains(&"keep"), "the filter's value: {texts:?}");
        assert!(
            texts.contains(&"COMMENT#"),
            "the sort key prefix: {texts:?}"
        );
        let partition = texts
            .iter()
            .find(|t| t.starts_with("POST#"))
            .expect("the post's partition");
        partitions.push((*partition).to_owned());
    }
    partitions.sort();
    let mut expected: Vec<String> = posts.iter().map(|p| format!("POST#{}", p.id)).collect();
    expected.sort();
    assert_eq!(partitions, expected, "each post's own partition, once");
}

#[test]
fn the_physical_keys_are_the_seeds() {
    let post = Post {
        id: uuid::Uuid::nil(),
        author_id: uuid::Uuid::max(),
        title: String::new(),
        content: String::new(),
    };
    let item = post.to_item().unwrap();
    let s = |k: &str| item[k].as_s().unwrap().clone();
    assert_eq!(s("pk"), format!("USER#{}", uuid::Uuid::max()));
    assert_eq!(s("sk"), format!("POST#{}", uuid::Uuid::nil()));
    assert_eq!(s("gsi1pk"), format!("POST#{}", uuid::Uuid::nil()));
}

#[tokio::test]
async fn a_post_with_its_comments_and_its_author_is_one_query_then_one_batch_get() {
    let (db, requests) = blog_db("rel_shared_tuple").await;
    let ada = user(&db, "ada").await;
    let grace = user(&db, "grace").await;
    let p = post(&db, &ada, "shared").await;
    for i in 0..3 {
        comment(&db, &p, &grace, &format!("c{i}")).await;
    }
    requests.take_all();
    // The comments share the post's GSI1 partition; the author does not.
    let find = db
        .find::<Post>()
        .matching(Post::ID.eq(p.id))
        .with((Post::comments(), Post::author()));
    let plan = find.plan().unwrap();
    assert_eq!(plan.waves.len(), 2, "{plan}");
    assert!(
        plan.waves[0][0].contains("`Post.comments` (Comment)"),
        "{plan}"
    );
    assert_eq!(plan.waves[1].len(), 1, "{plan}");
    assert!(plan.waves[1][0].contains("`Post.author`"), "{plan}");
    let (found, (comments, author)) = find.first().await.unwrap().unwrap();
    assert_eq!(found, p);
    assert_eq!(comments.len(), 3);
    assert!(comments.iter().all(|c| c.post_id == p.id));
    assert_eq!(author, Some(ada));
    requests.assert_counts([("Query", 1), ("BatchGetItem", 1)]);
}

#[tokio::test]
async fn a_nested_relation_in_its_parents_partition_comes_with_it() {
    let (db, requests) = blog_db("rel_shared_nested").await;
    let ada = user(&db, "ada").await;
    let grace = user(&db, "grace").await;
    let linus = user(&db, "linus").await;
    let p = post(&db, &ada, "read me").await;
    post(&db, &ada, "ada's second").await;
    let grace_posts = vec![
        post(&db, &grace, "grace's first").await,
        post(&db, &grace, "grace's second").await,
    ];
    // Three comments by two authors; linus wrote no post.
    comment(&db, &p, &grace, "first").await;
    comment(&db, &p, &linus, "second").await;
    comment(&db, &p, &grace, "third").await;
    requests.take_all();

    // Each comment's author with that author's posts: a user and their posts share the
    // partition USER#<id>, so each distinct author is one Query, and no BatchGetItem.
    let find = db
        .find::<Comment>()
        .matching(Comment::POST_ID.eq(p.id))
        .with(Comment::author().with(User::posts()));
    let plan = find.plan().unwrap();
    assert_eq!(plan.waves.len(), 2, "{plan}");
    assert!(plan.waves[1][0].contains("one partition each"), "{plan}");
    let found = find.all().await.unwrap();
    assert_eq!(found.len(), 3);
    for (c, author) in &found {
        let (author, posts) = author.as_ref().expect("every author exists");
        assert_eq!(author.id, c.author_id);
        let expected = if author.id == grace.id {
            &grace_posts
        } else {
            &Vec::new()
        };
        assert_eq!(posts, expected, "{}", author.username);
    }
    assert_eq!(
        requests.take("Query"),
        1 + 2,
        "the comments, then two authors"
    );
    assert_eq!(requests.take_all(), 0);

    // A comment's post (reached through GSI1, POST#<id>) with that post's comments, which
    // share its GSI1 partition: one Query for both.
    let find = db
        .find::<Comment>()
        .matching(Comment::POST_ID.eq(p.id))
        .with(Comment::post().with(Post::comments()));
    assert_eq!(find.plan().unwrap().waves.len(), 2);
    let found = find.all().await.unwrap();
    assert_eq!(found.len(), 3);
    for (_, parent) in &found {
        let (parent, siblings) = parent.as_ref().expect("the post exists");
        assert_eq!(parent, &p);
        assert_eq!(siblings.len(), 3);
    }
    requests.assert_counts([("Query", 2)]);

    // With a per-parent limit the nested relation is read on its own: three waves.
    let find = db
        .find::<Comment>()
        .matching(Comment::POST_ID.eq(p.id))
        .with(Comment::author().with(User::posts().limit(1)));
    assert_eq!(find.plan().unwrap().waves.len(), 3);
    let found = find.all().await.unwrap();
    for (_, author) in &found {
        let (author, posts) = author.as_ref().unwrap();
        let expected = if author.id == grace.id {
            &grace_posts[..1]
        } else {
            &[]
        };
        assert_eq!(posts, expected, "{}", author.username);
    }
    requests.assert_counts([("Query", 1 + 2), ("BatchGetItem", 1)]);
}
