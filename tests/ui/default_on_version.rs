use dynorm::Model;

#[derive(Model)]
struct Store {
    #[hash_key]
    id: String,
    // dynorm sets a version itself: a default would never be used.
    #[version]
    #[dynorm(default = 1)]
    version: u64,
}

fn main() {}
