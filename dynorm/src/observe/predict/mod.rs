//! Predicted capacity: what a builder's requests would consume, computed from the
//! request and the model's schema with DynamoDB's rules, without sending anything.

mod entry;
#[cfg(test)]
mod fixtures;
pub(crate) mod reads;
mod units;
pub(crate) mod writes;

use std::collections::BTreeMap;
use std::fmt;

use super::Capacity;

/// A number of capacity units that is known to lie between `min` and `max`, both
/// included; `min == max` when it is known exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Units {
    min: f64,
    max: f64,
}

impl Units {
    /// Exactly `units`.
    pub fn exact(units: f64) -> Self {
        Self {
            min: units,
            max: units,
        }
    }

    /// Between `min` and `max`, both included (swapped when given the other way round).
    pub fn between(min: f64, max: f64) -> Self {
        Self {
            min: min.min(max),
            max: max.max(min),
        }
    }

    /// The fewest units it can be.
    pub fn min(&self) -> f64 {
        self.min
    }

    /// The most units it can be.
    pub fn max(&self) -> f64 {
        self.max
    }

    /// Whether the number is known exactly.
    pub fn is_exact(&self) -> bool {
        self.min == self.max
    }

    /// Whether `units` lies in the range.
    pub fn contains(&self, units: f64) -> bool {
        self.min <= units && units <= self.max
    }

    fn scaled(self, factor: f64) -> Self {
        Self::between(self.min * factor, self.max * factor)
    }

    /// The smallest range that holds both: the units of one of two outcomes.
    pub(crate) fn or(self, other: Units) -> Self {
        Self::between(self.min.min(other.min), self.max.max(other.max))
    }
}

impl std::ops::Add for Units {
    type Output = Units;

    fn add(self, other: Units) -> Units {
        Units::between(self.min + other.min, self.max + other.max)
    }
}

impl fmt::Display for Units {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_exact() {
            write!(f, "{}", self.min)
        } else {
            write!(f, "{}..={}", self.min, self.max)
        }
    }
}

/// The capacity a builder's requests would consume, predicted from the request and the
/// model's schema with DynamoDB's rules: write units per 1 KB written to the table and
/// each index, read units per 4 KB read, twice as many in a transaction. Made by
/// `predict()` on every builder; nothing is sent.
///
/// Units are kept by table and index, keyed as [`Capacity::indexes`] keys what DynamoDB
/// reports: `table` for the base table and `table/index` for an index. Where the cost
/// depends on what is stored (the item a put replaces, the item an update changes, the
/// size of an item read), the units are a range, and [`reasons`](Self::reasons) says why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Predicted {
    requests: usize,
    read: Units,
    write: Units,
    units: BTreeMap<String, Units>,
    reasons: Vec<String>,
}

/// Whether units are read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
}

impl Predicted {
    /// The requests the builder would send (one page, for a query or scan), at most: a
    /// write that may be sent again as a transaction counts both.
    pub fn requests(&self) -> u32 {
        u32::try_from(self.requests).unwrap_or(u32::MAX)
    }

    /// The read units, summed over tables and indexes.
    pub fn read_units(&self) -> Units {
        self.read
    }

    /// The write units, summed over tables and indexes.
    pub fn write_units(&self) -> Units {
        self.write
    }

    /// Every unit, read and written: what DynamoDB reports as `CapacityUnits`.
    pub fn units(&self) -> Units {
        self.read + self.write
    }

    /// The units of one table (`table`) or index (`table/index`); exactly 0 when the
    /// requests do not touch it.
    pub fn of(&self, table_or_index: &str) -> Units {
        self.units.get(table_or_index).copied().unwrap_or_default()
    }

    /// The units of every table and index the requests touch, keyed `table` and
    /// `table/index`.
    pub fn by_table_and_index(&self) -> &BTreeMap<String, Units> {
        &self.units
    }

    /// Why some units are ranges, one sentence each; empty when every number is exact.
    pub fn reasons(&self) -> &[String] {
        &self.reasons
    }

    /// Whether every number is known exactly: none is a range, and no reason was given
    /// for one.
    pub fn is_exact(&self) -> bool {
        self.reasons.is_empty()
            && self.read.is_exact()
            && self.write.is_exact()
            && self.units.values().all(Units::is_exact)
    }

    /// Whether what DynamoDB reported (as a [`Tally`](crate::observe::Tally) asks for it,
    /// `INDEXES`) lies within the prediction: the total, and each table and index apart.
    pub fn contains(&self, consumed: &Capacity) -> bool {
        let each = self.units.keys().chain(consumed.indexes.keys()).all(|key| {
            let reported = consumed.indexes.get(key).copied().unwrap_or_default();
            self.of(key).contains(reported)
        });
        each && self.units().contains(consumed.units)
    }

