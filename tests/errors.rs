//! Errors DynamoDB returns, against a real server: each has a kind and a one-line message
//! naming the model, the operation and the table, with the SDK error as its source.

mod common;

use std::error::Error as _;

use dynorm::types::{AttributeDefinition, KeySchemaElement, KeyType, ScalarAttributeType};
use dynorm::{ErrorKind, Model};

#[derive(Model, Debug, Clone, PartialEq)]
struct User {
    #[hash_key]
    id: String,
    name: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
struct Team {
    #[hash_key]
    id: String,
    name: String,
}

/// Creates `M`'s table with a numeric hash key named `id`, where the model's is a string:
/// a table that drifted from the model. dynorm checks keys against the model, so only
/// the server can see that they do not match the table.
async fn drifted_table<M: Model>(db: &dynorm::Client) {
    db.sdk()
        .create_table()
        .table_name(db.tables().name::<M>())
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("id")
                .attribute_type(ScalarAttributeType::N)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("id")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .billing_mode(dynorm::types::BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
}

/// Asserts the message is one short line, with no trace of the HTTP exchange.
fn assert_readable(error: &dynorm::Error) {
    let shown = error.to_string();
    assert!(!shown.contains('\n'), "{shown}");
    assert!(shown.len() < 400, "{} characters: {shown}", shown.len());
    for raw in [
        "x-amzn-requestid",
        "content-type",
        "HttpResponse",
        "SdkBody",
        "__type",
    ] {
        assert!(!shown.contains(raw), "`{raw}` in {shown}");
    }
}

#[tokio::test]
async fn a_get_on_a_missing_table_names_the_table() {
    let db = common::db("errors_no_table").await;
    let table = db.tables().name::<User>();
    let error = db.get::<User>("u1").send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TableNotFound, "{error}");
    assert!(error.kind() == dynorm::ErrorKind::TableNotFound);
    assert!(!error.is_retryable());
    assert_eq!(error.table(), Some(table.as_str()));
    assert_eq!(error.code(), Some("ResourceNotFoundException"));
    assert_eq!(
        error.to_string(),
        format!(
            "table not found in `get` on model `User`, table `{table}`: \
             ResourceNotFoundException: {}",
            error.message()
        )
    );
    assert!(error.source().is_some(), "the SDK error is the source");
    assert_readable(&error);
}

#[tokio::test]
async fn every_operation_names_a_missing_table() {
    let db = common::db("errors_no_table_ops").await;
    let table = db.tables().name::<User>();
    let user = User {
        id: "u1".into(),
        name: "Ada".into(),
    };
    let errors = [
        db.put(&user).send().await.unwrap_err(),
        db.create(&user).send().await.unwrap_err(),
        db.update::<User>("u1")
            .set(User::NAME, "Grace")
            .send()
            .await
            .unwrap_err(),
        db.delete::<User>("u1").send().await.unwrap_err(),
        db.query_by::<User>("u1").all().await.unwrap_err(),
        db.scan::<User>().all().await.unwrap_err(),
        db.transact_write()
            .write(db.put(&user))
            .send()
            .await
            .unwrap_err(),
        db.transact_get()
            .get::<User>("u1")
            .send()
            .await
            .unwrap_err(),
        db.tables().verify::<User>().send().await.unwrap_err(),
    ];
    for error in errors {
        assert_eq!(error.kind(), ErrorKind::TableNotFound, "{error}");
        assert_eq!(error.table(), Some(table.as_str()), "{error}");
        assert!(error.to_string().contains(&table), "{error}");
        assert_readable(&error);
    }
}

#[tokio::test]
async fn a_key_that_does_not_match_the_live_table_is_the_servers_validation_error() {
    let db = common::db("errors_validation").await;
    drifted_table::<User>(&db).await;
    let error = db.get::<User>("u1").send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert!(error.kind() == dynorm::ErrorKind::Validation && !error.is_retryable());
    assert_eq!(error.code(), Some("ValidationException"));
    assert_eq!(error.operation(), Some("get"));
    assert_eq!(error.model(), Some("User"));
    assert!(
        error.to_string().starts_with(&format!(
            "validation error in `get` on model `User`, table `{}`: ValidationException: ",
            db.tables().name::<User>()
        )),
        "{error}"
    );
    assert!(error.source().is_some());
    assert_readable(&error);

    // A write is refused the same way, and nothing is written.
    let error = db
        .put(&User {
            id: "u1".into(),
            name: "Ada".into(),
        })
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.operation(), Some("put"));
}

#[tokio::test]
async fn a_read_transaction_the_server_cancels_has_a_reason_per_read() {
    let db = common::db_with::<Team>("errors_transact_get").await;
    drifted_table::<User>(&db).await;
    db.put(&Team {
        id: "t1".into(),
        name: "Core".into(),
    })
    .send()
    .await
    .unwrap();
    let error = db
        .transact_get()
        .get::<Team>("t1")
        .get::<User>("u1")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TransactionCanceled, "{error}");
    assert!(error.kind() == dynorm::ErrorKind::TransactionCanceled && !error.is_retryable());
    assert_eq!(error.operation(), Some("transact_get"));
    let reasons = error.cancellation_reasons();
    assert_eq!(reasons.len(), 2);
    assert_eq!((reasons[0].index, reasons[0].model), (0, "Team"));
    assert_eq!((reasons[1].index, reasons[1].model), (1, "User"));
    assert!(!reasons[0].is_failure());
    assert_eq!(reasons[1].operation, "transact_get");
    // DynamoDB and the embedded server say which read failed; DynamoDB Local sends no
    // reasons, so each reads as `None` there.
    if reasons.iter().any(|r| r.is_failure()) {
        assert_eq!(reasons[1].code, "ValidationError");
        assert!(reasons[1].is_failure() && reasons[1].message.is_some());
        assert_eq!(
            error.to_string(),
            "transaction canceled in `transact_get`: the transaction was cancelled: \
             operation 1 (transact_get on `User`): ValidationError"
        );
    }
    assert!(error.source().is_some());
}

#[tokio::test]
async fn creating_a_table_that_exists_is_a_service_error_with_its_code() {
    let db = common::db_with::<Team>("errors_table_exists").await;
    let error = db.tables().create::<Team>().send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Service, "{error}");
    assert_eq!(error.code(), Some("ResourceInUseException"));
    assert_eq!(error.table(), Some(db.tables().name::<Team>().as_str()));
    assert!(!error.is_retryable());
    assert_readable(&error);
}
