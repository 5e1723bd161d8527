//! The Mizzle relational blog, step by step, in Rust: one table, three entities with
//! UUID v7 ids, relations, inserts that return the stored row, and a post with its
//! comments in one request.
//!
//! `cargo run --example blog` (on the embedded server, or at `DYNAMODB_ENDPOINT`). The
//! table is left in place, so its items can be inspected.

use chrono::Utc;
use dynorm::Model;
use uuid::Uuid;

// Steps 1 and 2: the physical table (`pk`, `sk`) and the entities, with the seed's keys.
// Post and Comment also write `gsi1pk = POST#{post id}`, so that a post and its comments
// share a partition of the index GSI1.

#[derive(Model, Debug, Clone)]
#[dynorm(table = "BlogTable", entity = "User", rename_all = "camelCase")]
#[key(pk = "USER#{id}", sk = "PROFILE")]
// Step 3: relations, declared on the models.
#[relation(name = "posts", many = Post, fields = [id], references = [author_id])]
struct User {
    #[dynorm(default = "uuid_v7")] // a time-sortable UUID v7
    id: Uuid,
    username: String,
    email: String,
}

#[derive(Model, Debug, Clone)]
#[dynorm(table = "BlogTable", entity = "Post", rename_all = "camelCase")]
#[key(pk = "USER#{author_id}", sk = "POST#{id}")] // co-located under the author
#[key(index = "GSI1", gsi1pk = "POST#{id}", gsi1sk = "POST#{id}")]
#[relation(name = "author", one = User, fields = [author_id], references = [id])]
#[relation(name = "comments", many = Comment, fields = [id], references = [post_id])]
struct Post {
    #[dynorm(default = "uuid_v7")]
    id: Uuid,
    author_id: Uuid,
    title: String,
    content: String,
}

#[derive(Model, Debug, Clone)]
#[dynorm(table = "BlogTable", entity = "Comment", rename_all = "camelCase")]
#[key(pk = "POST#{post_id}", sk = "COMMENT#{id}")] // co-located under the post
#[key(index = "GSI1", gsi1pk = "POST#{post_id}", gsi1sk = "COMMENT#{id}")]
#[relation(name = "post", one = Post, fields = [post_id], references = [id])]
#[relation(name = "author", one = User, fields = [author_id], references = [id])]
struct Comment {
    #[dynorm(default = "uuid_v7")]
    id: Uuid,
    post_id: Uuid,
    author_id: Uuid,
    body: String,
}

dynorm::shared_table!(struct BlogTable { User, Post, Comment });

#[tokio::main]
async fn main() -> Result<(), dynorm::Error> {
    // Step 4: the client.
    let db = dynorm_test::local::client()
        .await?
        .to_builder()
        .table_prefix(format!("blog_{}_", Utc::now().timestamp_millis()))
        .build();
    db.tables().create_shared::<BlogTable>().send().await?;

    // Step 5: insert, each returning the stored row with its generated id.
    println!("== inserts");
    let user = db
        .insert(NewUser {
            username: "jedi_master".into(),
            email: "obiwan@council.org".into(),
        })
        .send_returning_new()
        .await?;
    let post = db
        .insert(NewPost {
            author_id: user.id,
            title: "Understanding NoSQL Joins".into(),
            content: "Single-Table Design is the key to performance...".into(),
        })
        .send_returning_new()
        .await?;
    db.insert(NewComment {
        post_id: post.id,
        author_id: user.id,
        body: "Excellent summary! Very helpful.".into(),
    })
    .send()
    .await?;
    println!("user {} ({}), post {}", user.username, user.id, post.id);

    // A post and its comments in one shot: one Query on GSI1, partition POST#{id}.
    println!("\n== a post with its comments");
    let find = db
        .find::<Post>()
        .matching(Post::ID.eq(post.id))
        .with(Post::comments());
    print!("{}", find.plan()?);
    if let Some((post, comments)) = find.first().await? {
        println!("{}", post.title);
        println!(
            "{:?}",
            comments.iter().map(|c| c.body.as_str()).collect::<Vec<_>>()
        );
    }

    // A user with their posts, each post with its comments and each comment's author.
    println!("\n== a user with posts, comments and their authors");
    let find = db
        .find::<User>()
        .matching(User::ID.eq(user.id))
        .with(User::posts().with(Post::comments().with(Comment::author())));
    print!("{}", find.plan()?);
    if let Some((user, posts)) = find.first().await? {
        println!("{} wrote {} post(s)", user.username, posts.len());
        for (post, comments) in posts {
            println!("  {}", post.title);
            for (comment, author) in comments {
                let by = author.map_or("(deleted user)".to_owned(), |a| a.username);
                println!("    {by}: {}", comment.body);
            }
        }
    }

    println!(
        "\ntable {} is left in place (on the embedded server it goes when the process ends; see the README: Examples and their tables)",
        db.tables().name::<User>()
    );
    Ok(())
}
