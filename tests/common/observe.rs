//! What the observability tests look at: the spans dynorm makes, captured by a small
//! `tracing_subscriber` layer, and the requests and responses that went over the wire,
//! captured by an SDK interceptor.

use std::any::Any;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use aws_sdk_dynamodb::config::interceptors::{
    AfterDeserializationInterceptorContextRef, BeforeSerializationInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::types::ConsumedCapacity;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// One span: its name and every field that has a value, as text.
#[derive(Clone, Debug, Default)]
pub struct Captured {
    pub name: &'static str,
    pub fields: BTreeMap<String, String>,
}

impl Captured {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// The spans of target `dynorm`, in the order they were made.
#[derive(Clone, Default)]
pub struct Spans(Arc<Mutex<Vec<Captured>>>);

/// Where a live span's record is: the test's list and the position in it.
struct Position(Spans, usize);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

thread_local! {
    /// The spans of the test running on this thread, if it captures them.
    static CURRENT: RefCell<Option<Spans>> = const { RefCell::new(None) };
}

/// The one subscriber of the test process. `tracing` caches whether a callsite is enabled
/// across threads, so per-thread subscribers in parallel tests would miss spans; one global
/// subscriber that hands each span to its thread's test does not.
struct Router;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Router {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().target() != "dynorm" {
            return;
        }
        let Some(spans) = CURRENT.with(|c| c.borrow().clone()) else {
            return;
        };
        let mut captured = Captured {
            name: attrs.metadata().name(),
            ..Captured::default()
        };
        attrs.record(&mut Fields(&mut captured.fields));
        let position = {
            let mut list = spans.0.lock().unwrap();
            list.push(captured);
            list.len() - 1
        };
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Position(spans, position));
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let extensions = span.extensions();
        let Some(Position(spans, position)) = extensions.get::<Position>() else {
            return;
        };
        values.record(&mut Fields(&mut spans.0.lock().unwrap()[*position].fields));
    }
}

/// Stops capturing on this thread when dropped.
pub struct Capturing;

impl Drop for Capturing {
    fn drop(&mut self) {
        CURRENT.with(|c| c.borrow_mut().take());
    }
}

impl Spans {
    /// Captures the spans made on this thread until the guard drops. Tests run on a
    /// current-thread runtime, so every span of the test is made here.
    pub fn install() -> (Self, Capturing) {
        static GLOBAL: OnceLock<()> = OnceLock::new();
        GLOBAL.get_or_init(|| {
            tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Router))
                .expect("no other global subscriber");
        });
        let spans = Spans::default();
        CURRENT.with(|c| *c.borrow_mut() = Some(spans.clone()));
        (spans, Capturing)
    }

    pub fn all(&self) -> Vec<Captured> {
        self.0.lock().unwrap().clone()
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.all().iter().map(|s| s.name).collect()
    }
}

/// Every operation input the SDK serialized, and every response body, in order.
#[derive(Clone, Debug, Default)]
pub struct Wire {
    inputs: Arc<Mutex<Vec<Box<dyn Any + Send>>>>,
    capacity: Arc<Mutex<Vec<ConsumedCapacity>>>,
}

macro_rules! keep_inputs {
    ($input:expr, $into:expr, $($ty:ty),*) => {$(
        if let Some(input) = $input.downcast_ref::<$ty>() {
            $into.push(Box::new(input.clone()));
        }
    )*};
}

impl Intercept for Wire {
    fn name(&self) -> &'static str {
        "wire"
    }

    fn read_before_serialization(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        use aws_sdk_dynamodb::operation::*;
        let input = context.input();
        let mut inputs = self.inputs.lock().unwrap();
        keep_inputs!(
            input,
            inputs,
            get_item::GetItemInput,
            put_item::PutItemInput,
            update_item::UpdateItemInput,
            delete_item::DeleteItemInput,
            query::QueryInput,
            scan::ScanInput,
            batch_write_item::BatchWriteItemInput,
            batch_get_item::BatchGetItemInput,
            transact_write_items::TransactWriteItemsInput,
            transact_get_items::TransactGetItemsInput
        );
        Ok(())
    }

    fn read_after_deserialization(
        &self,
        context: &AfterDeserializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        use aws_sdk_dynamodb::operation::*;
        let Ok(output) = context.output_or_error() else {
            return Ok(());
        };
        let mut capacity = self.capacity.lock().unwrap();
        macro_rules! one {
            ($($ty:ty),*) => {$(
                if let Some(output) = output.downcast_ref::<$ty>() {
                    capacity.extend(output.consumed_capacity.clone());
                }
            )*};
        }
        macro_rules! many {
            ($($ty:ty),*) => {$(
                if let Some(output) = output.downcast_ref::<$ty>() {
                    capacity.extend(output.consumed_capacity.clone().unwrap_or_default());
                }
            )*};
        }
        one!(
            get_item::GetItemOutput,
            put_item::PutItemOutput,
            update_item::UpdateItemOutput,
            delete_item::DeleteItemOutput,
            query::QueryOutput,
            scan::ScanOutput
        );
        many!(
            batch_write_item::BatchWriteItemOutput,
            batch_get_item::BatchGetItemOutput,
            transact_write_items::TransactWriteItemsOutput,
            transact_get_items::TransactGetItemsOutput
        );
        Ok(())
    }
}

impl Wire {
    /// A client on the same server and tables as `db`, whose requests this captures.
    pub fn client(&self, db: &dynorm::Client) -> dynorm::Client {
        let config = db
            .sdk()
            .config()
            .to_builder()
            .interceptor(self.clone())
            .build();
        db.to_builder()
            .sdk(aws_sdk_dynamodb::Client::from_conf(config))
            .build()
    }

    /// The inputs of type `T` sent so far, in order.
    pub fn inputs<T: Clone + 'static>(&self) -> Vec<T> {
        self.inputs
            .lock()
            .unwrap()
            .iter()
            .filter_map(|input| input.downcast_ref::<T>().cloned())
            .collect()
    }

    /// The `CapacityUnits` of every `ConsumedCapacity` the server returned, summed.
    pub fn capacity_units(&self) -> f64 {
        self.capacity
            .lock()
            .unwrap()
            .iter()
            .filter_map(|c| c.capacity_units())
            .sum()
    }

    pub fn clear(&self) {
        self.inputs.lock().unwrap().clear();
        self.capacity.lock().unwrap().clear();
    }
}