    /// Adds another prediction to this one, as when several builders are sent.
    pub fn merge(&mut self, other: &Predicted) {
        self.requests += other.requests;
        self.read = self.read + other.read;
        self.write = self.write + other.write;
        for (key, units) in &other.units {
            let sum = self.of(key) + *units;
            self.units.insert(key.clone(), sum);
        }
        for reason in &other.reasons {
            self.because(reason);
        }
    }

    /// The prediction of a builder whose requests are those of `self` or of `other`, as
    /// one outcome or another decides: every number the smallest range that holds both,
    /// the most requests of the two, and the reasons of both.
    pub(crate) fn or(mut self, other: &Predicted) -> Predicted {
        let keys: Vec<String> = other.units.keys().cloned().collect();
        for key in self
            .units
            .keys()
            .cloned()
            .collect::<Vec<_>>()
            .into_iter()
            .chain(keys)
        {
            let both = self.of(&key).or(other.of(&key));
            self.units.insert(key, both);
        }
        self.requests = self.requests.max(other.requests);
        self.read = self.read.or(other.read);
        self.write = self.write.or(other.write);
        for reason in &other.reasons {
            self.because(reason);
        }
        self
    }

    /// Counts `requests` more requests.
    pub(crate) fn add_requests(&mut self, requests: usize) {
        self.requests += requests;
    }

    /// Adds `units` read or written on `key` (`table` or `table/index`), times `factor`
    /// (2 in a transaction).
    pub(crate) fn add(&mut self, access: Access, key: String, units: Units, factor: f64) {
        let units = units.scaled(factor);
        match access {
            Access::Read => self.read = self.read + units,
            Access::Write => self.write = self.write + units,
        }
        let sum = self.of(&key) + units;
        self.units.insert(key, sum);
    }

    /// Records why a number is a range, once.
    pub(crate) fn because(&mut self, reason: &str) {
        if !self.reasons.iter().any(|r| r == reason) {
            self.reasons.push(reason.to_owned());
        }
    }
}

impl fmt::Display for Predicted {
    /// One line per table and index (`Orders/byStatus: 0..=800 units`), then the reasons.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} request(s): {} read units, {} write units",
            self.requests, self.read, self.write
        )?;
        for (key, units) in &self.units {
            write!(f, "\n  {key}: {units} units")?;
        }
        for reason in &self.reasons {
            write!(f, "\n  - {reason}")?;
        }
        Ok(())
    }
}

/// The key of an index's units: `table/index`, or `table` for the base table.
pub(crate) fn index_key(table: &str, index: Option<&str>) -> String {
    match index {
        Some(index) => format!("{table}/{index}"),
        None => table.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_add_scale_and_show_as_ranges() {
        let sum = Units::exact(2.0) + Units::between(0.0, 400.0);
        assert_eq!(sum, Units::between(2.0, 402.0));
        assert!(sum.contains(2.0) && !sum.contains(1.0));
        assert_eq!(sum.scaled(2.0).to_string(), "4..=804");
        assert_eq!(Units::exact(0.5).to_string(), "0.5");
    }

    #[test]
    fn either_of_two_outcomes_holds_both() {
        let mut single = Predicted::default();
        single.add_requests(1);
        single.add(Access::Write, "T".into(), Units::exact(1.0), 1.0);
        let mut transaction = Predicted::default();
        transaction.add_requests(2);
        transaction.add(Access::Write, "T".into(), Units::exact(3.0), 1.0);
        transaction.add(Access::Write, "T/g".into(), Units::exact(2.0), 1.0);
        transaction.because("sent as a transaction");
        let either = single.clone().or(&transaction);
        assert_eq!(either.requests(), 2);
        assert_eq!(either.of("T"), Units::between(1.0, 3.0));
        assert_eq!(either.of("T/g"), Units::between(0.0, 2.0));
        assert_eq!(either.write_units(), Units::between(1.0, 5.0));
        assert!(!either.is_exact());
        assert!(single.is_exact());
    }

    #[test]
    fn a_reason_makes_a_prediction_a_range() {
        let mut predicted = Predicted::default();
        predicted.add(Access::Write, "T".into(), Units::exact(1.0), 1.0);
        assert!(predicted.is_exact());
        predicted.because("the stored item decides");
        assert!(!predicted.is_exact());
    }

    #[test]
    fn a_prediction_contains_what_was_consumed_by_table_and_index() {
        let mut predicted = Predicted::default();
        predicted.add(Access::Write, "T".into(), Units::exact(2.0), 1.0);
        predicted.add(Access::Write, "T/g".into(), Units::between(0.0, 4.0), 1.0);
        predicted.because("why");
        predicted.because("why");
        assert_eq!(predicted.reasons().len(), 1);
        let mut consumed = Capacity {
            units: 4.0,
            ..Capacity::default()
        };
        consumed.indexes.insert("T".into(), 2.0);
        consumed.indexes.insert("T/g".into(), 2.0);
        assert!(predicted.contains(&consumed));
        consumed.indexes.insert("T/other".into(), 1.0);
        assert!(!predicted.contains(&consumed));
    }
}
