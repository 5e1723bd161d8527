//! The main demo: the seed's `User` and `Message` models on the embedded server.
//!
//! Run it with `cargo run --example quickstart`. Set `DYNAMODB_ENDPOINT` to run it against
//! DynamoDB Local instead.

use chrono::{DateTime, TimeZone, Utc};
use dynorm::schema::ModelKey;
use dynorm::Model;

/// A user: a hash key alone, so `get` also takes the bare id.
#[derive(Model, Debug, Clone, PartialEq)]
struct User {
    #[hash_key]
    id: String,
    name: String,
}

/// A chat message: the room is the hash key and the send time the range key.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(rename_all = "camelCase")]
struct Message {
    #[hash_key]
    room_id: String,
    #[range_key]
    sent_at: DateTime<Utc>,
    author: String,
    text: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A fresh prefix per run, so the demo can run again against a persistent server.
    let db = dynorm_test::local::client()
        .await?
        .to_builder()
        .table_prefix(format!("quickstart_{}_", Utc::now().timestamp_millis()))
        .build();

    println!("== Keys and tables ==");
    println!("User.hash_key = {:?}", User::HASH_KEY);
    println!("Message.range_key = {:?}", Message::RANGE_KEY);
    println!(
        "Message.table_name = {:?} (full name: {})",
        Message::TABLE_NAME,
        db.tables().name::<Message>()
    );

    db.tables().create::<User>().send().await?;
    db.tables().create::<Message>().send().await?;
    db.tables()
        .wait_until_active::<User>(std::time::Duration::from_secs(30))
        .send()
        .await?;
    db.tables()
        .wait_until_active::<Message>(std::time::Duration::from_secs(30))
        .send()
        .await?;
    println!(
        "created tables {} and {}",
        db.tables().name::<User>(),
        db.tables().name::<Message>()
    );

    println!("\n== create, then get ==");
    let ada = User {
        id: "u1".into(),
        name: "Ada".into(),
    };
    db.create(&ada).send().await?;
    println!("created {ada:?}");
    let by_bare_key = db.get::<User>("u1").send().await?;
    let by_typed_key = db
        .get::<User>(UserKey { id: "u1".into() })
        .consistent_read(true)
        .send()
        .await?;
    println!("get(\"u1\")            -> {by_bare_key:?}");
    println!("get(UserKey {{ id }})  -> {by_typed_key:?}");

    println!("\n== a duplicate create is rejected ==");
    let impostor = User {
        id: "u1".into(),
        name: "Not Ada".into(),
    };
    match db.create(&impostor).send().await {
        Err(e) if e.kind() == dynorm::ErrorKind::AlreadyExists => {
            let stored = e.current_item::<User>().transpose()?;
            println!("rejected: {e}");
            println!("the stored item is still {stored:?}");
        }
        other => return Err(format!("expected AlreadyExists, got {other:?}").into()),
    }

    println!("\n== overwrite ==");
    let renamed = User {
        id: "u1".into(),
        name: "Ada Lovelace".into(),
    };
    db.create(&renamed).overwrite(true).send().await?;
    println!(
        "after create(.., overwrite): {:?}",
        db.get::<User>("u1").send().await?
    );

    println!("\n== a composite key ==");
    let sent_at = Utc
        .with_ymd_and_hms(2026, 11, 6, 9, 30, 0)
        .single()
        .ok_or("bad date")?;
    let hello = Message {
        room_id: "general".into(),
        sent_at,
        author: "u1".into(),
        text: "Hello, DynamoDB".into(),
    };
    db.put(&hello).send().await?;
    let key = MessageKey {
        room_id: "general".into(),
        sent_at,
    };
    let item = db
        .sdk()
        .get_item()
        .table_name(db.tables().name::<Message>())
        .set_key(Some(key.clone().to_key_item()?))
        .send()
        .await?
        .item
        .unwrap_or_default();
    println!("stored sentAt: {:?}", item.get("sentAt"));
    println!(
        "get(MessageKey {{ .. }}) -> {:?}",
        db.get::<Message>(key.clone()).send().await?
    );

    println!("\n== delete ==");
    let old = db
        .delete::<Message>(key.clone())
        .send_returning_old()
        .await?;
    println!("deleted {:?}", old.map(|m| m.text));
    println!(
        "get after delete -> {:?}",
        db.get::<Message>(key).send().await?
    );

    println!("\n== bad input is an error before sending ==");
    let mut raw = dynorm::Item::new();
    raw.insert(
        "roomId".into(),
        dynorm::types::AttributeValue::S("general".into()),
    );
    match dynorm::item::GetItem::<Message>::raw(&db, raw).send().await {
        Err(e) => println!("GetItem::raw without sentAt: {e}"),
        Ok(found) => return Err(format!("expected a validation error, got {found:?}").into()),
    }

    println!(
        "\ndone: tables {} and {} are left in place (on the embedded server they go when the process ends; see the README: Examples and their tables)",
        db.tables().name::<User>(),
        db.tables().name::<Message>(),
    );
    Ok(())
}
