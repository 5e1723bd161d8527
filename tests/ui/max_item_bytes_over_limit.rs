use dynorm::Model;

#[derive(Model)]
#[dynorm(max_item_bytes = 500000)]
struct Note {
    #[hash_key]
    id: String,
    body: String,
}

fn main() {}
