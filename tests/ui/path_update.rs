use dynorm::Model;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Vet {
    name: String,
}

#[derive(Model)]
struct Pet {
    #[hash_key]
    id: String,
    #[dynorm(read_only)]
    vet: Vet,
    names: String,
}

fn paths(db: dynorm::Client) {
    // A path inside a read-only attribute is read-only too.
    let _ = db.update::<Pet>("p1").set(Pet::VET.field::<String>("name"), "Herb");
    // Only a list has elements.
    let _ = Pet::NAMES.at(0);
}

fn main() {}
