use dynorm::Model;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Address {
    street: String,
    city: String,
}

#[derive(Model)]
struct Customer {
    #[hash_key]
    address: Address,
    name: String,
}

fn main() {}
