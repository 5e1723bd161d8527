use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
}

// A relation's name is its function's name, so a keyword must be written raw: "r#type".
#[derive(Model)]
#[relation(name = "type", one = User, fields = [author_id], references = [id])]
struct Post {
    #[hash_key]
    id: String,
    author_id: String,
}

fn main() {}
