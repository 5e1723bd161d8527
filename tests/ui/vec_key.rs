use dynorm::Model;

#[derive(Model)]
struct Post {
    #[hash_key]
    id: String,
    #[range_key]
    tags: Vec<String>,
}

fn main() {}
