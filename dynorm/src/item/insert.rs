//! `insert`: a new item from a model's insert type, with its generated attributes filled in,
//! conditional on the key being new, as `create` is.

use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
use aws_sdk_dynamodb::types::ReturnValue;

use super::companion;
use super::guarded;
use super::put::{put_spec, send_put, KeyMustBeNew};
use super::transact::{Transaction, MAX_TRANSACTION_ITEMS};
use super::whole_item::WholeItemWrite;
use super::write_request::{Put, WriteKind, WriteSpec};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::expr::{Condition, Conjunction};
use crate::observe::{request, Predicted, Reporting};
use crate::schema::{Insertable, Model};
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
    /// written in transactions of up to 100 items (the rows, their unique guards, and one
    /// count update per parent whose counts they move), each all or nothing, in order; a
    /// key that exists cancels its transaction with
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

    /// The write, from a borrowed builder.
    fn row(&self) -> Result<WriteSpec<Put>> {
        row_spec(
            &self.client,
            &self.new,
            self.condition.clone(),
            self.report.clone(),
        )
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
    /// Sends every row, in transactions of up to 100 items, and returns how many were
    /// inserted (as a batch write returns how many it applied).
    pub async fn send(self) -> Result<u32> {
        let inserted = self.send_returning_new().await?;
        Ok(u32::try_from(inserted.len()).unwrap_or(u32::MAX))
    }

    /// Sends every row and returns the stored models, in the order given.
    pub async fn send_returning_new(self) -> Result<Vec<N::Model>> {
        let mut stored = Vec::with_capacity(self.rows.len());
        for (transaction, items) in self.transactions()? {
            guarded::send_transaction(transaction).await?;
            for item in items {
                stored.push(decode::<N::Model>(item)?);
            }
        }
        Ok(stored)
    }

    /// The transactions that write the rows, in order, each with the items it stores.
    fn transactions(&self) -> Result<Vec<(Transaction, Vec<Item>)>> {
        let mut transactions = Vec::new();
        let mut chunk = Chunk::default();
        for row in &self.rows {
            let spec = row_spec(
                &self.client,
                row,
                Conjunction::default(),
                Reporting::default(),
            )?
            .into_any();
            let (guards, parents) = self.companions(&spec)?;
            if !chunk.fits(guards, &parents) {
                transactions.push(self.transaction(std::mem::take(&mut chunk)));
            }
            chunk.add(spec, guards, parents);
        }
        if !chunk.rows.is_empty() {
            transactions.push(self.transaction(chunk));
        }
        Ok(transactions)
    }

    /// How many guards a new row writes, and the parents whose counts it moves (by table
    /// and key): what it adds to a transaction besides itself.
    fn companions(&self, spec: &WriteSpec) -> Result<(usize, Vec<(String, Item)>)> {
        if spec.guarded.is_none() {
            return Ok((0, Vec::new()));
        }
        let plan = companion::plan(spec, None)?;
        let parents = plan
            .counts()
            .iter()
            .map(|m| (self.client.table_name_of(m.count.parent), m.key.clone()))
            .collect();
        Ok((plan.guards(), parents))
    }

    /// The transaction of a chunk of rows, with the items it stores.
    fn transaction(&self, chunk: Chunk) -> (Transaction, Vec<Item>) {
        let mut items = Vec::with_capacity(chunk.rows.len());
        let mut transaction = Transaction::new(&self.client);
        transaction.report = self.report.clone();
        for spec in chunk.rows {
            if let WriteKind::Put(Put(item)) = &spec.kind {
                items.push(item.clone());
            }
            transaction = transaction.write_spec(spec);
        }
        (transaction, items)
    }
}

/// The rows of one transaction, and the items they write: each row, its guards, and one
/// count update per parent, whatever the number of rows and counts that move it.
#[derive(Default)]
struct Chunk {
    rows: Vec<WriteSpec>,
    items: usize,
    parents: Vec<(String, Item)>,
}

impl Chunk {
    /// Whether a row with these companions fits in the transaction (an empty one takes any
    /// row, and DynamoDB refuses one too large for a transaction of its own).
    fn fits(&self, guards: usize, parents: &[(String, Item)]) -> bool {
        let new_parents = parents.iter().filter(|p| !self.parents.contains(p)).count();
        self.rows.is_empty() || self.items + 1 + guards + new_parents <= MAX_TRANSACTION_ITEMS
    }

    fn add(&mut self, spec: WriteSpec, guards: usize, parents: Vec<(String, Item)>) {
        self.rows.push(spec);
        self.items += 1 + guards;
        for parent in parents {
            if !self.parents.contains(&parent) {
                self.parents.push(parent);
                self.items += 1;
            }
        }
    }
}

request! {
    impl[N: Insertable] InsertItem<N> { report => PutItemInput }

    /// The `PutItem` input [`send`](InsertItem::send) would send, without sending it (for a
    /// model with unique attributes or counts, the item's own write: its guards and counts
    /// join it in a transaction when it is sent). Every error `send` would find before
    /// sending is found here.
    fn preview(&self) -> Result<PutItemInput> {
        super::put::preview_put(&self.row()?)
    }

    /// The capacity the insert would consume, predicted without sending it: a new item's
    /// write units on the table and each index its attributes reach, or, when its key is
    /// taken, what the failed condition costs (the item stored); its transaction's for a
    /// model with unique attributes or counts. Every error `send` would find before
    /// sending is found here.
    fn predict(&self) -> Result<Predicted> {
        crate::item::predict::single(&self.client, &self.row()?)
    }
}

request! {
    impl[N: Insertable] InsertMany<N> { report => Vec<TransactWriteItemsInput> }

    /// The `TransactWriteItems` inputs [`send`](InsertMany::send) would send, one per chunk of
    /// rows, without sending them: each with its rows' own puts (for a model with unique
    /// attributes or counts, their guards and counts join them when they are sent, and
    /// the chunks are cut so that they fit). Every error `send` would find before sending
    /// is found here.
    fn preview(&self) -> Result<Vec<TransactWriteItemsInput>> {
        self.transactions()?
            .into_iter()
            .map(|(transaction, _)| transaction.preview())
            .collect()
    }

    /// The capacity the rows would consume, predicted without sending them: one
    /// transaction per chunk of rows, each new item's write units (and its guard items'
    /// and count updates') twice over, as DynamoDB charges a transaction. Every error
    /// `send` would find before sending is found here.
    fn predict(&self) -> Result<Predicted> {
        let mut predicted = Predicted::default();
        for (transaction, _) in self.transactions()? {
            predicted.merge(&transaction.predict()?);
        }
        Ok(predicted)
    }
}
