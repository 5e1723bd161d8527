use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
}

#[derive(Model)]
#[relation(name = "author", one = User, fields = [author_id], references = [user_id])]
struct Post {
    #[hash_key]
    id: String,
    author_id: String,
}

fn main() {}
