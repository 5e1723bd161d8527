//! Budgets and predictions of relation loads, against a real server: a budgeted find never
//! consumes more than its budget on any page, and paging until the end returns exactly the
//! roots and trees an unbudgeted `all` returns, each root once, for several budgets and
//! concurrencies; a budget too small for the first tree is an error; `all` and `first`
//! refuse a budget; and a load plan's predicted capacity contains what the load consumed.

// The blog models; not every helper is used here.
#[allow(dead_code)]
mod blog;
mod common;

use blog::*;
use dynorm::observe::Tally;
use uuid::Uuid;

/// Posts of the author.
const POSTS: usize = 24;
/// An upper bound of every item's size as DynamoDB counts it.
const MAX_ITEM_BYTES: u32 = 1024;

/// A post with its comments, each with its author; and the post's author.
type Tree = (Post, (Vec<(Comment, Option<User>)>, Option<User>));

/// A blog with an author of `POSTS` posts, post `i` with `i % 5` comments by three
/// commenters; gives the author.
async fn blog(label: &str) -> (dynorm::Client, User) {
    let db = common::db(label).await;
    db.tables()
        .create_shared::<BlogTable>()
        .send()
        .await
        .unwrap();
    let user = |name: &str| User {
        id: Uuid::now_v7(),
        username: name.into(),
        email: format!("{name}@example.org"),
    };
    let author = user("ada");
    let commenters = [user("bo"), user("cy"), user("di")];
    let ids: Vec<Uuid> = commenters.iter().map(|c| c.id).collect();
    let mut users = commenters.to_vec();
    users.push(author.clone());
    db.batch_write().put_many(&users).send().await.unwrap();
    let posts: Vec<Post> = (0..POSTS)
        .map(|i| Post {
            id: Uuid::now_v7(),
            author_id: author.id,
            title: format!("post {i}"),
            content: "p".repeat(100 + i * 20),
        })
        .collect();
    db.batch_write().put_many(&posts).send().await.unwrap();
    let comments: Vec<Comment> = posts
        .iter()
        .enumerate()
        .flat_map(|(i, post)| {
            let ids = &ids;
            (0..i % 5).map(move |c| Comment {
                id: Uuid::now_v7(),
                post_id: post.id,
                author_id: ids[(i + c) % 3],
                body: format!("comment {c} on {i}"),
            })
        })
        .collect();
    db.batch_write().put_many(&comments).send().await.unwrap();
    (db, author)
}

/// The load: the author's posts, each with its comments and their authors, and its author.
fn find(db: &dynorm::Client, author: &User) -> dynorm::relation::Find<Post, impl TreeLoad> {
    db.find::<Post>()
        .matching(Post::AUTHOR_ID.eq(author.id))
        .with((Post::comments().with(Comment::author()), Post::author()))
}

/// The loader of [`find`], named once.
trait TreeLoad: dynorm::relation::Load<Post, Joined = Tree> {}
impl<L: dynorm::relation::Load<Post, Joined = Tree>> TreeLoad for L {}

/// A tree in words: the post, each comment with its author, the post's author.
fn show(tree: &Tree) -> String {
    let (post, (comments, author)) = tree;
    let comments: Vec<String> = comments
        .iter()
        .map(|(c, a)| {
            format!(
                "{}:{}",
                c.id,
                a.as_ref().map(|a| a.username.as_str()).unwrap_or("-")
            )
        })
        .collect();
    format!(
        "{} [{}] by {}",
        post.id,
        comments.join(","),
        author.as_ref().map(|a| a.username.as_str()).unwrap_or("-")
    )
}

#[tokio::test]
async fn budgeted_pages_never_pass_their_budget_and_resume_exactly() {
    let (db, author) = blog("relation_budget_pages").await;
    let whole: Vec<String> = find(&db, &author)
        .all()
        .await
        .unwrap()
        .iter()
        .map(show)
        .collect();
    assert_eq!(whole.len(), POSTS);
    assert!(whole.iter().any(|t| t.contains(":bo")), "{whole:?}");
    for (budget, concurrency) in [(6.0, 100), (7.0, 3), (9.5, 100), (20.0, 8), (500.0, 100)] {
        let mut read = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            let tally = Tally::default();
            let page = find(&db, &author)
                .concurrency(concurrency)
                .max_item_bytes(MAX_ITEM_BYTES)
                .tally(&tally)
                .budget(budget)
                .page(cursor.as_deref())
                .await
                .unwrap_or_else(|e| panic!("budget {budget}, page {pages}: {e}"));
            let spent = tally.consumed_capacity().map_or(0.0, |c| c.units);
            assert!(
                spent <= budget,
                "budget {budget}, concurrency {concurrency}, page {pages}: spent {spent}"
            );
            pages += 1;
            read.extend(page.items.iter().map(show));
            cursor = page.cursor;
            if cursor.is_none() {
                break;
            }
            assert!(pages < 1000, "budget {budget}: the pages do not end");
        }
        assert_eq!(read, whole, "budget {budget}, concurrency {concurrency}");
        if budget < 20.0 {
            assert!(pages > 1, "budget {budget}: one page read everything");
        }
    }
}

