//! Transactions against a real server: all-or-nothing writes across models, typed
//! cancellation reasons, checks before sending, idempotency and transactional reads.

mod common;

use dynorm::{ErrorKind, Model};

#[derive(Model, Debug, Clone, PartialEq)]
struct Account {
    #[hash_key]
    id: String,
    balance: i64,
}

#[derive(Model, Debug, Clone, PartialEq)]
struct Transfer {
    #[hash_key]
    id: String,
    from: String,
    to: String,
    amount: i64,
}

async fn bank(label: &str) -> dynorm::Client {
    let db = common::db_with::<Account>(label).await;
    db.tables().ensure::<Transfer>().send().await.unwrap();
    for (id, balance) in [("alice", 100), ("bob", 20)] {
        db.put(&Account {
            id: id.into(),
            balance,
        })
        .send()
        .await
        .unwrap();
    }
    db
}

fn transfer(id: &str, amount: i64) -> Transfer {
    Transfer {
        id: id.into(),
        from: "alice".into(),
        to: "bob".into(),
        amount,
    }
}

/// A transfer: a new record, a conditional debit and a credit, all or nothing.
fn move_money(db: &dynorm::Client, id: &str, amount: i64) -> dynorm::transaction::TransactWrite {
    db.transact_write()
        .write(db.create(&transfer(id, amount)))
        .write(
            db.update::<Account>("alice")
                .decrement(Account::BALANCE, amount)
                .condition(Account::BALANCE.ge(amount)),
        )
        .write(
            db.update::<Account>("bob")
                .increment(Account::BALANCE, amount),
        )
}

async fn balances(db: &dynorm::Client) -> (i64, i64) {
    let alice = db
        .get::<Account>("alice")
        .send()
        .await
        .unwrap()
        .expect("the item exists")
        .balance;
    let bob = db
        .get::<Account>("bob")
        .send()
        .await
        .unwrap()
        .expect("the item exists")
        .balance;
    (alice, bob)
}

#[tokio::test]
async fn writes_across_models_apply_together() {
    let db = bank("tx_apply").await;
    move_money(&db, "t1", 30).send().await.unwrap();
    assert_eq!(balances(&db).await, (70, 50));
    assert!(db.get::<Transfer>("t1").send().await.unwrap().is_some());

    db.transact_write()
        .write(db.put(&Account {
            id: "carol".into(),
            balance: 5,
        }))
        .write(db.delete::<Transfer>("t1").require_exists(true))
        .check::<Account>("alice", Account::BALANCE.eq(70i64))
        .send()
        .await
        .unwrap();
    assert_eq!(db.get::<Transfer>("t1").send().await.unwrap(), None);
    assert_eq!(
        db.get::<Account>("carol")
            .send()
            .await
            .unwrap()
            .expect("the item exists")
            .balance,
        5
    );
}

#[tokio::test]
async fn a_cancelled_transaction_says_which_operation_failed_and_why() {
    let db = bank("tx_cancel").await;
    move_money(&db, "t1", 30).send().await.unwrap();

    // The same transfer id again, and more money than alice has.
    let error = move_money(&db, "t1", 500).send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TransactionCanceled);
    assert!(error.kind() == dynorm::ErrorKind::TransactionCanceled);
    let reasons = error.cancellation_reasons();
    assert_eq!(reasons.len(), 3);
    assert_eq!(
        (reasons[0].operation, reasons[0].model),
        ("create", "Transfer")
    );
    assert_eq!(reasons[0].code, "ConditionalCheckFailed");
    assert_eq!(reasons[0].kind, Some(ErrorKind::AlreadyExists));
    assert_eq!(
        reasons[0].current_item::<Transfer>().unwrap().unwrap(),
        transfer("t1", 30)
    );
    assert!(
        reasons[0].current_item::<Account>().is_none(),
        "another model's item is not decoded"
    );
    assert_eq!(reasons[1].code, "ConditionalCheckFailed");
    assert_eq!(reasons[1].kind, Some(ErrorKind::ConditionFailed));
    assert_eq!(
        reasons[1]
            .current_item::<Account>()
            .unwrap()
            .unwrap()
            .balance,
        70
    );
    assert_eq!(reasons[2].code, "None");
    assert!(!reasons[2].is_failure());
    assert!(
        error
            .to_string()
            .contains("operation 0 (create on `Transfer`): ConditionalCheckFailed"),
        "{error}"
    );
    assert_eq!(balances(&db).await, (70, 50), "nothing was applied");

    // An update of an item that does not exist is NotFound.
    let error = db
        .transact_write()
        .write(
            db.update::<Account>("nobody")
                .increment(Account::BALANCE, 1i64),
        )
        .write(
            db.update::<Account>("bob")
                .increment(Account::BALANCE, 1i64),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        error.cancellation_reasons()[0].kind,
        Some(ErrorKind::NotFound)
    );
    assert_eq!(error.cancellation_reasons()[0].item, None);
}

#[tokio::test]
async fn mistakes_are_caught_before_sending() {
    let db = common::db("tx_checks").await; // no tables: nothing may be sent
    let error = db
        .transact_write()
        .write(
            db.update::<Account>("bob")
                .increment(Account::BALANCE, 1i64),
        )
        .write(db.delete::<Account>("bob"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert!(
        error
            .to_string()
            .contains("operations 0 and 1 touch the same item"),
        "{error}"
    );

    let mut too_many = db.transact_write();
    for i in 0..101 {
        too_many = too_many.write(db.put(&Account {
            id: format!("a{i}"),
            balance: 0,
        }));
    }
    let error = too_many.send().await.unwrap_err();
    assert!(error.to_string().contains("1 to 100"), "{error}");

    let error = db
        .transact_write()
        .write(db.update::<Account>("bob").set(Account::ID, "x"))
        .send()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("operation 0"), "{error}");
    assert_eq!(error.attribute(), Some("id"));
}

#[tokio::test]
async fn an_idempotency_token_applies_a_transaction_once() {
    let db = bank("tx_token").await;
    // A token is remembered by the server beyond one table, so each run uses its own.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let token = format!("transfer-{nanos}");
    let send = || {
        db.transact_write()
            .write(
                db.update::<Account>("alice")
                    .decrement(Account::BALANCE, 10i64),
            )
            .write(
                db.update::<Account>("bob")
                    .increment(Account::BALANCE, 10i64),
            )
            .idempotency_token(token.as_str())
            .send()
    };
    send().await.unwrap();
    send().await.unwrap();
    assert_eq!(balances(&db).await, (90, 30));
}

#[tokio::test]
async fn a_read_transaction_returns_typed_items() {
    let db = bank("tx_get").await;
    move_money(&db, "t1", 1).send().await.unwrap();
    let items = db
        .transact_get()
        .get::<Account>("alice")
        .get::<Transfer>("t1")
        .get::<Account>("nobody")
        .send()
        .await
        .unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items.get::<Account>(0).unwrap().unwrap().balance, 99);
    assert_eq!(items.get::<Transfer>(1).unwrap().unwrap().amount, 1);
    assert_eq!(items.get::<Account>(2).unwrap(), None);
    assert!(items.get::<Transfer>(0).is_err(), "read 0 is an Account");
}
