//! The `animals` entity as ElectroDB's chained-`where` filter example declares it, with
//! `birthday` a number, and that example said in dynorm
//! (`tests/interop/conformance/animal_birthdays.js`).

use dynorm::{Client, Error, Model};

use super::animals::{Offspring, Veterinarian};

/// The suite's "today": `NOW_MS` of `tests/interop/conformance/clock.js`,
/// 2024-05-01T12:00:00.000Z. The documentation's example computes it with `Date.now()`;
/// both sides use this fixed time instead, so that they send the same values.
pub const TODAY_MS: u64 = 1_714_564_800_000;

/// A day, in milliseconds.
const DAY_MS: u64 = 1000 * 60 * 60 * 24;

/// An animal whose birthday is the milliseconds of its birth.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "ZooBirthdays", entity = "animals", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "zoo", entity_version = "1")]
#[key(pk = [animal], sk = [name])]
#[key(index = "gsi1pk-gsi1sk-index", gsi1pk = [habitat], gsi1sk = [enclosure])]
#[key(index = "gsi2pk-gsi2sk-index", gsi2pk = [habitat], gsi2sk = [enclosure])]
#[key(index = "gsi3pk-gsi3sk-index", gsi3pk = [habitat], gsi3sk = [])]
pub struct BirthdayAnimal {
    pub animal: String,
    pub name: String,
    pub habitat: String,
    pub enclosure: String,
    pub keeper: Option<String>,
    pub dangerous: Option<bool>,
    pub diet: Option<Vec<String>>,
    pub last_fed: Option<String>,
    pub last_fed_by: Option<String>,
    pub birthday: Option<u64>,
    pub is_pregnant: Option<bool>,
    pub veterinarian: Option<Veterinarian>,
    pub offspring: Option<Vec<Offspring>>,
}

/// A tiger of enclosure 5b, born `days` before [`TODAY_MS`].
fn tiger(name: &str, dangerous: bool, last_fed: Option<&str>, days: u64) -> BirthdayAnimal {
    BirthdayAnimal {
        animal: "tiger".into(),
        name: name.into(),
        habitat: "Africa".into(),
        enclosure: "5b".into(),
        keeper: Some("Carol Baskin".into()),
        dangerous: Some(dangerous),
        diet: None,
        last_fed: last_fed.map(Into::into),
        last_fed_by: None,
        birthday: Some(TODAY_MS - days * DAY_MS),
        is_pregnant: None,
        veterinarian: None,
        offspring: None,
    }
}

/// The animals the example starts from, as `animal_birthdays.js` declares them.
pub fn seed(_example: &str) -> Vec<BirthdayAnimal> {
    vec![
        tiger("janet", true, Some("2024-04-30"), 10),
        tiger("blitzen", false, None, 7),
        tiger("comet", false, Some("2024-04-30"), 7),
        tiger("dasher", true, Some("2024-04-30"), 730),
    ]
}

/// The example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// The example: enclosure 5b's animals that are dangerous or unfed, born in the last 30
/// days. How many it read.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    type A = BirthdayAnimal;
    assert_eq!(name, "filters-where-chained", "no dynorm side for {name}");
    let last_month = TODAY_MS - 30 * DAY_MS;
    let found = db
        .query_by::<BirthdayAnimalGsi2pkGsi2skIndex>("Africa".to_owned())
        .range(A::ENCLOSURE.eq("5b"))
        .filter(
            (A::DANGEROUS.eq(true) | A::LAST_FED.not_exists())
                & A::BIRTHDAY.between(last_month, TODAY_MS),
        )
        .all()
        .await?;
    Ok(Some(found.len()))
}
