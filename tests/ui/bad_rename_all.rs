use dynorm::Model;

#[derive(Model)]
#[dynorm(rename_all = "camelcase")]
struct User {
    #[hash_key]
    user_id: String,
}

fn main() {}
