//! ElectroDB's documentation examples on `StoreLocations`, said in dynorm: each runs the
//! operation the example runs, on the items it starts from
//! (`tests/interop/conformance/store_locations.js` runs the same with ElectroDB).

use std::collections::BTreeSet;

use dynorm::{Client, Error};

use super::store_locations::{Agreement, Category, StoreLocation as S, StoreLocationKey};

/// The store the documentation's put and create write.
pub fn latte_larrys() -> S {
    S {
        city_id: "Atlanta1".into(),
        store_id: "LatteLarrys".into(),
        mall_id: "EastPointe".into(),
        building_id: "BuildingA1".into(),
        unit_id: "B47".into(),
        category: Category::FoodCoffee,
        lease_end_date: "2020-03-22".into(),
        rent: "4500.00".into(),
        discount: None,
        warnings: None,
        deposit: None,
        tenants: None,
        rental_agreement: None,
        tags: None,
        contact: None,
        pet_fee: None,
        fees: None,
    }
}

/// The store the update examples change: with a deposit, a tenant, a tag and two
/// contact numbers.
fn stocked() -> S {
    S {
        deposit: Some(1000),
        tenants: Some(BTreeSet::from(["moe".to_owned()])),
        tags: Some(BTreeSet::from(["coffee".to_owned()])),
        contact: Some(BTreeSet::from([
            "555-345-2222".to_owned(),
            "555-345-9999".to_owned(),
        ])),
        ..latte_larrys()
    }
}

/// The store the patch examples change.
fn portland() -> S {
    S {
        city_id: "Portland".into(),
        building_id: "A34".into(),
        ..stocked()
    }
}

fn key(store: &S) -> StoreLocationKey {
    StoreLocationKey {
        city_id: store.city_id.clone(),
        mall_id: store.mall_id.clone(),
        building_id: store.building_id.clone(),
        store_id: store.store_id.clone(),
    }
}

/// The two stores of the batch put and delete examples.
fn los_angeles() -> [S; 2] {
    [
        S {
            city_id: "LosAngeles1".into(),
            building_id: "F34".into(),
            unit_id: "a1".into(),
            lease_end_date: "2022-03-22".into(),
            ..latte_larrys()
        },
        S {
            city_id: "LosAngeles1".into(),
            store_id: "MochaJoes".into(),
            building_id: "F35".into(),
            unit_id: "a2".into(),
            lease_end_date: "2021-01-22".into(),
            rent: "1500.00".into(),
            ..latte_larrys()
        },
    ]
}

/// The two stores of the batch get example.
fn batch_got() -> [S; 2] {
    [
        S {
            building_id: "F34".into(),
            ..latte_larrys()
        },
        S {
            store_id: "MochaJoes".into(),
            mall_id: "WestEnd".into(),
            building_id: "A21".into(),
            city_id: "Madison2".into(),
            ..latte_larrys()
        },
    ]
}

/// The items an example starts from.
pub fn seed(example: &str) -> Vec<S> {
    match example {
        "put-store-location"
        | "create-store-location"
        | "conditions-detect-rejection-only"
        | "upsert-store-location"
        | "upsert-store-location-add-subtract-append"
        | "batch-put-store-locations" => vec![],
        "batch-delete-store-locations" => los_angeles().into(),
        "batch-get-store-locations" => batch_got().into(),
        // The fees to add the pet fee to.
        "update-store-location-data" | "patch-store-location-data" => {
            let mut store = target(example);
            store.pet_fee = Some(250);
            store.fees = Some(1000);
            vec![store]
        }
        name if name.starts_with("update-") => vec![stocked()],
        name if name.starts_with("patch-") => vec![portland()],
        _ => vec![latte_larrys()],
    }
}

/// Why dynorm does not say the example `name` as ElectroDB does, when it does not.
pub fn unsaid(name: &str) -> Option<&'static str> {
    match name {
        "query-bad-missing-pk-attribute" | "query-bad-no-pk" => Some(
            "a compile error: a query names its index's whole partition key \
             (`query_by::<I>(hash)`)",
        ),
        "query-bad-out-of-order" => Some(
            "ElectroDB drops `unitId`, which is not in the index's sort key; a typed query \
             keeps every condition it is given (as a filter)",
        ),
        "query-leases-by-store-id-gte-where" => Some(
            "`contains(category, \"food\")` tests an enum's text for a substring: a typed \
             condition compares an enum as a whole (`is_in` says the same of these values)",
        ),
        _ => None,
    }
}

