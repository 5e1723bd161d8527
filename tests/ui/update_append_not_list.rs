use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
    name: String,
}

async fn f(db: dynorm::Client) {
    let _ = db.update::<User>("k").append(User::NAME, vec!["x".to_owned()]);
}

fn main() {}
