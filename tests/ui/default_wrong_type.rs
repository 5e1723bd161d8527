use dynorm::Model;

#[derive(Model)]
struct Store {
    #[hash_key]
    id: String,
    // A literal default has its field's type: "zero" is not a number.
    #[dynorm(default = "zero")]
    warnings: u32,
}

fn main() {}
