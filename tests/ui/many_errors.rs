use dynorm::Model;

#[derive(Model)]
#[dynorm(tabel = "Users")]
struct User {
    id: String,
    name: String,
    #[dynorm(rename = "name")]
    display_name: String,
}

fn main() {}
