use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
}

#[derive(Model)]
#[relation(name = "the author", one = User, fields = [author_id], references = [id])]
struct Post {
    #[hash_key]
    id: String,
    author_id: String,
}

fn main() {}
