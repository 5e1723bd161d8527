use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[index(name = "byStatus")]
    status: String,
}

async fn f(db: dynorm::Client) {
    let _ = db.query_by::<OrderByStatus>(5);
}

fn main() {}
