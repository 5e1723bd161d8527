use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
    age: u32,
}

async fn f(db: dynorm::Client) {
    let _ = db.update::<User>("k").set(User::AGE, "old");
}

fn main() {}
