//! The handler on the raw SDK: a client from the environment, one PutItem, one GetItem,
//! with the item written and read by hand. Prints the item's total once the GetItem is
//! answered, then exits.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

#[derive(Debug)]
struct Order {
    id: String,
    customer: String,
    total: f64,
    lines: u32,
    note: Option<String>,
}

type Item = HashMap<String, AttributeValue>;

fn to_item(order: &Order) -> Item {
    let mut item = HashMap::with_capacity(5);
    item.insert("id".to_owned(), AttributeValue::S(order.id.clone()));
    item.insert(
        "customer".to_owned(),
        AttributeValue::S(order.customer.clone()),
    );
    item.insert(
        "total".to_owned(),
        AttributeValue::N(order.total.to_string()),
    );
    item.insert(
        "lines".to_owned(),
        AttributeValue::N(order.lines.to_string()),
    );
    if let Some(note) = &order.note {
        item.insert("note".to_owned(), AttributeValue::S(note.clone()));
    }
    item
}

fn string(item: &mut Item, name: &str) -> Result<String, String> {
    match item.remove(name) {
        Some(AttributeValue::S(s)) => Ok(s),
        other => Err(format!("{name}: expected a string, found {other:?}")),
    }
}

fn number<T: std::str::FromStr>(item: &mut Item, name: &str) -> Result<T, String> {
    match item.remove(name) {
        Some(AttributeValue::N(n)) => n.parse().map_err(|_| format!("{name}: bad number {n}")),
        other => Err(format!("{name}: expected a number, found {other:?}")),
    }
}

fn from_item(mut item: Item) -> Result<Order, String> {
    Ok(Order {
        id: string(&mut item, "id")?,
        customer: string(&mut item, "customer")?,
        total: number(&mut item, "total")?,
        lines: number(&mut item, "lines")?,
        note: match item.remove("note") {
            None | Some(AttributeValue::Null(_)) => None,
            Some(AttributeValue::S(s)) => Some(s),
            Some(other) => return Err(format!("note: expected a string, found {other:?}")),
        },
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let db = aws_sdk_dynamodb::Client::new(&config);
    let order = Order {
        id: format!("order-{}", std::process::id()),
        customer: "c-42".into(),
        total: 99.5,
        lines: 3,
        note: Some("leave at the door".into()),
    };
    db.put_item()
        .table_name("LambdaBench")
        .set_item(Some(to_item(&order)))
        .send()
        .await?;
    let output = db
        .get_item()
        .table_name("LambdaBench")
        .key("id", AttributeValue::S(order.id.clone()))
        .send()
        .await?;
    let got = from_item(output.item.ok_or("not found")?)?;
    println!("{} {}", got.total, got.lines);
    Ok(())
}
