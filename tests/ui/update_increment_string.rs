use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
    name: String,
}

async fn f(db: dynorm::Client) {
    let _ = db.update::<User>("k").increment(User::NAME, String::from("1"));
}

fn main() {}
