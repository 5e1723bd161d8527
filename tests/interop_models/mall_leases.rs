//! The mall stores of ElectroDB's "multiple where clauses" examples, and the examples
//! said in dynorm (`tests/interop/conformance/mall_leases.js` and `mall_lease_filters.js`):
//! one entity, declared by the condition example with ElectroDB's usual names and an enum
//! category, and by the filter example in lower case with a string category.

use dynorm::{Client, Error, Model};

use super::store_locations::Category;

/// A store's lease, as the condition example declares it.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "MallLeases", entity = "MallStore", rename_all = "camelCase")]
#[dynorm(
    convention = "electrodb",
    service = "MallStoreDirectory",
    entity_version = "1"
)]
#[key(pk = [mall_id], sk = [store_id])]
#[key(index = "idx2", idx2pk = [mall_id], idx2sk = [lease_end_date, store_id])]
pub struct MallLease {
    pub mall_id: String,
    pub store_id: String,
    pub lease_end_date: String,
    pub rent: String,
    #[dynorm(default = "0.00")]
    pub discount: Option<String>,
    pub category: Category,
}

/// The same lease, as the filter example declares it.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "MallLeaseFilters",
    entity = "mallstore",
    rename_all = "camelCase"
)]
#[dynorm(
    convention = "electrodb",
    service = "mallstoredirectory",
    entity_version = "1"
)]
#[key(pk = [mall_id], sk = [store_id])]
#[key(index = "idx2", idx2pk = [mall_id], idx2sk = [lease_end_date, store_id])]
pub struct MallLeaseFilter {
    pub mall_id: String,
    pub store_id: String,
    pub lease_end_date: String,
    pub rent: String,
    #[dynorm(default = "0.00")]
    pub discount: Option<String>,
    pub category: Option<String>,
}

/// The stores, as `mall_leases.js` seeds them.
const SEED: [(&str, &str, &str, &str, Category); 6] = [
    (
        "LatteLarrys",
        "2020-05-01",
        "4500.00",
        "1000.00",
        Category::FoodCoffee,
    ),
    (
        "MochaJoes",
        "2020-06-15",
        "2500.00",
        "1000.00",
        Category::FoodCoffee,
    ),
    (
        "TeaTime",
        "2020-05-20",
        "6000.00",
        "1000.00",
        Category::FoodCoffee,
    ),
    (
        "BurgerBarn",
        "2020-06-01",
        "3000.00",
        "1000.00",
        Category::FoodMeal,
    ),
    (
        "BeanBag",
        "2020-08-01",
        "3000.00",
        "1000.00",
        Category::FoodCoffee,
    ),
    (
        "CupOfJo",
        "2020-04-15",
        "3500.00",
        "0.00",
        Category::FoodCoffee,
    ),
];

/// The stores the condition example starts from.
pub fn seed(_example: &str) -> Vec<MallLease> {
    SEED.iter()
        .map(|&(store, end, rent, discount, category)| MallLease {
            mall_id: "EastPointe".into(),
            store_id: store.into(),
            lease_end_date: end.into(),
            rent: rent.into(),
            discount: Some(discount.into()),
            category,
        })
        .collect()
}

/// The stores the filter example starts from: the same, their category as text.
pub fn seed_filters(example: &str) -> Vec<MallLeaseFilter> {
    seed(example)
        .into_iter()
        .map(|l| MallLeaseFilter {
            mall_id: l.mall_id,
            store_id: l.store_id,
            lease_end_date: l.lease_end_date,
            rent: l.rent,
            discount: l.discount,
            category: Some(
                match l.category {
                    Category::FoodCoffee => "food/coffee",
                    _ => "food/meal",
                }
                .into(),
            ),
        })
        .collect()
}

/// Both examples are said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// The condition example: leases ending in a window, with rent in a range, a discount
/// and a category.
pub async fn run(_example: &str, db: &Client) -> Result<Option<usize>, Error> {
    let found = db
        .query_by::<MallLeaseIdx2>("EastPointe")
        .range(MallLease::LEASE_END_DATE.between("2020-04-01", "2020-07-01"))
        .filter(
            MallLease::RENT.between("2000.00", "5000.00")
                & MallLease::DISCOUNT.eq("1000.00")
                & MallLease::CATEGORY.eq(Category::FoodCoffee),
        )
        .all()
        .await?;
    Ok(Some(found.len()))
}

/// The filter example: the same query on the lower-case declaration.
pub async fn run_filters(_example: &str, db: &Client) -> Result<Option<usize>, Error> {
    let found = db
        .query_by::<MallLeaseFilterIdx2>("EastPointe")
        .range(MallLeaseFilter::LEASE_END_DATE.between("2020-04-01", "2020-07-01"))
        .filter(
            MallLeaseFilter::RENT.between("2000.00", "5000.00")
                & MallLeaseFilter::DISCOUNT.eq("1000.00")
                & MallLeaseFilter::CATEGORY.eq("food/coffee"),
        )
        .all()
        .await?;
    Ok(Some(found.len()))
}