#[tokio::test]
async fn a_budget_too_small_for_the_first_tree_or_set_wrong_is_an_error() {
    // `all` and `first` on a budgeted find do not compile (tests/ui/budget_whole_reads.rs).
    let (db, author) = blog("relation_budget_refusals").await;
    // Post 4 has four comments; a unit pays for two items of 1 KB.
    let error = find(&db, &author)
        .max_item_bytes(MAX_ITEM_BYTES)
        .budget(1.0)
        .page(None)
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert!(error.to_string().contains("first root"), "{error}");
    for error in [
        find(&db, &author).budget(0.0).page(None).await.unwrap_err(),
        find(&db, &author)
            .max_item_bytes(0)
            .budget(5.0)
            .page(None)
            .await
            .unwrap_err(),
    ] {
        assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
        assert_eq!(error.model(), Some("Post"), "{error}");
    }
    // A per-parent limit of 0 is refused before sending, as `page_size(0)` is.
    let error = db
        .find::<Post>()
        .matching(Post::AUTHOR_ID.eq(author.id))
        .with(Post::comments().limit(0))
        .max_item_bytes(MAX_ITEM_BYTES)
        .budget(3.0)
        .page(None)
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert!(error.to_string().contains("limit(0)"), "{error}");
    // Without a budget, a page is one DynamoDB page of roots, with their trees.
    let page = find(&db, &author).page(None).await.unwrap();
    assert_eq!(page.items.len(), POSTS);
    assert!(page.cursor.is_none());
}

#[tokio::test]
async fn a_budgeted_plan_reads_each_relation_on_its_own() {
    let (db, author) = blog("relation_budget_plan").await;
    let user_tree = || {
        db.find::<User>()
            .matching(User::ID.eq(author.id))
            .with(User::posts())
    };
    let shared = user_tree().plan().unwrap().to_string();
    assert!(shared.contains("one partition"), "{shared}");
    let budgeted = user_tree().budget(10.0).plan().unwrap();
    assert!(
        !budgeted.to_string().contains("one partition"),
        "{budgeted}"
    );
    assert_eq!(budgeted.waves.len(), 2, "{budgeted}");
    // Budgeted, the posts come with their own Query, and every post with the user.
    let page = user_tree()
        .max_item_bytes(MAX_ITEM_BYTES)
        .budget(10.0)
        .page(None)
        .await
        .unwrap();
    let (user, posts) = &page.items[0];
    assert_eq!(user.id, author.id);
    assert_eq!(posts.len(), POSTS);
}

#[tokio::test]
async fn a_load_plan_predicts_what_the_load_consumes() {
    let (db, author) = blog("relation_budget_predict").await;
    let plan = find(&db, &author).plan().unwrap();
    let tally = Tally::default();
    let trees = find(&db, &author).tally(&tally).all().await.unwrap();
    let comments: usize = trees.iter().map(|(_, (c, _))| c.len()).sum();
    // No relation of the load has more distinct parents than there are comments.
    let parents = POSTS.max(comments);
    let consumed = tally.consumed_capacity().expect("capacity was reported");
    assert!(consumed.units > 0.0);
    {
        let predicted = plan.predict(parents as u32);
        assert!(
            predicted.contains(&consumed),
            "{predicted}\nconsumed {consumed:?}"
        );
        assert!(predicted.requests() >= tally.requests(), "{predicted}");
        // Every request is in the tally: the roots' page (which holds the posts' author,
        // in the partition `USER#<id>`), a Query per post, and a BatchGetItem for the
        // comments' three authors.
        assert_eq!(tally.requests() as usize, 1 + POSTS + 1);
    }
    assert_eq!(
        plan.total_requests(parents as u32),
        plan.predict(parents as u32).requests()
    );

    // A per-parent limit cuts what a parent keeps, not what its Query reads: the
    // prediction does not count on it.
    let limited = || {
        db.find::<Post>()
            .matching(Post::AUTHOR_ID.eq(author.id))
            .with(Post::comments().limit(1))
    };
    let tally = Tally::default();
    let predicted = limited().plan().unwrap().predict(POSTS as u32);
    limited().tally(&tally).all().await.unwrap();
    let consumed = tally.consumed_capacity().expect("capacity was reported");
    assert!(predicted.contains(&consumed), "{predicted}\n{consumed:?}");
    let unlimited = db
        .find::<Post>()
        .matching(Post::AUTHOR_ID.eq(author.id))
        .with(Post::comments())
        .plan()
        .unwrap()
        .predict(POSTS as u32);
    assert_eq!(predicted.read_units(), unlimited.read_units());
}
