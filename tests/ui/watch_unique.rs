use dynorm::Model;

fn shout(name: &str) -> String {
    name.to_uppercase()
}

// A computed field cannot be unique: one error, at the field.
#[derive(Model, Debug, Clone)]
#[dynorm(table = "Shouts", unique_name = "Shout")]
struct Shout {
    #[hash_key]
    id: String,
    name: String,
    #[unique]
    #[dynorm(watch = [name], set = shout)]
    label: String,
}

fn main() {}
