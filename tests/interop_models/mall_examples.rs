//! ElectroDB's shopping mall directory examples, said in dynorm.

use dynorm::{Client, Error};

use super::mall::{
    Category, MallStore as S, MallStoreGsi1pkGsi1skIndex, MallStoreGsi2pkGsi2skIndex, MallStoreKey,
};

/// The store of the directory's examples.
fn store() -> S {
    S {
        mall_id: "EastPointe".into(),
        store_id: "LatteLarrys".into(),
        building_id: "BuildingA1".into(),
        unit_id: "B47".into(),
        city_id: "Atlanta1".into(),
        category: Category::SpiteStore,
        lease_end_date: "2020-02-29".into(),
        rent: "5000.00".into(),
        discount: None,
    }
}

fn key() -> MallStoreKey {
    MallStoreKey {
        city_id: "Atlanta1".into(),
        mall_id: "EastPointe".into(),
        building_id: "BuildingA1".into(),
        store_id: "LatteLarrys".into(),
    }
}

/// The items an example starts from.
pub fn seed(name: &str) -> Vec<S> {
    match name {
        "shopping-mall-directory-create-store" => vec![],
        _ => vec![store()],
    }
}

/// Why dynorm does not say an example as ElectroDB does, when it does not.
pub fn unsaid(name: &str) -> Option<&'static str> {
    (name == "shopping-mall-directory-query-units-full").then_some(
        "ElectroDB drops `storeId`, which is not in the index's sort key; a typed query keeps \
         every condition it is given (as a filter)",
    )
}

/// Runs the example `name`: how many items it read, for a read.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let units = || db.query_by::<MallStoreGsi1pkGsi1skIndex>("EastPointe".to_owned());
    let leases = || db.query_by::<MallStoreGsi2pkGsi2skIndex>("LatteLarrys".to_owned());
    let read = match name.trim_start_matches("shopping-mall-directory-") {
        "create-store" => {
            db.create(&store()).send().await?;
            return Ok(None);
        }
        "delete-store" => {
            db.delete::<S>(key()).send().await?;
            return Ok(None);
        }
        "get-store" => {
            return Ok(Some(usize::from(
                db.get::<S>(key()).send().await?.is_some(),
            )))
        }
        "patch-lease-date" => {
            db.update::<S>(key())
                .set(S::LEASE_END_DATE, "2021-02-28")
                .send()
                .await?;
            return Ok(None);
        }
        "query-by-category" => {
            units()
                .filter(S::CATEGORY.eq(Category::FoodCoffee))
                .all()
                .await?
        }
        "query-leases-between" => {
            leases()
                .range(S::LEASE_END_DATE.between("2020-10-01", "2020-12-31"))
                .all()
                .await?
        }
        "query-leases-filter" => {
            leases()
                .range(S::LEASE_END_DATE.between("2020-01-01", "2020-12-31"))
                .filter(S::CATEGORY.eq(Category::SpiteStore))
                .all()
                .await?
        }
        "query-leases-lt" => {
            leases()
                .range(S::LEASE_END_DATE.lt("2020-04-01"))
                .all()
                .await?
        }
        "query-units-by-building" => units().range(S::BUILDING_ID.eq("BuildingA1")).all().await?,
        "query-units-by-mall" => units().all().await?,
        "query-units-by-unit" => {
            units()
                .range(S::BUILDING_ID.eq("BuildingA1") & S::UNIT_ID.eq("B47"))
                .all()
                .await?
        }
        _ => panic!("no dynorm side for the example {name}"),
    };
    Ok(Some(read.len()))
}