/// Runs the example `name` on `db`: how many items it read, for a read.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let mut read = None;
    let food_coffee = || S::CATEGORY.eq(Category::FoodCoffee);
    let leases =
        || db.query_by::<super::store_locations::StoreLocationGsi2pkGsi2skIndex>("LatteLarrys");
    let units =
        || db.query_by::<super::store_locations::StoreLocationGsi1pkGsi1skIndex>("EastPointe");
    match name {
        "put-store-location" => {
            db.put(&latte_larrys())
                .condition(S::RENT.eq("4500.00"))
                .send()
                .await?
        }
        "create-store-location" => {
            db.create(&latte_larrys())
                .condition(S::RENT.eq("4500.00"))
                .send()
                .await?
        }
        "conditions-safe-create" | "conditions-detect-rejection-only" => {
            db.create(&latte_larrys()).send().await?
        }
        "upsert-store-location" => {
            let store = latte_larrys();
            db.update::<S>(key(&store))
                .set(S::UNIT_ID, store.unit_id)
                .set(S::CATEGORY, store.category)
                .set(S::LEASE_END_DATE, store.lease_end_date)
                .set(S::RENT, store.rent)
                .upsert()
                .send()
                .await?;
        }
        "get-store-location" => {
            read = Some(usize::from(
                db.get::<S>(key(&latte_larrys())).send().await?.is_some(),
            ));
        }
        "delete-store-location" => db.delete::<S>(key(&latte_larrys())).send().await?,
        "remove-store-location" => {
            db.delete::<S>(key(&latte_larrys()))
                .require_exists(true)
                .send()
                .await?
        }
        "conditions-conditional-update" => {
            db.update::<S>(key(&latte_larrys()))
                .set(S::RENT, "5000.00")
                .condition(S::RENT.lt("4000.00"))
                .send()
                .await?
        }
        "update-store-location-set" | "patch-store-location-set" => {
            db.update::<S>(key(&target(name)))
                .set(S::CATEGORY, Category::FoodMeal)
                .condition(food_coffee())
                .send()
                .await?
        }
        "update-store-location-add" | "patch-store-location-add" => {
            db.update::<S>(key(&target(name)))
                .increment(S::WARNINGS, 1)
                .add_to_set(S::TENANTS, BTreeSet::from(["larry".to_owned()]))
                .condition(food_coffee())
                .send()
                .await?
        }
        "update-store-location-subtract" | "patch-store-location-subtract" => {
            db.update::<S>(key(&target(name)))
                .decrement(S::DEPOSIT, 500)
                .condition(food_coffee())
                .send()
                .await?
        }
        "update-store-location-append" | "patch-store-location-append" => {
            let detail = match name {
                "update-store-location-append" => "amendment",
                _ => "ammendment",
            };
            db.update::<S>(key(&target(name)))
                .append(
                    S::RENTAL_AGREEMENT,
                    vec![Agreement {
                        kind: Some(detail.into()),
                        detail: Some("no soup for you".into()),
                    }],
                )
                .condition(food_coffee())
                .send()
                .await?
        }
        "update-store-location-delete" | "patch-store-location-delete" => {
            db.update::<S>(key(&target(name)))
                .delete_from_set(S::CONTACT, BTreeSet::from(["555-345-2222".to_owned()]))
                .condition(food_coffee())
                .send()
                .await?
        }
        "upsert-store-location-add-subtract-append" => {
            let store = latte_larrys();
            db.update::<S>(key(&store))
                .set(S::UNIT_ID, store.unit_id)
                .set(S::CATEGORY, store.category)
                .set(S::LEASE_END_DATE, store.lease_end_date)
                .set(S::RENT, store.rent)
                .increment(S::DEPOSIT, 100)
                .add_to_set(S::TENANTS, BTreeSet::from(["Larry David".to_owned()]))
                .set_if_not_exists(S::WARNINGS, 0)
                .decrement(S::PET_FEE, 250)
                .append(
                    S::RENTAL_AGREEMENT,
                    vec![Agreement {
                        kind: Some("amendment".into()),
                        detail: Some("Larry David accepts coffee liability".into()),
                    }],
                )
                .upsert()
                .send()
                .await?
        }
        "update-store-location-data" | "patch-store-location-data" => {
            db.update::<S>(key(&target(name)))
                .set(S::CATEGORY, Category::FoodMeal)
                .add_to_set(S::TENANTS, BTreeSet::from(["larry".to_owned()]))
                .increment(S::WARNINGS, 1)
                .decrement(S::DEPOSIT, 200)
                .remove(S::DISCOUNT)
                .append(
                    S::RENTAL_AGREEMENT,
                    vec![Agreement {
                        kind: Some("amendment".into()),
                        detail: Some("no soup for you".into()),
                    }],
                )
                .delete_from_set(S::TAGS, BTreeSet::from(["coffee".to_owned()]))
                .delete_from_set(S::CONTACT, BTreeSet::from(["555-345-2222".to_owned()]))
                .increment_by_attribute(S::FEES, S::PET_FEE)
                .condition(food_coffee())
                .send()
                .await?
        }
        "update-store-location-remove" | "patch-store-location-remove" => {
            db.update::<S>(key(&target(name)))
                .remove(S::DISCOUNT)
                .condition(food_coffee())
                .send()
                .await?
        }
        "batch-put-store-locations" => {
            let [a, b] = los_angeles();
            db.batch_write().put(&a).put(&b).send().await?;
        }
        "batch-get-store-locations" => {
            let found = db
                .get_many::<S, _>(batch_got().iter().map(key).collect::<Vec<_>>())
                .send()
                .await?;
            read = Some(found.len());
        }
        "batch-delete-store-locations" => {
            let [a, b] = los_angeles();
            db.batch_write()
                .delete::<S>(key(&a))
                .delete::<S>(key(&b))
                .send()
                .await?;
        }
        // ElectroDB's find and match choose the index and compare on the keys' folded
        // text. dynorm's planner chooses the same index from `matching`, but keeps exact
        // values with a filter; these name the index and use `range`, whose conditions on
        // a sort key's fields compare as ElectroDB's do: on the key's text.
        "find-store-location" => {
            read = Some(
                units()
                    .range(S::BUILDING_ID.eq("BuildingA1"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "match-store-location" => {
            read = Some(
                units()
                    .range(S::BUILDING_ID.eq("BuildingA1"))
                    .filter(
                        S::MALL_ID.eq("EastPointe")
                            & S::BUILDING_ID.eq("BuildingA1")
                            & S::LEASE_END_DATE.eq("2020-03-22")
                            & S::RENT.eq("1500.00"),
                    )
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-leases-by-store-id" | "pagination-count" | "pagination-entities" => {
            read = Some(leases().all().await?.len())
        }
        "query-leases-by-store-id-date" => {
            read = Some(
                leases()
                    .range(S::LEASE_END_DATE.eq("2020-03-22"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-leases-by-store-id-begins-year" => {
            read = Some(
                leases()
                    .range(S::LEASE_END_DATE.begins_with("2020-00-00"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-leases-by-store-id-between" => {
            read = Some(
                leases()
                    .range(S::LEASE_END_DATE.between("2010-00-00", "2020-99-99"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-leases-by-store-id-gt" => {
            read = Some(
                leases()
                    .range(S::LEASE_END_DATE.gt("2020-04-00"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-leases-by-store-id-gte" => {
            read = Some(
                leases()
                    .range(S::LEASE_END_DATE.ge("2020-03-00"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-leases-by-store-id-lt" => {
            read = Some(
                leases()
                    .range(S::LEASE_END_DATE.lt("2021-00-00"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-leases-by-store-id-lte" => {
            read = Some(
                leases()
                    .range(S::LEASE_END_DATE.le("2021-02-00"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "executing-queries-params" | "executing-queries-go" => {
            read = Some(
                leases()
                    .range(S::LEASE_END_DATE.between("2020-06-01", "2020-07-31"))
                    .filter(S::RENT.le("5000.00"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-units-example-1" => {
            read = Some(
                db.query_by::<super::store_locations::StoreLocationGsi1pkGsi1skIndex>("EastPointe")
                    .range(S::BUILDING_ID.eq("f34"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-units-example-2" => {
            read = Some(
                db.query_by::<super::store_locations::StoreLocationGsi1pkGsi1skIndex>("EastPointe")
                    .range(S::BUILDING_ID.begins_with("f34"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-good-includes-pk" => {
            read = Some(
                db.query_by::<S>(("Atlanta1".to_owned(), "EastPointe".to_owned()))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-good-includes-pk-first-sk" => {
            read = Some(
                db.query_by::<S>(("Atlanta1".to_owned(), "EastPointe".to_owned()))
                    .range(S::BUILDING_ID.eq("f34"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "query-good-includes-all-sk" => {
            read = Some(
                db.query_by::<S>(("Atlanta1".to_owned(), "EastPointe".to_owned()))
                    .range(S::BUILDING_ID.eq("f34") & S::STORE_ID.eq("LatteLarrys"))
                    .all()
                    .await?
                    .len(),
            )
        }
        "scan-units-index" => {
            read = Some(
                db.scan_by::<super::store_locations::StoreLocationGsi1pkGsi1skIndex>()
                    .all()
                    .await?
                    .len(),
            )
        }
        "scan-store-location" => {
            read = Some(
                db.scan::<S>()
                    .filter(
                        (S::CATEGORY.eq(Category::FoodCoffee)
                            | S::CATEGORY.eq(Category::SpiteStore))
                            & S::LEASE_END_DATE.between("2020-03", "2020-04"),
                    )
                    .all()
                    .await?
                    .len(),
            )
        }
        _ => panic!("no dynorm side for the example {name}"),
    }
    Ok(read)
}

/// The store an update (`Atlanta1`) or patch (`Portland`) example changes.
fn target(name: &str) -> S {
    match name.starts_with("patch-") {
        true => portland(),
        false => stocked(),
    }
}
