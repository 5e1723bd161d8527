//! The Mizzle blog's schema: one table, User, Post and Comment with UUID v7 ids, the
//! seed's table keys, and a GSI where a post and its comments share a partition.

use dynorm::Model;
use uuid::Uuid;

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "BlogTable", entity = "User", rename_all = "camelCase")]
#[key(pk = "USER#{id}", sk = "PROFILE")]
#[relation(name = "posts", many = Post, fields = [id], references = [author_id])]
pub struct User {
    #[dynorm(default = "uuid_v7")]
    pub id: Uuid,
    pub username: String,
    pub email: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "BlogTable", entity = "Post", rename_all = "camelCase")]
#[key(pk = "USER#{author_id}", sk = "POST#{id}")]
#[key(index = "GSI1", gsi1pk = "POST#{id}", gsi1sk = "POST#{id}")]
#[relation(name = "author", one = User, fields = [author_id], references = [id])]
#[relation(name = "comments", many = Comment, fields = [id], references = [post_id])]
pub struct Post {
    #[dynorm(default = "uuid_v7")]
    pub id: Uuid,
    pub author_id: Uuid,
    pub title: String,
    pub content: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "BlogTable", entity = "Comment", rename_all = "camelCase")]
#[key(pk = "POST#{post_id}", sk = "COMMENT#{id}")]
#[key(index = "GSI1", gsi1pk = "POST#{post_id}", gsi1sk = "COMMENT#{id}")]
#[relation(name = "post", one = Post, fields = [post_id], references = [id])]
#[relation(name = "author", one = User, fields = [author_id], references = [id])]
pub struct Comment {
    #[dynorm(default = "uuid_v7")]
    pub id: Uuid,
    pub post_id: Uuid,
    pub author_id: Uuid,
    pub body: String,
}

dynorm::shared_table!(pub struct BlogTable { User, Post, Comment });

/// A fresh id, for references to items that do not exist.
pub fn missing_id() -> Uuid {
    Uuid::now_v7()
}
