//! `insert`: a new item from a model's insert type, with its generated attributes filled in,
//! conditional on the key being new, as `create` is.

use aws_sdk_dynamodb::types::ReturnValue;

use super::put::{put_spec, send_put, KeyMustBeNew};
use super::whole_item::WholeItemWrite;
use super::write_request::{Put, WriteSpec};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::expr::{Condition, Conjunction};
use crate::observe::{report_setters, Predicted, Reporting};
use crate::schema::{Insertable, Model};
use crate::transaction::TransactWrite;
use crate::value::Item;

const OPERATION: &str = "insert";

impl Client {
    /// Inserts a new item from its insert type (`NewUser` for `User`): the generated
    /// attributes (ids, `default = "now"`, `updated_at`, the version) are filled in, and
    /// the write fails with [`ErrorKind::AlreadyExists`](crate::ErrorKind) when an item has
    /// the key. `.send_returning_new()` gives back the stored model.
    ///
    /// ```no_run
    /// # use dynorm::Model;
    /// # #[derive(Model, Clone)] struct User { #[hash_key] #[dynorm(default = "uuid_v7")] id: uuid::Uuid, name: String }
    /// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
    /// let user: User = db.insert(NewUser { name: "Ada".into() }).send_returning_new().await?;
    /// # Ok(()) }
    /// ```
    pub fn insert<N: Insertable>(&self, new: N) -> InsertItem<N> {
        InsertItem {
            client: self.clone(),
            new,
            condition: Conjunction::default(),
            report: Reporting::default(),
        }
    }

    /// Inserts several new items, each conditional on its key being new. The rows are
    /// written in transactions of up to 100 items (a row and its unique guards), each all
    /// or nothing, in order; a key that
    /// exists cancels its transaction with
    /// [`ErrorKind::TransactionCanceled`](crate::ErrorKind), whose reasons name the row.
    pub fn insert_many<N: Insertable>(&self, rows: impl IntoIterator<Item = N>) -> InsertMany<N> {
        InsertMany {
            client: self.clone(),
            rows: rows.into_iter().collect(),
            report: Reporting::default(),
        }
    }
}

/// A pending insert. Build it with [`Client::insert`]; `.send()` or `.send_returning_new()` it.
#[must_use = "an insert does nothing until it is sent"]
pub struct InsertItem<N: Insertable> {
    client: Client,
    new: N,
    condition: Conjunction,
    report: Reporting,
}

impl<N: Insertable> InsertItem<N> {
    /// A further condition the write must meet.
    pub fn condition(mut self, condition: Condition<N::Model>) -> Self {
        self.condition.push(condition);
        self
    }

    report_setters!(report);

    /// The capacity the insert would consume, predicted without sending it: a new item's
    /// write units on the table and each index its attributes reach, or, when its key is
    /// taken, what the failed condition costs (the item stored); its transaction's for a
    /// model with unique attributes or counts. Every error `send` would find before
    /// sending is found here.
    pub fn predict(&self) -> Result<Predicted> {
        let spec = row_spec(
            &self.client,
            &self.new,
            self.condition.clone(),
            self.report.clone(),
        )?;
        crate::item::predict::single(&self.client, &spec)
    }

    pub(crate) fn spec(self) -> Result<WriteSpec<Put>> {
        row_spec(&self.client, &self.new, self.condition, self.report)
    }

    /// Sends the request.
    pub async fn send(self) -> Result<()> {
        let client = self.client.clone();
        let spec = self.spec()?;
        send_put::<N::Model>(&client, spec, ReturnValue::None)
            .await
            .map(drop)
    }

    /// Sends the request and returns the model as stored, with its generated attributes.
    pub async fn send_returning_new(self) -> Result<N::Model> {
        let client = self.client.clone();
        let spec = self.spec()?;
        let stored = spec.kind.0.clone();
        send_put::<N::Model>(&client, spec, ReturnValue::None).await?;
        decode::<N::Model>(stored)
    }
}

/// The put of one inserted row: its generated attributes filled in, its key required new.
fn row_spec<N: Insertable>(
    client: &Client,
    new: &N,
    condition: Conjunction,
    report: Reporting,
) -> Result<WriteSpec<Put>> {
    put_spec::<N::Model>(
        client,
        new.to_item(),
        OPERATION,
        WholeItemWrite::Create,
        KeyMustBeNew::Yes,
        condition,
        report,
    )
}

fn decode<M: Model>(item: crate::value::Item) -> Result<M> {
    M::from_item(item).map_err(|e: Error| e.with_operation(OPERATION))
}

/// A pending insert of several rows. Build it with [`Client::insert_many`].
#[must_use = "an insert does nothing until it is sent"]
pub struct InsertMany<N: Insertable> {
    client: Client,
    rows: Vec<N>,
    report: Reporting,
}

impl<N: Insertable> InsertMany<N> {
    /// Sends every row, in transactions of up to 100.
    pub async fn send(self) -> Result<()> {
        self.send_returning_new().await.map(drop)
    }

    report_setters!(
        report;
        /// Asks DynamoDB for the capacity the transactions consume; it is added to the
        /// [`tally`](Self::tally).
        ;
        /// Adds the requests sent and what they cost to `tally`.
    );

    /// The capacity the rows would consume, predicted without sending them: one
    /// transaction per chunk of rows, each new item's write units (and its guard items'
    /// and count updates') twice over, as DynamoDB charges a transaction. Every error
    /// `send` would find before sending is found here.
    pub fn predict(&self) -> Result<Predicted> {
        let mut predicted = Predicted::default();
        for (transaction, _) in self.transactions()? {
            predicted.merge(&transaction.predict()?);
        }
        Ok(predicted)
    }

    /// Sends every row and returns the stored models, in the order given.
    pub async fn send_returning_new(self) -> Result<Vec<N::Model>> {
        let mut stored = Vec::with_capacity(self.rows.len());
        for (transaction, items) in self.transactions()? {
            transaction.send().await?;
            for item in items {
                stored.push(decode::<N::Model>(item)?);
            }
        }
        Ok(stored)
    }

    /// The transactions that write the rows, in order, each with the items it stores.
    fn transactions(&self) -> Result<Vec<(TransactWrite, Vec<Item>)>> {
        let mut specs = Vec::with_capacity(self.rows.len());
        for row in &self.rows {
            specs.push(row_spec(
                &self.client,
                row,
                Conjunction::default(),
                Reporting::default(),
            )?);
        }
        // Each row of a model with unique attributes also writes one guard per constraint.
        let per_row = 1 + <N::Model as Model>::SCHEMA.uniques.len();
        let rows_per_transaction = (crate::transaction::MAX_TRANSACTION_ITEMS / per_row).max(1);
        let mut transactions = Vec::new();
        let mut specs = specs.into_iter().peekable();
        while specs.peek().is_some() {
            let chunk: Vec<WriteSpec<Put>> = specs.by_ref().take(rows_per_transaction).collect();
            let items: Vec<Item> = chunk.iter().map(|spec| spec.kind.0.clone()).collect();
            let mut transaction = self.client.transact_write();
            transaction.report = self.report.clone();
            for spec in chunk {
                transaction = transaction.write_spec(spec.into_any());
            }
            transactions.push((transaction, items));
        }
        Ok(transactions)
    }
}
