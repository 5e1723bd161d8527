use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: u64,
}

#[derive(Model)]
#[relation(name = "author", one = User, fields = [author_id], references = [id])]
struct Post {
    #[hash_key]
    id: String,
    author_id: String,
}

fn main() {}
