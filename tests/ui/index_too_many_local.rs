use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[range_key]
    sk: String,
    #[index(name = "byL1", local)]
    l1: String,
    #[index(name = "byL2", local)]
    l2: String,
    #[index(name = "byL3", local)]
    l3: String,
    #[index(name = "byL4", local)]
    l4: String,
    #[index(name = "byL5", local)]
    l5: String,
    #[index(name = "byL6", local)]
    l6: String,
}

fn main() {}
