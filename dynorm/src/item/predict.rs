//! The predicted capacity of a write spec: what its request would consume, alone or in a
//! transaction (where every unit counts twice).

use crate::item::write_request::{ConditionCheck, Delete, Put, Update, WriteKind, WriteSpec};
use crate::observe::writes::{self, Target};
use crate::observe::Predicted;

/// A write spec's payload, whose request can be predicted.
pub(crate) trait PredictKind {
    /// Adds the write units of `spec`'s request to `predicted`, each counted `factor`
    /// times.
    fn predict(spec: &WriteSpec<Self>, predicted: &mut Predicted, factor: f64)
    where
        Self: Sized;
}

fn target<K>(spec: &WriteSpec<K>, factor: f64) -> Target<'_> {
    Target {
        schema: spec.schema,
        table: &spec.table,
        factor,
    }
}

impl PredictKind for Put {
    fn predict(spec: &WriteSpec<Self>, predicted: &mut Predicted, factor: f64) {
        let over_nothing = spec.checks.absent;
        writes::put(predicted, target(spec, factor), &spec.kind.0, over_nothing);
    }
}

impl PredictKind for Update {
    fn predict(spec: &WriteSpec<Self>, predicted: &mut Predicted, factor: f64) {
        writes::update(
            predicted,
            target(spec, factor),
            &spec.kind.key,
            &spec.kind.expression,
            &spec.placeholders.names,
            &spec.placeholders.values,
        );
    }
}

impl PredictKind for Delete {
    fn predict(spec: &WriteSpec<Self>, predicted: &mut Predicted, factor: f64) {
        writes::delete(predicted, target(spec, factor));
    }
}

impl PredictKind for WriteKind {
    fn predict(spec: &WriteSpec<Self>, predicted: &mut Predicted, factor: f64) {
        let target = target(spec, factor);
        match &spec.kind {
            WriteKind::Put(Put(item)) => writes::put(predicted, target, item, spec.checks.absent),
            WriteKind::Update(update) => writes::update(
                predicted,
                target,
                &update.key,
                &update.expression,
                &spec.placeholders.names,
                &spec.placeholders.values,
            ),
            WriteKind::Delete(_) => writes::delete(predicted, target),
            WriteKind::ConditionCheck(ConditionCheck(_)) => {
                writes::condition_check(predicted, target)
            }
        }
    }
}

const COMPANIONS: &str = "a model with unique attributes or counts also writes its guard items \
     and counts, in a transaction planned from the item as stored: this is the item's own \
     request";

/// The prediction of one single write's request.
pub(crate) fn single<K: PredictKind>(spec: &WriteSpec<K>) -> Predicted {
    let mut predicted = Predicted::default();
    predicted.add_requests(1);
    K::predict(spec, &mut predicted, 1.0);
    if spec.guarded.is_some() {
        predicted.because(COMPANIONS);
    }
    predicted
}
