use dynorm::Model;

#[derive(Model)]
#[dynorm(tabel = "x")]
struct User {
    #[hash_key]
    id: String,
}

fn main() {}
