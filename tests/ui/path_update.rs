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
    vet: Vet,
    names: String,
}

fn paths(db: dynorm::Client) {
    // A path inside an attribute is for conditions: no update writes it.
    let _ = db.update::<Pet>("p1").set(Pet::VET.field::<String>("name"), "Herb");
    // Only a list has elements.
    let _ = Pet::NAMES.at(0);
}

fn main() {}
