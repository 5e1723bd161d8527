//! ElectroDB's documentation examples on `animals`, said in dynorm: its filter examples
//! (`Animal`) and its condition examples (`EvaluatedAnimal`).

use dynorm::{Client, Error};

use super::animals::{
    Animal as A, AnimalGsi1pkGsi1skIndex, AnimalGsi3pkGsi3skIndex, EvaluatedAnimal as E,
    EvaluatedAnimalGsi1pkGsi1skIndex, EvaluatedAnimalKey, Offspring, Veterinarian,
};

/// Janet the tiger, whom most examples read or change.
pub fn janet() -> A {
    A {
        animal: "tiger".into(),
        name: "janet".into(),
        habitat: "Africa".into(),
        enclosure: "5b".into(),
        keeper: Some("Carol Baskin".into()),
        dangerous: Some(true),
        diet: Some(vec!["beef".into(), "chicken".into(), "pork".into()]),
        last_fed: None,
        last_fed_by: Some("Carol Baskin".into()),
        birthday: Some("2019-05-01".into()),
        is_pregnant: None,
        veterinarian: Some(Veterinarian {
            name: Some("Herb Peterson".into()),
        }),
        offspring: Some(vec![Offspring {
            name: Some("Blitzen".into()),
            birthday: Some("2021-01-01".into()),
            note: None,
        }]),
    }
}

/// Janet as the condition examples' entity stores her.
fn evaluated_janet() -> E {
    let a = janet();
    E {
        animal: a.animal,
        name: a.name,
        habitat: a.habitat,
        enclosure: a.enclosure,
        keeper: a.keeper,
        dangerous: a.dangerous,
        diet: a.diet,
        last_fed: a.last_fed,
        last_fed_by: a.last_fed_by,
        birthday: a.birthday,
        is_pregnant: a.is_pregnant,
        veterinarian: a.veterinarian,
        offspring: a.offspring,
        last_evaluation: None,
        last_evaluation_by: None,
    }
}

/// Isabelle the black bear, expecting.
fn isabelle() -> E {
    E {
        animal: "blackbear".into(),
        name: "Isabelle".into(),
        habitat: "Forest".into(),
        enclosure: "3c".into(),
        keeper: None,
        dangerous: None,
        diet: None,
        last_fed: None,
        last_fed_by: None,
        birthday: None,
        is_pregnant: Some(true),
        veterinarian: None,
        offspring: None,
        last_evaluation: Some("2021-09-01".into()),
        last_evaluation_by: Some("stephanie.adler".into()),
    }
}

/// The items a filter example starts from.
pub fn seed(name: &str) -> Vec<A> {
    match name {
        "filters-where-list-attribute" => vec![A {
            animal: "reindeer".into(),
            name: "dasher".into(),
            habitat: "Tundra".into(),
            enclosure: "2a".into(),
            dangerous: Some(false),
            ..janet()
        }],
        _ => vec![janet()],
    }
}

/// The items a condition example starts from.
pub fn seed_evaluated(name: &str) -> Vec<E> {
    match name {
        "conditions-condition-expression" => vec![isabelle()],
        _ => vec![evaluated_janet()],
    }
}

/// Why dynorm does not say an example as ElectroDB does, when it does not.
pub fn unsaid(name: &str) -> Option<&'static str> {
    Some(match name.split_once('-')?.1 {
        "name-function" | "where-name-function" => {
            "a typed condition compares an attribute with a value, not with another attribute"
        }
        "field-function" | "where-field-function" => {
            "a query's filter on a key attribute of its index is refused before sending"
        }
        _ => return None,
    })
}

