//! Unique values held by more than one item, found while a backfill adopted a
//! `#[unique]` (`adopt.rs`): one record per value and holder in the progress table,
//! under the run, range key `duplicate#`, a digest of the guard's key, `#` and a digest of
//! the holder's key, so that workers that find the same value record it once.
//!
//! Once its segments are done, a run looks at each recorded value again: holders that
//! gave it up (deleted, or changed through any writer) are dropped; a value left with one
//! holder is claimed for it, when its guard does not already name it, and its records go.
//! A value still held twice stays recorded, and every run sent again reports it, until
//! one of its holders gives it up: the constraint is only claimed once no value is.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use tracing::Instrument as _;

use super::adopt::{names, read, Found};
use super::aside::digest;
use super::lease::{s, Progress};
use super::status::Duplicate;
use dynorm::__ext::client::Client;
use dynorm::__ext::error::Result;
use dynorm::__ext::expr::{Expr, Placeholders};
use dynorm::__ext::observe::span::request_span;
use dynorm::__ext::schema::unique::{self, Unique};
use dynorm::__ext::schema::Schema;
use dynorm::__ext::value::Item;

use super::spend::Spend;

const PREFIX: &str = "duplicate#";

impl Progress<'_> {
    /// Records that both holders of `found` hold its value.
    pub(crate) async fn record_duplicate(&self, found: &Found) -> Result<()> {
        for holder in &found.holders {
            let range = format!("{PREFIX}{}#{}", digest(&found.guard), digest(holder));
            let mut item = self.key(&range);
            item.insert("constraint".to_owned(), s(found.constraint.name));
            item.insert("values".to_owned(), s(&found.values));
            item.insert("guard".to_owned(), AttributeValue::M(found.guard.clone()));
            item.insert("holder".to_owned(), AttributeValue::M(holder.clone()));
            self.record(item).await?;
        }
        Ok(())
    }

    /// Every value the run recorded as held twice, with its holders.
    pub(crate) async fn duplicates(&self) -> Result<Vec<Duplicate>> {
        Ok(self
            .records()
            .await?
            .into_values()
            .map(|r| r.duplicate)
            .collect())
    }

    /// The records, by guard digest.
    async fn records(&self) -> Result<BTreeMap<String, Record>> {
        let items = self.between(PREFIX, &format!("{PREFIX}~")).await?;
        let mut out: BTreeMap<String, Record> = BTreeMap::new();
        for item in items {
            let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
            let map = |name: &str| item.get(name).and_then(|v| v.as_m().ok()).cloned();
            let (Some(range), Some(guard), Some(holder)) =
                (text(super::lease::SEGMENT), map("guard"), map("holder"))
            else {
                continue;
            };
            let group = range[PREFIX.len()..].split('#').next().unwrap_or_default();
            let record = out.entry(group.to_owned()).or_insert_with(|| Record {
                guard,
                ranges: Vec::new(),
                duplicate: Duplicate {
                    constraint: text("constraint").unwrap_or_default(),
                    values: text("values").unwrap_or_default(),
                    holders: Vec::new(),
                },
            });
            record.ranges.push(range);
            record.duplicate.holders.push(holder);
        }
        Ok(out)
    }

    async fn forget(&self, range: &str) -> Result<()> {
        self.client
            .sdk()
            .delete_item()
            .table_name(self.table)
            .set_key(Some(self.key(range)))
            .set_return_consumed_capacity(self.spend.asked())
            .send()
            .instrument(request_span!(
                "DeleteItem",
                tracing::field::Empty,
                self.table
            ))
            .await
            .map(|output| self.spend.counted(output.consumed_capacity.as_slice()))
            .map_err(|e| self.fail(dynorm::__ext::error::from_sdk(e)))
    }

    /// Looks at every recorded value again (see the module's comment); the values still
    /// held twice.
    pub(crate) async fn resolve_duplicates(
        &self,
        client: &Client,
        schema: &'static Schema,
        table: &str,
    ) -> Result<Vec<Duplicate>> {
        let mut left = Vec::new();
        for (_, record) in self.records().await? {
            let Some(constraint) = schema
                .uniques
                .iter()
                .find(|u| u.name == record.duplicate.constraint)
            else {
                continue;
            };
            let mut holding: Vec<(Item, Item)> = Vec::new();
            for (holder, range) in record.duplicate.holders.iter().zip(&record.ranges) {
                let now = read(client, schema, table, holder, self.spend).await?;
                let still = now.filter(|item| {
                    constraint
                        .values(item)
                        .and_then(|v| constraint.guard_key(schema, &v).ok())
                        .is_some_and(|key| key == record.guard)
                });
                match still {
                    Some(item) if !holding.iter().any(|(h, _)| h == holder) => {
                        holding.push((holder.clone(), item));
                    }
                    Some(_) => {}
                    None => self.forget(range).await?,
                }
            }
            if holding.len() > 1 {
                left.push(Duplicate {
                    holders: holding.into_iter().map(|(holder, _)| holder).collect(),
                    ..record.duplicate
                });
                continue;
            }
            if let Some((holder, item)) = holding.first() {
                claim_for(
                    client,
                    schema,
                    table,
                    constraint,
                    &record.guard,
                    (holder, item),
                    self.spend,
                )
                .await?;
            }
            for range in &record.ranges {
                self.forget(range).await?;
            }
        }
        Ok(left)
    }
}

struct Record {
    guard: Item,
    ranges: Vec<String>,
    duplicate: Duplicate,
}

/// Points the guard `key` of `constraint` at `holder` (stored as `item`), its value's one
/// holder now, unless it already names it: on condition that it still names the item it
/// was read naming, or is still absent.
async fn claim_for(
    client: &Client,
    schema: &'static Schema,
    table: &str,
    constraint: &Unique,
    key: &Item,
    (holder, item): (&Item, &Item),
    spend: &Spend,
) -> Result<()> {
    let guard = read(client, schema, table, key, spend).await?;
    let owner = guard.as_ref().and_then(|g| unique::guard_owner(schema, g));
    if owner.as_ref() == Some(holder) {
        return Ok(());
    }
    let Some(values) = constraint.values(item) else {
        return Ok(());
    };
    let mut placeholders = Placeholders::default();
    let condition = match &owner {
        None => Expr::NotExists(schema.hash_key.name),
        Some(owner) => names(schema, owner),
    };
    let condition = placeholders.render_all(&[condition]);
    let result = client
        .sdk()
        .put_item()
        .table_name(table)
        .set_item(Some(constraint.guard_item(schema, &values, holder)?))
        .set_condition_expression(condition)
        .set_expression_attribute_names(placeholders.take_names())
        .set_expression_attribute_values(placeholders.take_values())
        .set_return_consumed_capacity(spend.asked())
        .send()
        .instrument(request_span!("PutItem", schema.model, table))
        .await;
    match result {
        Ok(output) => {
            spend.spent(output.consumed_capacity.as_slice());
            Ok(())
        }
        Err(e) => {
            let error = dynorm::__ext::error::sdk_error(e, schema.model, "backfill", table);
            // Another writer claimed or moved it meanwhile: its writes keep it right.
            if error.kind() == dynorm::ErrorKind::ConditionFailed {
                Ok(())
            } else {
                Err(error)
            }
        }
    }
}
