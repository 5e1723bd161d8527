use dynorm::Model;

#[derive(Model)]
#[dynorm(unique_name = "User")]
struct User {
    #[hash_key]
    id: String,
    #[unique]
    email: String,
}

async fn import(db: dynorm::Client, users: Vec<User>) -> Result<u32, dynorm::Error> {
    db.batch_write().put_many(&users).send().await
}

fn main() {
    let _ = import;
}