/// Runs a filter example: how many items it read.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let exhibit = |habitat: &str| db.query_by::<AnimalGsi1pkGsi1skIndex>(habitat.to_owned());
    let enclosure = || exhibit("Africa").range(A::ENCLOSURE.eq("5b"));
    let read = match name {
        "filters-where-single" | "filters-where-destructured" => {
            enclosure().filter(A::DANGEROUS.eq(true)).all().await?
        }
        "filters-where-multiple" => {
            enclosure()
                .filter(A::DANGEROUS.eq(true) & A::LAST_FED.not_exists())
                .all()
                .await?
        }
        "filters-filter-expression" => {
            exhibit("Africa")
                .filter(A::IS_PREGNANT.eq(true) | A::OFFSPRING.exists())
                .all()
                .await?
        }
        "filters-where-dynamic" => {
            exhibit("RainForest")
                .filter(A::KEEPER.eq("Joe Exotic") & A::KEEPER.eq("Carol Baskin"))
                .all()
                .await?
        }
        "filters-escape-function" => enclosure().filter(A::DIET.size().gt(2)).all().await?,
        "filters-value-function" => enclosure().filter(A::KEEPER.eq("Tiger King")).all().await?,
        "filters-where-map-attribute" => {
            db.query_by::<AnimalGsi3pkGsi3skIndex>("Africa".to_owned())
                .filter(A::VETERINARIAN.field::<String>("name").eq("Herb Peterson"))
                .all()
                .await?
        }
        "filters-where-list-attribute" => {
            exhibit("Tundra")
                .filter(A::OFFSPRING.at(0).field::<String>("name").eq("Blitzen"))
                .all()
                .await?
        }
        _ => panic!("no dynorm side for the example {name}"),
    };
    Ok(Some(read.len()))
}

/// Runs a condition example: how many items it read, for a query.
pub async fn run_evaluated(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let janet = || {
        db.update::<E>(EvaluatedAnimalKey {
            animal: "tiger".into(),
            name: "janet".into(),
        })
        .set(E::KEEPER, "Joe Exotic")
    };
    let exhibit =
        |habitat: &str| db.query_by::<EvaluatedAnimalGsi1pkGsi1skIndex>(habitat.to_owned());
    let enclosure = || exhibit("Africa").range(E::ENCLOSURE.eq("5b"));
    let read = match name {
        "conditions-where-single-filter" | "conditions-where-destructured" => {
            janet().condition(E::DANGEROUS.eq(true)).send().await?;
            return Ok(None);
        }
        "conditions-where-multiple-conditions" => {
            janet()
                .condition(E::DANGEROUS.eq(true) & E::LAST_FED.not_exists())
                .send()
                .await?;
            return Ok(None);
        }
        "conditions-where-chained" => {
            janet()
                .condition(
                    (E::DANGEROUS.eq(true) | E::LAST_FED.not_exists())
                        & E::BIRTHDAY.between("2019-01-01", "2019-12-31"),
                )
                .send()
                .await?;
            return Ok(None);
        }
        "conditions-condition-expression" => {
            db.update::<E>(EvaluatedAnimalKey {
                animal: "blackbear".into(),
                name: "Isabelle".into(),
            })
            .set(E::IS_PREGNANT, false)
            .set(E::LAST_EVALUATION, "2021-09-12")
            .set(E::LAST_EVALUATION_BY, "stephanie.adler")
            .append(
                E::OFFSPRING,
                vec![Offspring {
                    name: Some("Ernesto".into()),
                    birthday: Some("2021-09-12".into()),
                    note: Some("healthy birth, mild pollen allergy".into()),
                }],
            )
            .condition(E::IS_PREGNANT.eq(true) & E::LAST_EVALUATION.lt("2021-09-12"))
            .send()
            .await?;
            return Ok(None);
        }
        "conditions-where-map-attribute" => {
            janet()
                .condition(E::VETERINARIAN.field::<String>("name").eq("Herb Peterson"))
                .send()
                .await?;
            return Ok(None);
        }
        "conditions-where-list-attribute" => {
            janet()
                .condition(E::OFFSPRING.at(0).field::<String>("name").eq("Blitzen"))
                .send()
                .await?;
            return Ok(None);
        }
        "conditions-where-dynamic-filtering" => {
            exhibit("RainForest")
                .filter(E::KEEPER.ne("Joe Exotic") & E::KEEPER.ne("Carol Baskin"))
                .all()
                .await?
        }
        "conditions-where-escape-function" => {
            enclosure().filter(E::DIET.size().gt(2)).all().await?
        }
        "conditions-where-value-function" => {
            enclosure().filter(E::KEEPER.eq("Tiger King")).all().await?
        }
        _ => panic!("no dynorm side for the example {name}"),
    };
    Ok(Some(read.len()))
}
