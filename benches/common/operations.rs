//! The operations benchmarks 2 and 6 compare: each through dynorm and through the raw
//! aws-sdk-dynamodb call with a hand-built request and the hand-written conversion of
//! benchmark 1, on the same SDK client, table and items. `Fixture::new` checks that both
//! sides send the same request and read back the same values.

use dynorm::types::AttributeValue;
use dynorm::Request;
use std::hint::black_box;

use super::{Order, OrderKey};

/// The table of `Order` on an unprefixed client.
pub const TABLE: &str = "Order";

/// The customer whose 100 orders the query reads.
const QUERY_CUSTOMER: &str = "customer-query-100";

/// The orders the query reads.
pub const QUERY_ITEMS: usize = 100;

/// The writes of one `BatchWriteItem` request.
pub const BATCH_ITEMS: usize = 25;

/// The total an update sets.
const UPDATED_TOTAL: f64 = 99.5;

/// The client, the item, the query's orders and the batch's orders.
pub struct Fixture {
    pub db: dynorm::Client,
    pub order: Order,
    batch: Vec<Order>,
}

impl Fixture {
    /// Creates the table, writes the items and checks that both sides do the same work.
    pub async fn new() -> Self {
        let db = dynorm_test::local::client()
            .await
            .expect("the DynamoDB server is reachable");
        assert_eq!(db.tables().name::<Order>(), TABLE);
        db.tables()
            .ensure::<Order>()
            .send()
            .await
            .expect("the Order table is created");
        let order = super::order();
        super::check_equal_work(&order, super::order_to_item, super::order_from_item);
        db.put(&order).send().await.expect("the item is written");
        let orders: Vec<Order> = (0..QUERY_ITEMS)
            .map(|i| Order {
                customer_id: QUERY_CUSTOMER.into(),
                order_id: format!("order-{i:03}"),
                ..order.clone()
            })
            .collect();
        db.batch_write()
            .put_many(&orders)
            .send()
            .await
            .expect("the orders are written");
        let batch = (0..BATCH_ITEMS)
            .map(|i| Order {
                customer_id: "customer-batch".into(),
                order_id: format!("order-{i:03}"),
                ..order.clone()
            })
            .collect();
        let fixture = Self { db, order, batch };
        // Both sides read back what was written, and send the same requests.
        assert_eq!(fixture.dynorm_get().await, fixture.order);
        assert_eq!(fixture.raw_get().await, fixture.order);
        assert_eq!(fixture.dynorm_query().await, orders);
        assert_eq!(fixture.raw_query().await, orders);
        let update = fixture.dynorm_update_request().preview().expect("update");
        let raw_update = fixture.raw_update_request().as_input().clone().build();
        assert_eq!(Ok(update), raw_update.map_err(|e| e.to_string()));
        let delete = fixture.dynorm_delete_request().preview().expect("delete");
        let raw_delete = fixture.raw_delete_request().as_input().clone().build();
        assert_eq!(Ok(delete), raw_delete.map_err(|e| e.to_string()));
        let batch = fixture.db.batch_write().put_many(&fixture.batch).preview();
        let raw_batch = fixture.raw_batch_request().as_input().clone().build();
        assert_eq!(
            batch.expect("batch"),
            [raw_batch.expect("raw batch")],
            "one request of {BATCH_ITEMS} puts"
        );
        fixture
    }

    fn key(&self) -> OrderKey {
        OrderKey {
            customer_id: self.order.customer_id.clone(),
            order_id: self.order.order_id.clone(),
        }
    }

    pub async fn dynorm_get(&self) -> Order {
        self.db
            .get::<Order>(self.key())
            .send()
            .await
            .expect("dynorm get")
            .expect("the item exists")
    }

    pub async fn raw_get(&self) -> Order {
        let output = self
            .db
            .sdk()
            .get_item()
            .table_name(TABLE)
            .key(
                "customerId",
                AttributeValue::S(self.order.customer_id.clone()),
            )
            .key("orderId", AttributeValue::S(self.order.order_id.clone()))
            .send()
            .await
            .expect("raw get");
        let item = output.item.expect("the item exists");
        super::order_from_item(item).expect("the item decodes")
    }

    pub async fn dynorm_put(&self) {
        self.db
            .put(black_box(&self.order))
            .send()
            .await
            .expect("dynorm put");
    }

