use dynorm::Model;

#[derive(serde::Deserialize)]
struct UserV1 {
    id: String,
}

#[derive(Model)]
#[dynorm(shape = 2, upcasts = [UserV1])]
struct User {
    #[hash_key]
    id: String,
}

fn main() {}
