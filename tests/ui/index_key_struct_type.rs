use dynorm::Model;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Address {
    city: String,
}

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
    #[index(name = "byAddress")]
    address: Address,
}

fn main() {}
