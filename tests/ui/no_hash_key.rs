use dynorm::Model;

#[derive(Model)]
struct User {
    id: String,
    name: String,
}

fn main() {}