    pub async fn raw_put(&self) {
        let item = super::order_to_item(black_box(&self.order)).expect("the item encodes");
        self.db
            .sdk()
            .put_item()
            .table_name(TABLE)
            .set_item(Some(item))
            .send()
            .await
            .expect("raw put");
    }

    fn dynorm_update_request(&self) -> dynorm::item::UpdateItem<Order> {
        self.db
            .update::<Order>(self.key())
            .set(Order::TOTAL, black_box(UPDATED_TOTAL))
    }

    pub async fn dynorm_update(&self) {
        self.dynorm_update_request()
            .send()
            .await
            .expect("dynorm update");
    }

    fn raw_update_request(
        &self,
    ) -> aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder {
        let total = black_box(UPDATED_TOTAL);
        self.db
            .sdk()
            .update_item()
            .table_name(TABLE)
            .key(
                "customerId",
                AttributeValue::S(self.order.customer_id.clone()),
            )
            .key("orderId", AttributeValue::S(self.order.order_id.clone()))
            .update_expression("SET #n0 = :v0")
            .condition_expression("attribute_exists(#n1)")
            .expression_attribute_names("#n0", "total")
            .expression_attribute_names("#n1", "customerId")
            .expression_attribute_values(":v0", AttributeValue::N(total.to_string()))
            .return_values(aws_sdk_dynamodb::types::ReturnValue::None)
            .return_values_on_condition_check_failure(
                aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure::AllOld,
            )
    }

    pub async fn raw_update(&self) {
        self.raw_update_request().send().await.expect("raw update");
    }

    fn dynorm_delete_request(&self) -> dynorm::item::DeleteItem<Order> {
        self.db.delete::<Order>(self.key())
    }

    pub async fn dynorm_delete(&self) {
        self.dynorm_delete_request()
            .send()
            .await
            .expect("dynorm delete");
    }

    fn raw_delete_request(
        &self,
    ) -> aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemFluentBuilder {
        self.db
            .sdk()
            .delete_item()
            .table_name(TABLE)
            .key(
                "customerId",
                AttributeValue::S(self.order.customer_id.clone()),
            )
            .key("orderId", AttributeValue::S(self.order.order_id.clone()))
            .return_values(aws_sdk_dynamodb::types::ReturnValue::None)
            .return_values_on_condition_check_failure(
                aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure::AllOld,
            )
    }

    pub async fn raw_delete(&self) {
        self.raw_delete_request().send().await.expect("raw delete");
    }

    pub async fn dynorm_query(&self) -> Vec<Order> {
        self.db
            .query_by::<Order>(QUERY_CUSTOMER)
            .all()
            .await
            .expect("dynorm query")
    }

    pub async fn raw_query(&self) -> Vec<Order> {
        let mut orders = Vec::with_capacity(QUERY_ITEMS);
        let mut start = None;
        loop {
            let output = self
                .db
                .sdk()
                .query()
                .table_name(TABLE)
                .key_condition_expression("#n0 = :v0")
                .expression_attribute_names("#n0", "customerId")
                .expression_attribute_values(":v0", AttributeValue::S(QUERY_CUSTOMER.into()))
                .set_exclusive_start_key(start)
                .send()
                .await
                .expect("raw query");
            for item in output.items.unwrap_or_default() {
                orders.push(super::order_from_item(item).expect("the item decodes"));
            }
            match output.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => return orders,
            }
        }
    }

    pub async fn dynorm_batch(&self) {
        let written = self
            .db
            .batch_write()
            .put_many(black_box(&self.batch))
            .send()
            .await
            .expect("dynorm batch");
        assert_eq!(written as usize, BATCH_ITEMS);
    }

    fn raw_batch_request(
        &self,
    ) -> aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemFluentBuilder {
        let writes = super::raw_put_requests(black_box(&self.batch));
        self.db
            .sdk()
            .batch_write_item()
            .request_items(TABLE, writes)
    }

    /// One request, as the raw SDK sends it: unprocessed writes are checked, not retried.
    pub async fn raw_batch(&self) {
        let output = self.raw_batch_request().send().await.expect("raw batch");
        let left = output.unprocessed_items.unwrap_or_default();
        assert!(
            left.values().all(Vec::is_empty),
            "the server took every write"
        );
    }
}
