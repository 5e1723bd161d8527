use dynorm::Model;

#[derive(Model)]
struct Post {
    #[hash_key]
    id: String,
    #[index(name = "byTags")]
    tags: Vec<String>,
}

fn main() {}
