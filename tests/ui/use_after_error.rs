// One mistake in the attributes: the derive reports it, and code that uses the model's
// key struct, its attribute constants and its index types reports nothing more.
use dynorm::Model;

#[derive(Model)]
#[dynorm(tabel = "Orders")]
struct Order {
    #[hash_key]
    id: String,
    #[index(name = "byStatus", project = false)]
    status: String,
    note: Option<String>,
}

async fn f(db: dynorm::Client) {
    let key = OrderKey { id: "o1".to_owned() };
    let _ = db.get::<Order>(key);
    let _ = db.get::<Order>("o1");
    let _ = Order::STATUS.eq("paid");
    let _ = Order::NOTE.exists();
    let _ = db.query_by::<OrderByStatus>("paid");
    let _: Option<OrderByStatusItem> = None;
}

fn main() {}
