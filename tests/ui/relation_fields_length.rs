use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    org: String,
    #[range_key]
    id: String,
}

// Two references, one field.
#[derive(Model)]
#[relation(name = "author", one = User, fields = [author_id], references = [org, id])]
struct Post {
    #[hash_key]
    id: String,
    author_id: String,
}

fn main() {}
