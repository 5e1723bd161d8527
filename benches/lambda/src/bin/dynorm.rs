//! The handler on dynorm: a client from the environment, one PutItem, one GetItem.
//! Prints the item's total once the GetItem is answered, then exits.

use dynorm::Model;

#[derive(Model, Debug)]
#[dynorm(table = "LambdaBench")]
struct Order {
    #[hash_key]
    id: String,
    customer: String,
    total: f64,
    lines: u32,
    note: Option<String>,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let db = dynorm::Client::from_env().await;
    let order = Order {
        id: format!("order-{}", std::process::id()),
        customer: "c-42".into(),
        total: 99.5,
        lines: 3,
        note: Some("leave at the door".into()),
    };
    db.put(&order).send().await?;
    let got = db.get::<Order>(order.id.as_str()).send().await?;
    let got = got.ok_or("not found")?;
    println!("{} {}", got.total, got.lines);
    Ok(())
}
