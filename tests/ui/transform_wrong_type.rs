use dynorm::Model;

/// A transform takes and returns the field's type: here an `Option<String>`.
fn mark(value: String) -> String {
    value
}

#[derive(Model)]
struct Reply {
    #[hash_key]
    id: String,
    #[dynorm(set = mark)]
    viewed_by: Option<String>,
}

fn main() {}
