//! The entities the interop tests share with ElectroDB and DynamoDB-Toolbox: the same
//! designs as `tests/interop/models.js` declares with those libraries.

#![allow(dead_code)]

pub mod templates {
    //! The seed's teams design with its custom templates, under ElectroDB's convention.
    //! `casing = "none"` keeps the seed's keys (`TEAM#t_eng`), as in the TypeScript models.

    use chrono::{DateTime, Utc};
    use dynorm::{Collection, Model};
    use serde::{Deserialize, Serialize};

    /// A member's role: ElectroDB's enum attribute `["owner", "admin", "member"]`.
    #[derive(dynorm::Value, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
    #[serde(rename_all = "lowercase")]
    pub enum Role {
        Owner,
        Admin,
        Member,
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "TeamsTemplates", entity = "team", rename_all = "camelCase")]
    #[dynorm(
        convention = "electrodb",
        service = "app",
        entity_version = "1",
        casing = "none"
    )]
    #[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
    pub struct Team {
        pub team_id: String,
        pub name: String,
        #[dynorm(default = "now", read_only)]
        pub created_at: Option<DateTime<Utc>>,
        #[dynorm(updated_at)]
        pub updated_at: Option<DateTime<Utc>>,
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "TeamsTemplates", entity = "user", rename_all = "camelCase")]
    #[dynorm(
        convention = "electrodb",
        service = "app",
        entity_version = "1",
        casing = "none"
    )]
    #[key(pk = "USER#{user_id}", sk = "#METADATA")]
    pub struct User {
        pub user_id: String,
        pub name: String,
        pub email: String,
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "TeamsTemplates",
        entity = "membership",
        rename_all = "camelCase"
    )]
    #[dynorm(
        convention = "electrodb",
        service = "app",
        entity_version = "1",
        casing = "none"
    )]
    #[key(pk = "TEAM#{team_id}", sk = "MEMBER#{user_id}")]
    #[key(index = "GSI1", gsi1pk = "USER#{user_id}", gsi1sk = "TEAM#{team_id}")]
    pub struct Membership {
        pub team_id: String,
        pub user_id: String,
        pub role: Role,
        #[dynorm(default = "now", read_only)]
        pub joined_at: Option<DateTime<Utc>>,
    }

    dynorm::shared_table! {
        /// The seed's table, shared with ElectroDB.
        pub struct TeamsTemplates { Team, User, Membership }
    }

    /// ElectroDB's `teamWithMembers` collection.
    #[derive(Collection, Debug)]
    pub enum TeamWithMembers {
        Team(Team),
        Member(Membership),
    }
}

pub mod defaults {
    //! The same design with ElectroDB's default keys, built from service, entity, version
    //! and the listed fields, lowercased.

    use dynorm::{Collection, Model};

    pub use super::templates::Role;

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "TeamsDefaults", entity = "team", rename_all = "camelCase")]
    #[dynorm(convention = "electrodb", service = "app", entity_version = "1")]
    #[dynorm(stream = "new_and_old_images")]
    #[key(pk = [team_id], sk = [], collection = "teamWithMembers")]
    pub struct Team {
        pub team_id: String,
        pub name: String,
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "TeamsDefaults",
        entity = "membership",
        rename_all = "camelCase"
    )]
    #[dynorm(convention = "electrodb", service = "app", entity_version = "1")]
    #[dynorm(stream = "new_and_old_images")]
    #[key(pk = [team_id], sk = [user_id], collection = "teamWithMembers")]
    #[key(index = "GSI1", gsi1pk = [user_id], gsi1sk = [team_id, role])]
    pub struct Membership {
        pub team_id: String,
        pub user_id: String,
        pub role: Role,
        pub seats: Option<u32>,
    }

    dynorm::shared_table! {
        /// ElectroDB's default keys, in their own table.
        pub struct TeamsDefaults { Team, Membership }
    }

    /// ElectroDB's `teamWithMembers` collection.
    #[derive(Collection, Debug)]
    pub enum TeamWithMembers {
        Team(Team),
        Member(Membership),
    }
}

pub mod toolbox {
    //! One DynamoDB-Toolbox entity, with its timestamps.

    use std::collections::BTreeSet;

    use dynorm::Model;

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Pokedex", entity = "POKEMON", rename_all = "camelCase")]
    #[dynorm(convention = "dynamodb-toolbox", timestamps)]
    #[key(pk = "POKEMON#{pokemon_id}", sk = "INFO")]
    pub struct Pokemon {
        pub pokemon_id: String,
        pub name: String,
        pub level: u32,
        pub types: Option<BTreeSet<String>>,
    }
}

pub mod tasks {
    //! ElectroDB's task manager, as its documentation models it: default keys of several
    //! attributes, optional key parts, a stored name (`field`) that differs from the
    //! attribute's, values holding the separator, and a nested map with optional fields.

    use dynorm::{Collection, Model};
    use serde::{Deserialize, Serialize};

    /// Who reviews a task: a map inside a map, with an optional field.
    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    pub struct Reviewer {
        pub name: String,
        pub email: Option<String>,
    }

    /// A task's details: ElectroDB's `map` attribute with optional properties.
    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    pub struct Details {
        pub estimate: Option<u32>,
        pub notes: Option<String>,
        pub reviewer: Option<Reviewer>,
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "TaskManager", entity = "task", rename_all = "camelCase")]
    #[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
    #[key(pk = [task_id], sk = [project, employee])]
    #[key(index = "GSI1", gsi1pk = [project], gsi1sk = [employee, task_id])]
    #[key(index = "GSI2", gsi2pk = [status], gsi2sk = [task_id])]
    #[key(index = "GSI3", gsi3pk = [employee], gsi3sk = [project, task_id], collection = "assignments")]
    pub struct Task {
        pub task_id: String,
        pub project: String,
        /// ElectroDB's `employee: { field: "emp" }`: labelled `employee` in keys.
        #[dynorm(rename = "emp")]
        pub employee: String,
        pub status: Option<String>,
        pub details: Option<Details>,
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "TaskManager", entity = "employee", rename_all = "camelCase")]
    #[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
    #[key(pk = [employee], sk = [])]
    #[key(index = "GSI1", gsi1pk = [office], gsi1sk = [employee])]
    #[key(index = "GSI3", gsi3pk = [employee], gsi3sk = [], collection = "assignments")]
    pub struct Employee {
        /// Stored as `emp`, as `Task` stores it: ElectroDB's collection members agree.
        #[dynorm(rename = "emp")]
        pub employee: String,
        pub name: String,
        pub office: Option<String>,
    }

    dynorm::shared_table! {
        /// ElectroDB's task manager, in one table.
        pub struct TaskManager { Task, Employee }
    }

    /// ElectroDB's `assignments` collection, on index GSI3: an employee and their tasks.
    #[derive(Collection, Debug)]
    #[dynorm(index = "GSI3")]
    pub enum Assignments {
        Employee(Employee),
        Task(Task),
    }

    /// A DynamoDB-Toolbox entity with its default timestamps and a nested map with
    /// optional fields, in the Pokedex table.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Pokedex", entity = "TRAINER", rename_all = "camelCase")]
    #[dynorm(convention = "dynamodb-toolbox")]
    #[key(pk = "TRAINER#{trainer_id}", sk = "PROFILE")]
    pub struct Trainer {
        pub trainer_id: String,
        pub name: String,
        pub home: Option<Home>,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    pub struct Home {
        pub town: String,
        pub gym: Option<String>,
        pub rival: Option<Rival>,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    pub struct Rival {
        pub name: String,
        pub title: Option<String>,
    }

    /// Without DynamoDB-Toolbox's timestamps.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Pokedex", entity = "BADGE", rename_all = "camelCase")]
    #[dynorm(convention = "dynamodb-toolbox", timestamps = false)]
    #[key(pk = "BADGE#{badge_id}", sk = "INFO")]
    pub struct Badge {
        pub badge_id: String,
        pub name: String,
    }

    /// A gym leader's slug, as DynamoDB-Toolbox's `link` computes it.
    pub fn slug(leader: &str) -> String {
        leader.to_lowercase()
    }

    /// A city is stored upper case, as DynamoDB-Toolbox's `transform` encodes it.
    pub fn upper(city: String) -> String {
        city.to_uppercase()
    }

    /// And read lower case.
    pub fn lower(city: String) -> String {
        city.to_lowercase()
    }

    /// DynamoDB-Toolbox's computed (`link`), transformed (`transform`) and default
    /// attributes, and a map whose paths updates write.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Pokedex", entity = "GYM", rename_all = "camelCase")]
    #[dynorm(convention = "dynamodb-toolbox", timestamps = false)]
    #[key(pk = "GYM#{gym_id}", sk = "INFO")]
    pub struct Gym {
        pub gym_id: String,
        pub leader: String,
        #[dynorm(watch = [leader], set = slug)]
        pub leader_slug: String,
        #[dynorm(set = upper, get = lower)]
        pub city: String,
        #[dynorm(default = 8)]
        pub badges: Option<u32>,
        pub address: Address,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Address {
        pub street: String,
        pub number: u32,
    }
}

/// Every item of `M` a scan reads, each as its `Debug` text: a suite's `read_all` is these,
/// for each of its models, sorted.
pub async fn scanned<M>(db: &dynorm::Client) -> Result<Vec<String>, dynorm::Error>
where
    M: dynorm::Model + dynorm::schema::Index<Model = M, Item = M> + std::fmt::Debug,
{
    Ok(db
        .scan::<M>()
        .all()
        .await?
        .iter()
        .map(|item| format!("{item:?}"))
        .collect())
}

pub mod animal_birthdays;
pub mod animal_examples;
pub mod app_updates;
pub mod attributes_as_indexes;
pub mod book_examples;
pub mod directory_examples;
pub mod dynamodb_json;
pub mod edgecase_examples;
pub mod existing_table;
pub mod human_resources_examples;
pub mod inventory_examples;
pub mod inventory_service;
pub mod item_counters;
pub mod library_examples;
pub mod mall_examples;
pub mod mall_leases;
pub mod projections;
pub mod scopes;
pub mod store_examples;
pub mod store_path_examples;
pub mod task_app;
pub mod task_app_projects;
pub mod task_app_subcollections;
pub mod task_manager_examples;
pub mod transactions;
pub mod version_control_examples;

pub mod store_locations {
    //! ElectroDB's `StoreLocations` entity, which most of its documentation's examples use
    //! (`tests/interop/conformance/store_locations.js` declares it with ElectroDB).

    use std::collections::BTreeSet;

    use dynorm::Model;
    use serde::{Deserialize, Serialize};

    /// ElectroDB's enum attribute `category`.
    #[derive(dynorm::Value, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Category {
        #[dynorm(rename = "spite store")]
        SpiteStore,
        #[dynorm(rename = "food/coffee")]
        FoodCoffee,
        #[dynorm(rename = "food/meal")]
        FoodMeal,
        #[dynorm(rename = "clothing")]
        Clothing,
        #[dynorm(rename = "electronics")]
        Electronics,
        #[dynorm(rename = "department")]
        Department,
        #[dynorm(rename = "misc")]
        Misc,
    }

    /// One entry of `rentalAgreement`, a list of maps.
    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Agreement {
        #[serde(rename = "type", skip_serializing_if = "Option::is_none", default)]
        pub kind: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pub detail: Option<String>,
    }

    /// A model of ElectroDB's `MallStore` entity: a store's place, category, lease and
    /// rent, and `$extra` after them.
    macro_rules! store {
        ($(#[$meta:meta])* $name:ident { $($extra:tt)* }) => {
            #[derive(Model, Debug, Clone, PartialEq)]
            #[dynorm(
                convention = "electrodb",
                service = "MallStoreDirectory",
                entity_version = "1"
            )]
            #[key(pk = [city_id, mall_id], sk = [building_id, store_id])]
            #[key(index = "gsi1pk-gsi1sk-index", gsi1pk = [mall_id], gsi1sk = [building_id, unit_id])]
            #[key(index = "gsi2pk-gsi2sk-index", gsi2pk = [store_id], gsi2sk = [lease_end_date])]
            $(#[$meta])*
            pub struct $name {
                pub city_id: String,
                pub mall_id: String,
                pub store_id: String,
                pub building_id: String,
                pub unit_id: String,
                pub category: Category,
                pub lease_end_date: String,
                pub rent: String,
                #[dynorm(default = "0.00")]
                pub discount: Option<String>,
                $($extra)*
            }
        };
    }
    pub(crate) use store;

    store! {
        #[dynorm(table = "StoreDirectory", entity = "MallStore", rename_all = "camelCase")]
        StoreLocation {
            #[dynorm(default = 0)]
            pub warnings: Option<i64>,
            pub deposit: Option<i64>,
            pub tenants: Option<BTreeSet<String>>,
            pub rental_agreement: Option<Vec<Agreement>>,
            pub tags: Option<BTreeSet<String>>,
            pub contact: Option<BTreeSet<String>>,
            pub pet_fee: Option<i64>,
            pub fees: Option<i64>,
        }
    }
}

pub mod animals {
    //! ElectroDB's `animals` entity of its filter examples, and the variant its condition
    //! examples use (`tests/interop/conformance/animals.js`, `animal_conditions.js`).

    use dynorm::Model;
    use serde::{Deserialize, Serialize};

    /// `veterinarian`, a map.
    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Veterinarian {
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pub name: Option<String>,
    }

    /// One entry of `offspring`, a list of maps.
    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Offspring {
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pub name: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pub birthday: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pub note: Option<String>,
    }

    /// A model of the `animals` entity: its attributes, and `$extra` after them.
    macro_rules! animal {
        ($(#[$meta:meta])* $name:ident { $($extra:tt)* }) => {
            #[derive(Model, Debug, Clone, PartialEq)]
            #[dynorm(convention = "electrodb", service = "zoo", entity_version = "1")]
            #[key(pk = [animal], sk = [name])]
            #[key(index = "gsi1pk-gsi1sk-index", gsi1pk = [habitat], gsi1sk = [enclosure])]
            $(#[$meta])*
            pub struct $name {
                pub animal: String,
                pub name: String,
                pub habitat: String,
                pub enclosure: String,
                pub keeper: Option<String>,
                pub dangerous: Option<bool>,
                pub diet: Option<Vec<String>>,
                pub last_fed: Option<String>,
                pub last_fed_by: Option<String>,
                pub birthday: Option<String>,
                pub is_pregnant: Option<bool>,
                pub veterinarian: Option<Veterinarian>,
                pub offspring: Option<Vec<Offspring>>,
                $($extra)*
            }
        };
    }

    animal! {
        #[dynorm(table = "Zoo", entity = "animals", rename_all = "camelCase")]
        #[key(index = "gsi2pk-gsi2sk-index", gsi2pk = [habitat], gsi2sk = [enclosure])]
        #[key(index = "gsi3pk-gsi3sk-index", gsi3pk = [habitat], gsi3sk = [])]
        Animal {}
    }

    animal! {
        #[dynorm(table = "ZooEvaluated", entity = "animals", rename_all = "camelCase")]
        EvaluatedAnimal {
            pub last_evaluation: Option<String>,
            pub last_evaluation_by: Option<String>,
        }
    }
}

pub mod mall {
    //! The `StoreLocations` entity of ElectroDB's shopping mall directory example
    //! (`tests/interop/conformance/shopping_mall.js`).

    use dynorm::Model;

    pub use super::store_locations::Category;

    super::store_locations::store! {
        #[dynorm(table = "MallDirectory", entity = "MallStore", rename_all = "camelCase")]
        MallStore {}
    }
}

pub mod repositories {
    //! A version-control service's repositories, keyed by a boolean and an enum
    //! (`tests/interop/models.js` declares it with ElectroDB).

    use dynorm::Model;

    /// ElectroDB's enum attribute `license`.
    #[derive(dynorm::Value, Debug, Clone, Copy, PartialEq, Eq)]
    pub enum License {
        #[dynorm(rename = "mit")]
        Mit,
        #[dynorm(rename = "apache-2.0")]
        Apache2,
        #[dynorm(rename = "unlicense")]
        Unlicense,
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "VersionControl",
        entity = "repositories",
        rename_all = "camelCase"
    )]
    #[dynorm(
        convention = "electrodb",
        service = "versioncontrol",
        entity_version = "1"
    )]
    #[key(pk = [repo_owner], sk = [repo_name], collection = "alerts")]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [repo_owner],
        gsi1sk = [is_private, license, repo_name],
        collection = "owned"
    )]
    pub struct Repository {
        pub repo_owner: String,
        pub repo_name: String,
        pub is_private: bool,
        pub license: License,
        #[dynorm(default = "main")]
        pub default_branch: Option<String>,
    }
}

pub mod owned {
    //! ElectroDB's sub-collections (`tests/interop/models.js`, `subCollections`): a user's
    //! repositories are `owned`; their issues and pull requests are `owned`, and within it
    //! `managed`.

    use dynorm::{Collection, Model};

    /// A model of one of the three entities, in `$collection` on GSI1.
    macro_rules! owned_entity {
        ($name:ident, $entity:literal, $($collection:tt)*) => {
            #[derive(Model, Debug, Clone, PartialEq)]
            #[dynorm(table = "Owned", entity = $entity, rename_all = "camelCase")]
            #[dynorm(convention = "electrodb", service = "versioncontrol", entity_version = "1")]
            #[key(pk = [id], sk = [])]
            #[key(
                index = "gsi1pk-gsi1sk-index",
                gsi1pk = [username],
                gsi1sk = [status, id],
                collection = $($collection)*
            )]
            pub struct $name {
                pub username: String,
                pub id: String,
                pub status: String,
            }
        };
    }

    owned_entity!(Repository, "repository", "owned");
    owned_entity!(Issue, "issue", ["owned", "managed"]);
    owned_entity!(PullRequest, "pullRequest", ["owned", "managed"]);

    dynorm::shared_table! {
        /// The table the three share.
        pub struct Owned { Repository, Issue, PullRequest }
    }

    /// The `owned` collection: everything a user owns.
    #[derive(Collection, Debug, PartialEq)]
    #[dynorm(index = "gsi1pk-gsi1sk-index")]
    pub enum OwnedWork {
        Repository(Repository),
        Issue(Issue),
        PullRequest(PullRequest),
    }

    /// The `managed` sub-collection within it: the issues and pull requests.
    #[derive(Collection, Debug, PartialEq)]
    #[dynorm(index = "gsi1pk-gsi1sk-index")]
    pub enum ManagedWork {
        Issue(Issue),
        PullRequest(PullRequest),
    }
}

pub mod tickets {
    //! The version-control service's issues (`tests/interop/models.js`, `tickets`), with
    //! the attributes ElectroDB computes: `ticket_number` follows `issue_number` (`watch`),
    //! `status` is stored as a code (`set`, `get`) and is part of `gsi2sk`, `reply_viewed`
    //! stores `#` for "not viewed yet", and `ticket_type` is always `Issue`.

    use dynorm::Model;

    /// The statuses, each stored as its position.
    const STATUSES: [&str; 2] = ["Open", "Closed"];
    /// The stored marker of a reply nobody has viewed yet.
    const NOT_YET_VIEWED: &str = "#";

    /// `status` as stored: its code (an unknown status is stored as nothing, then the
    /// default fills it in).
    pub fn to_status_code(status: String) -> String {
        STATUSES
            .iter()
            .position(|s| *s == status)
            .map_or_else(String::new, |code| code.to_string())
    }

    /// `status` as read: the status its code stands for.
    pub fn to_status(code: String) -> String {
        code.parse::<usize>()
            .ok()
            .and_then(|i| STATUSES.get(i))
            .map_or(code, |s| (*s).to_owned())
    }

    /// A reply nobody has viewed is stored as the marker.
    pub fn mark_unviewed(viewed: Option<String>) -> Option<String> {
        Some(viewed.unwrap_or_else(|| NOT_YET_VIEWED.to_owned()))
    }

    /// The marker is read as no viewer.
    pub fn hide_unviewed(viewed: Option<String>) -> Option<String> {
        viewed.filter(|v| v != NOT_YET_VIEWED)
    }

    /// A ticket's number is its issue's.
    pub fn ticket_number(issue_number: &str) -> String {
        issue_number.to_owned()
    }

    /// Every issue is an `Issue` ticket, whatever it was given.
    pub fn issue_ticket(_: String) -> String {
        "Issue".to_owned()
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Tickets", entity = "issues", rename_all = "camelCase")]
    #[dynorm(
        convention = "electrodb",
        service = "versioncontrol",
        entity_version = "1"
    )]
    #[key(
        pk = [repo_owner, repo_name, issue_number],
        sk = [],
        collection = "issueReview"
    )]
    #[key(
        index = "gsi2pk-gsi2sk-index",
        gsi2pk = [repo_owner, repo_name],
        gsi2sk = [status, issue_number],
        collection = "activity"
    )]
    #[key(
        index = "gsi4pk-gsi4sk-index",
        gsi4pk = [repo_owner, repo_name, ticket_number],
        gsi4sk = [],
        collection = "subscribers"
    )]
    pub struct Issue {
        pub issue_number: String,
        pub repo_name: String,
        pub repo_owner: String,
        pub username: String,
        #[dynorm(set = issue_ticket, read_only)]
        pub ticket_type: String,
        #[dynorm(watch = [issue_number], set = ticket_number)]
        pub ticket_number: String,
        #[dynorm(default = "Open", set = to_status_code, get = to_status)]
        pub status: String,
        #[dynorm(set = mark_unviewed, get = hide_unviewed)]
        pub reply_viewed: Option<String>,
        pub subject: String,
    }
}

pub mod books {
    //! ElectroDB's quick start bookstore (`tests/interop/conformance/books.js`).

    use std::collections::BTreeSet;

    use dynorm::Model;

    /// A book's condition, ElectroDB's enum attribute.
    #[derive(dynorm::Value, Debug, Clone, Copy, PartialEq, Eq)]
    #[dynorm(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum Condition {
        Excellent,
        Good,
        Fair,
        Poor,
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Books", entity = "book", rename_all = "camelCase")]
    #[dynorm(convention = "electrodb", service = "store", entity_version = "1")]
    #[key(pk = [store_id], sk = [book_id])]
    #[key(index = "gsi1pk-gsi1sk-index", gsi1pk = [author], gsi1sk = [title])]
    pub struct Book {
        pub store_id: String,
        pub book_id: String,
        pub price: f64,
        pub title: Option<String>,
        pub author: Option<String>,
        pub condition: Condition,
        pub genre: Option<BTreeSet<String>>,
        pub published: Option<String>,
    }
}

pub mod inventory {
    //! ElectroDB's multi-attribute index (`tests/interop/conformance/inventory.js`): `gsi1`
    //! keyed by three attributes and sorted by three, each stored as itself.

    use dynorm::Model;

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Inventory", entity = "inventoryitem")]
    #[dynorm(convention = "electrodb", service = "warehouse", entity_version = "1")]
    #[key(pk = [manufacturer], sk = [model, id])]
    #[index(
        name = "gsi1",
        hash_key = [country, region, city],
        range_key = [manufacturer, model, count]
    )]
    pub struct InventoryItem {
        pub id: String,
        #[dynorm(rename = "attr1")]
        pub country: String,
        #[dynorm(rename = "attr2")]
        pub region: String,
        #[dynorm(rename = "attr3")]
        pub city: String,
        #[dynorm(rename = "attr4")]
        pub manufacturer: String,
        #[dynorm(rename = "attr5")]
        pub model: String,
        #[dynorm(rename = "attr6")]
        pub count: u32,
        #[dynorm(rename = "attr7")]
        pub name: Option<String>,
    }
}

pub mod directory {
    //! ElectroDB's team directory (`conformance/team_directory.js`) and staff
    //! (`conformance/staff.js`).

    use dynorm::Model;

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "TeamDirectory", entity = "User", rename_all = "camelCase")]
    #[dynorm(
        convention = "electrodb",
        service = "TeamDirectory",
        entity_version = "1"
    )]
    #[key(pk = [username], sk = [])]
    #[key(index = "gsi1pk-gsi1sk-index", gsi1pk = [team], gsi1sk = [username])]
    pub struct User {
        pub username: String,
        pub team: String,
        pub email: String,
    }

    /// ElectroDB's enum attribute `team`.
    #[derive(dynorm::Value, Debug, Clone, Copy, PartialEq, Eq)]
    #[dynorm(rename_all = "lowercase")]
    pub enum Team {
        Jupiter,
        Mercury,
        Saturn,
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Staff", entity = "employees", rename_all = "camelCase")]
    #[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
    #[key(pk = [organization_id], sk = [employee_id])]
    #[key(
        index = "gsi2",
        gsi2pk = [employee_id],
        gsi2sk = [],
        collection = "contributions"
    )]
    pub struct Employee {
        pub employee_id: String,
        pub organization_id: String,
        pub name: Option<String>,
        pub team: Option<Team>,
    }
}

pub mod store_paths {
    //! ElectroDB's `StoreLocations` as its map and list update examples declare it
    //! (`tests/interop/conformance/store_paths.js`).

    use dynorm::{Model, StringSet};
    use serde::{Deserialize, Serialize};

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "StorePaths", entity = "MallStore", rename_all = "camelCase")]
    #[dynorm(
        convention = "electrodb",
        service = "MallStoreDirectory",
        entity_version = "1"
    )]
    #[key(pk = [city_id, mall_id], sk = [building_id, store_id])]
    pub struct StorePath {
        pub city_id: String,
        pub mall_id: String,
        pub store_id: String,
        pub building_id: String,
        pub map_attribute: Option<MapAttribute>,
        pub list_attribute: Option<Vec<ListEntry>>,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct MapAttribute {
        pub map_property: Option<String>,
    }

    /// A map of the list: its set is a DynamoDB string set, as ElectroDB stores a `set`
    /// inside a map, so an update adds elements to it.
    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct ListEntry {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub set_attribute: Option<StringSet>,
    }
}

pub mod edgecases {
    //! ElectroDB's update edge case (`tests/interop/conformance/edgecases.js`).

    use dynorm::Model;

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Edgecases", entity = "update-edgecases")]
    #[dynorm(convention = "electrodb", service = "service", entity_version = "1")]
    #[key(pk = [attr1], sk = [attr2])]
    #[key(index = "gsi1pk-gsi1sk-index", gsi1pk = [attr3], gsi1sk = [attr2, attr4])]
    pub struct Edgecase {
        pub attr1: String,
        pub attr2: String,
        pub attr3: String,
        pub attr4: Option<String>,
    }
}

pub mod library {
    //! ElectroDB's library system (`tests/interop/conformance/library.js`): an author, a
    //! book copy, a book's genre and a member of the service `library`, in one table, with
    //! the collections `account`, `works`, `detail` and `titles`.

    use dynorm::{Collection, Model};
    use serde::{Deserialize, Serialize};

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Library", entity = "author", rename_all = "camelCase")]
    #[dynorm(convention = "electrodb", service = "library", entity_version = "1")]
    #[key(pk = [author_last_name], sk = [author_first_name, birthday])]
    #[key(
        index = "gsi2pk-gsi2sk-index",
        gsi2pk = [author_last_name, author_first_name],
        gsi2sk = [],
        collection = "works"
    )]
    pub struct Author {
        pub author_first_name: String,
        pub author_last_name: String,
        pub birthday: String,
        pub bio: String,
    }

    /// A copy of a book: on loan to a member until `loan_end_date`, or `AVAILABLE`.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Library", entity = "book", rename_all = "camelCase")]
    #[dynorm(convention = "electrodb", service = "library", entity_version = "1")]
    #[key(pk = [isbn], sk = [book_id], collection = "detail")]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [member_id],
        gsi1sk = [loan_end_date],
        collection = "account"
    )]
    #[key(
        index = "gsi2pk-gsi2sk-index",
        gsi2pk = [author_last_name, author_first_name],
        gsi2sk = [loan_end_date],
        collection = "works"
    )]
    #[key(
        index = "gsi3pk-gsi3sk-index",
        gsi3pk = [book_title],
        gsi3sk = [release_date],
        collection = "titles"
    )]
    pub struct Book {
        pub book_id: String,
        pub book_title: String,
        pub description: String,
        pub publisher: String,
        pub release_date: String,
        pub author_first_name: String,
        pub author_last_name: String,
        pub isbn: String,
        pub loan_start_date: Option<String>,
        pub loan_end_date: Option<String>,
        pub member_id: Option<String>,
    }

    /// A book's genre and subgenre.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Library", entity = "genre", rename_all = "camelCase")]
    #[dynorm(convention = "electrodb", service = "library", entity_version = "1")]
    #[key(pk = [isbn], sk = [genre, subgenre], collection = "detail")]
    #[key(index = "gsi1pk-gsi1sk-index", gsi1pk = [genre], gsi1sk = [subgenre])]
    #[key(
        index = "gsi2pk-gsi2sk-index",
        gsi2pk = [author_last_name, author_first_name],
        gsi2sk = [genre],
        collection = "works"
    )]
    #[key(
        index = "gsi3pk-gsi3sk-index",
        gsi3pk = [book_title],
        gsi3sk = [genre, subgenre],
        collection = "titles"
    )]
    pub struct Genre {
        pub genre: String,
        pub isbn: String,
        pub book_title: Option<String>,
        pub author_first_name: String,
        pub author_last_name: String,
        pub subgenre: String,
    }

    /// `address`, a map.
    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Address {
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pub street_address: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pub city: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pub state: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pub zip: Option<String>,
    }

    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Library", entity = "member", rename_all = "camelCase")]
    #[dynorm(convention = "electrodb", service = "library", entity_version = "1")]
    #[key(pk = [member_id], sk = [])]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [member_id],
        gsi1sk = [],
        collection = "account"
    )]
    pub struct Member {
        pub member_id: String,
        pub membership_start_date: Option<String>,
        pub membership_end_date: Option<String>,
        pub address: Option<Address>,
    }

    dynorm::shared_table! {
        /// The library's table.
        pub struct Library { Author, Book, Genre, Member }
    }

    /// `account`: a member and the copies on loan to them.
    #[derive(Collection, Debug)]
    #[dynorm(index = "gsi1pk-gsi1sk-index")]
    pub enum Account {
        Member(Member),
        Book(Book),
    }

    /// `works`: an author, their copies and their books' genres.
    #[derive(Collection, Debug)]
    #[dynorm(index = "gsi2pk-gsi2sk-index")]
    pub enum Works {
        Author(Author),
        Book(Book),
        Genre(Genre),
    }

    /// `detail`: a book's copies and genres, by ISBN.
    #[derive(Collection, Debug)]
    pub enum Detail {
        Book(Book),
        Genre(Genre),
    }

    /// `titles`: a title's copies and genres.
    #[derive(Collection, Debug)]
    #[dynorm(index = "gsi3pk-gsi3sk-index")]
    pub enum Titles {
        Book(Book),
        Genre(Genre),
    }
}

pub mod human_resources {
    //! ElectroDB's human resources app (`tests/interop/conformance/human_resources.js`): its
    //! `EmployeeApp` service, of the service `taskapp`, with an employee, a task and an
    //! office in one table, and the collections `workplaces` and `assignments`. Every
    //! attribute is optional in ElectroDB's model: those of the table's keys are required
    //! here, since an item cannot be written without its key.

    use dynorm::{Collection, Model};
    use serde::{Deserialize, Serialize};

    /// An employee's team, ElectroDB's enum attribute `team`.
    #[derive(dynorm::Value, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Team {
        #[dynorm(rename = "development")]
        Development,
        #[dynorm(rename = "marketing")]
        Marketing,
        #[dynorm(rename = "finance")]
        Finance,
        #[dynorm(rename = "product")]
        Product,
    }

    /// An employee: found by office and team, by team and title, by title and salary, and
    /// by manager.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "ProjectManagement",
        entity = "employee",
        rename_all = "camelCase"
    )]
    #[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
    #[key(pk = [employee], sk = [])]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [office],
        gsi1sk = [team, title, employee],
        collection = "workplaces"
    )]
    #[key(index = "gsi2pk-gsi2sk-index", gsi2pk = [team], gsi2sk = [title, salary, employee])]
    #[key(
        index = "gsi3pk-gsi3sk-index",
        gsi3pk = [employee],
        gsi3sk = [],
        collection = "assignments"
    )]
    #[key(index = "gsi4pk-gsi4sk-index", gsi4pk = [title], gsi4sk = [salary, employee])]
    #[key(index = "gsi5pk-gsi5sk-index", gsi5pk = [manager], gsi5sk = [team, office, employee])]
    pub struct Employee {
        pub employee: String,
        pub first_name: Option<String>,
        pub last_name: Option<String>,
        pub office: Option<String>,
        pub title: Option<String>,
        pub team: Option<Team>,
        pub salary: Option<String>,
        pub manager: Option<String>,
        pub date_hired: Option<String>,
        pub birthday: Option<String>,
    }

    /// A task of a project, assigned to an employee.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "ProjectManagement", entity = "task", rename_all = "camelCase")]
    #[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
    #[key(pk = [task], sk = [project, employee])]
    #[key(index = "gsi1pk-gsi1sk-index", gsi1pk = [project], gsi1sk = [employee, task])]
    #[key(
        index = "gsi3pk-gsi3sk-index",
        gsi3pk = [employee],
        gsi3sk = [project, task],
        collection = "assignments"
    )]
    pub struct Task {
        pub task: String,
        pub project: String,
        pub employee: String,
        pub description: Option<String>,
    }

    /// An office: found by country and state.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "ProjectManagement",
        entity = "office",
        rename_all = "camelCase"
    )]
    #[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
    #[key(pk = [country, state], sk = [city, zip, office])]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [office],
        gsi1sk = [],
        collection = "workplaces"
    )]
    pub struct Office {
        pub office: String,
        pub country: String,
        pub state: String,
        pub city: String,
        pub zip: String,
        pub address: Option<String>,
    }

    dynorm::shared_table! {
        /// The human resources app's table (`projectmanagement`).
        pub struct ProjectManagement { Employee, Task, Office }
    }

    /// `workplaces`: an office and the employees who work there.
    #[derive(Collection, Debug)]
    #[dynorm(index = "gsi1pk-gsi1sk-index")]
    pub enum Workplaces {
        Employee(Employee),
        Office(Office),
    }

    /// `assignments`: an employee and their tasks.
    #[derive(Collection, Debug)]
    #[dynorm(index = "gsi3pk-gsi3sk-index")]
    pub enum Assignments {
        Employee(Employee),
        Task(Task),
    }
}

pub mod task_manager {
    //! ElectroDB's task manager (`tests/interop/conformance/task_manager.js`): its
    //! `taskManager` service, of the service `taskmanager`, with an employee, an office and
    //! a task in one table, and the collections `workplaces` and `assignments`.

    use dynorm::{Collection, Model};
    use serde::{Deserialize, Serialize};

    /// An employee's team, ElectroDB's enum attribute `team`.
    #[derive(dynorm::Value, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Team {
        #[dynorm(rename = "development")]
        Development,
        #[dynorm(rename = "marketing")]
        Marketing,
        #[dynorm(rename = "finance")]
        Finance,
        #[dynorm(rename = "product")]
        Product,
        #[dynorm(rename = "cool cats and kittens")]
        CoolCatsAndKittens,
    }

    /// A task's status, ElectroDB's enum attribute `status`.
    #[derive(dynorm::Value, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Status {
        #[dynorm(rename = "open")]
        Open,
        #[dynorm(rename = "in-progress")]
        InProgress,
        #[dynorm(rename = "closed")]
        Closed,
    }

    /// An employee: found by office and team, by team and hiring date, by title and
    /// salary, and by manager. ElectroDB's model gives `employee` a random default id and
    /// checks that `dateHired` and `birthday` are dates; the examples write every employee
    /// with its id and its dates, so neither is declared here.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "TaskManager", entity = "employee", rename_all = "camelCase")]
    #[dynorm(
        convention = "electrodb",
        service = "taskmanager",
        entity_version = "1"
    )]
    #[key(pk = [employee], sk = [])]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [office],
        gsi1sk = [team, title, employee],
        collection = "workplaces"
    )]
    #[key(index = "gsi2pk-gsi2sk-index", gsi2pk = [team], gsi2sk = [date_hired, title])]
    #[key(
        index = "gsi3pk-gsi3sk-index",
        gsi3pk = [employee],
        gsi3sk = [],
        collection = "assignments"
    )]
    #[key(index = "gsi4pk-gsi4sk-index", gsi4pk = [title], gsi4sk = [salary])]
    #[key(index = "gsi5pk-gsi5sk-index", gsi5pk = [manager], gsi5sk = [team, office])]
    pub struct Employee {
        pub employee: String,
        pub first_name: String,
        pub last_name: String,
        pub office: String,
        pub title: String,
        pub team: Team,
        pub salary: String,
        pub manager: Option<String>,
        pub date_hired: Option<String>,
        pub birthday: Option<String>,
    }

    /// An office: found by country and state.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "TaskManager", entity = "office", rename_all = "camelCase")]
    #[dynorm(
        convention = "electrodb",
        service = "taskmanager",
        entity_version = "1"
    )]
    #[key(pk = [country, state], sk = [city, zip, office])]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [office],
        gsi1sk = [],
        collection = "workplaces"
    )]
    pub struct Office {
        pub office: String,
        pub country: String,
        pub state: String,
        pub city: String,
        pub zip: String,
        pub address: Option<String>,
    }

    /// A task of a project, assigned to an employee: open unless it says otherwise.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "TaskManager", entity = "task", rename_all = "camelCase")]
    #[dynorm(
        convention = "electrodb",
        service = "taskmanager",
        entity_version = "1"
    )]
    #[key(pk = [task], sk = [project, employee])]
    #[key(index = "gsi1pk-gsi1sk-index", gsi1pk = [project], gsi1sk = [employee, status])]
    #[key(
        index = "gsi3pk-gsi3sk-index",
        gsi3pk = [employee],
        gsi3sk = [project, status],
        collection = "assignments"
    )]
    #[key(index = "gsi4pk-gsi4sk-index", gsi4pk = [status], gsi4sk = [project, employee])]
    pub struct Task {
        pub task: String,
        pub project: String,
        pub employee: String,
        pub description: Option<String>,
        #[dynorm(default = Status::Open)]
        pub status: Option<Status>,
        pub points: i64,
        /// ElectroDB's `any`: whatever value it is given.
        pub comments: Option<serde_json::Value>,
    }

    dynorm::shared_table! {
        /// The task manager's table (`taskmanager`).
        pub struct TaskManager { Employee, Office, Task }
    }

    /// `workplaces`: an office and the employees who work there.
    #[derive(Collection, Debug)]
    #[dynorm(index = "gsi1pk-gsi1sk-index")]
    pub enum Workplaces {
        Employee(Employee),
        Office(Office),
    }

    /// `assignments`: an employee and their tasks.
    #[derive(Collection, Debug)]
    #[dynorm(index = "gsi3pk-gsi3sk-index")]
    pub enum Assignments {
        Employee(Employee),
        Task(Task),
    }
}

pub mod version_control {
    //! ElectroDB's version-control service (`tests/interop/conformance/version_control.js`),
    //! of the service `versioncontrol`: issues and their comments, pull requests and their
    //! comments, repositories, subscriptions and users in one table, with the collections
    //! the examples read (`owned`, `issueReview`, `PRReview`, `subscribers`). ElectroDB's
    //! `createdAt` (set on every put, read-only) is `default = "now"`, which a put writes
    //! as given, and its `updatedAt` (`watch: "*"`) is `updated_at`. The computed and
    //! transformed attributes are those of [`super::tickets`].

    use std::collections::{BTreeMap, BTreeSet};

    use chrono::{DateTime, Utc};
    use dynorm::{Collection, Model};
    use serde::{Deserialize, Serialize};

    use super::tickets::{
        hide_unviewed, issue_ticket, mark_unviewed, ticket_number, to_status, to_status_code,
    };

    /// The stored ticket type and number of a subscription to a whole repository.
    const REPOSITORY_SUBSCRIPTION: &str = "#";

    /// Every pull request is a `PullRequest` ticket, whatever it was given.
    pub fn pull_request_ticket(_: String) -> String {
        "PullRequest".to_owned()
    }

    /// A repository's `username` is its owner's.
    pub fn owner(repo_owner: &str) -> Option<String> {
        Some(repo_owner.to_owned())
    }

    /// A subscription's ticket type or number as stored: `#` for none (a subscription to
    /// the repository).
    pub fn mark_repository(part: String) -> String {
        if part.is_empty() {
            REPOSITORY_SUBSCRIPTION.to_owned()
        } else {
            part
        }
    }

    /// `#` is read as no ticket.
    pub fn hide_repository(part: String) -> String {
        if part == REPOSITORY_SUBSCRIPTION {
            String::new()
        } else {
            part
        }
    }

    /// Declares the enum of ElectroDB's `licenses`, each stored as its name.
    macro_rules! licenses {
        ($($variant:ident = $name:literal),* $(,)?) => {
            /// A repository's license, ElectroDB's enum attribute `license`.
            #[derive(dynorm::Value, Debug, Clone, Copy, PartialEq, Eq)]
            pub enum License {
                $(
                    #[doc = $name]
                    #[dynorm(rename = $name)]
                    $variant,
                )*
            }
        };
    }

    licenses! {
        Afl3 = "afl-3.0",
        Apache2 = "apache-2.0",
        Artistic2 = "artistic-2.0",
        Bsl1 = "bsl-1.0",
        Bsd2Clause = "bsd-2-clause",
        Bsd3Clause = "bsd-3-clause",
        Bsd3ClauseClear = "bsd-3-clause-clear",
        Cc = "cc",
        Cc0 = "cc0-1.0",
        CcBy4 = "cc-by-4.0",
        CcBySa4 = "cc-by-sa-4.0",
        Wtfpl = "wtfpl",
        Ecl2 = "ecl-2.0",
        Epl1 = "epl-1.0",
        Epl2 = "epl-2.0",
        Eupl11 = "eupl-1.1",
        Agpl3 = "agpl-3.0",
        Gpl = "gpl",
        Gpl2 = "gpl-2.0",
        Gpl3 = "gpl-3.0",
        Lgpl = "lgpl",
        Lgpl21 = "lgpl-2.1",
        Lgpl3 = "lgpl-3.0",
        Isc = "isc",
        Lppl13c = "lppl-1.3c",
        MsPl = "ms-pl",
        Mit = "mit",
        Mpl2 = "mpl-2.0",
        Osl3 = "osl-3.0",
        Postgresql = "postgresql",
        Ofl11 = "ofl-1.1",
        Ncsa = "ncsa",
        Unlicense = "unlicense",
        Zlib = "zlib",
    }

    /// An issue of a repository: in its review (`issueReview`), its author's `owned` and
    /// `managed` work, its repository's `activity` and its `subscribers`.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "VersionControlService",
        entity = "issues",
        rename_all = "camelCase"
    )]
    #[dynorm(
        convention = "electrodb",
        service = "versioncontrol",
        entity_version = "1"
    )]
    #[key(
        pk = [repo_owner, repo_name, issue_number],
        sk = [],
        collection = "issueReview"
    )]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [username],
        gsi1sk = [status, created_at],
        collection = ["owned", "managed"]
    )]
    #[key(
        index = "gsi2pk-gsi2sk-index",
        gsi2pk = [repo_owner, repo_name],
        gsi2sk = [status, created_at],
        collection = "activity"
    )]
    #[key(
        index = "gsi4pk-gsi4sk-index",
        gsi4pk = [repo_owner, repo_name, ticket_number],
        gsi4sk = [],
        collection = "subscribers"
    )]
    pub struct Issue {
        pub issue_number: String,
        pub repo_name: String,
        pub repo_owner: String,
        pub username: String,
        #[dynorm(set = issue_ticket, read_only)]
        pub ticket_type: String,
        #[dynorm(watch = [issue_number], set = ticket_number)]
        pub ticket_number: String,
        #[dynorm(default = "Open", set = to_status_code, get = to_status)]
        pub status: String,
        pub subject: Option<String>,
        pub body: Option<String>,
        #[dynorm(default = "now", read_only)]
        pub created_at: DateTime<Utc>,
        #[dynorm(updated_at)]
        pub updated_at: Option<DateTime<Utc>>,
    }

    /// A comment on an issue: in the issue's review, its author's `conversations`, and
    /// the `inbox` of whom it replies to, by when it was updated and whether the reply was
    /// viewed (`#` until it is).
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "VersionControlService",
        entity = "issueComment",
        rename_all = "camelCase"
    )]
    #[dynorm(
        convention = "electrodb",
        service = "versioncontrol",
        entity_version = "1"
    )]
    #[key(
        pk = [repo_owner, repo_name, issue_number],
        sk = [comment_id],
        collection = "issueReview"
    )]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [username],
        gsi1sk = [repo_owner, repo_name, issue_number],
        collection = "conversations"
    )]
    #[key(
        index = "gsi2pk-gsi2sk-index",
        gsi2pk = [reply_to],
        gsi2sk = [updated_at, reply_viewed],
        collection = "inbox"
    )]
    pub struct IssueComment {
        pub issue_number: String,
        pub comment_id: String,
        pub username: String,
        pub reply_to: String,
        #[dynorm(set = mark_unviewed, get = hide_unviewed)]
        pub reply_viewed: Option<String>,
        pub repo_name: String,
        pub repo_owner: String,
        pub body: Option<String>,
        #[dynorm(default = "now", read_only)]
        pub created_at: DateTime<Utc>,
        #[dynorm(updated_at)]
        pub updated_at: Option<DateTime<Utc>>,
    }

    /// A reviewer's verdict on a pull request (ElectroDB's `PullRequestReviewer`).
    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Reviewer {
        pub approved: bool,
        pub updated_at: String,
    }

    /// A pull request: in its review (`PRReview`), its author's `owned` and `managed`
    /// work, its repository's `activity` and its `subscribers`.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "VersionControlService",
        entity = "pullRequest",
        rename_all = "camelCase"
    )]
    #[dynorm(
        convention = "electrodb",
        service = "versioncontrol",
        entity_version = "1"
    )]
    #[key(
        pk = [repo_owner, repo_name, pull_request_number],
        sk = [],
        collection = "PRReview"
    )]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [username],
        gsi1sk = [status, created_at],
        collection = ["owned", "managed"]
    )]
    #[key(
        index = "gsi2pk-gsi2sk-index",
        gsi2pk = [repo_owner, repo_name],
        gsi2sk = [status, created_at],
        collection = "activity"
    )]
    #[key(
        index = "gsi4pk-gsi4sk-index",
        gsi4pk = [repo_owner, repo_name, ticket_number],
        gsi4sk = [],
        collection = "subscribers"
    )]
    pub struct PullRequest {
        pub pull_request_number: String,
        pub repo_name: String,
        pub repo_owner: String,
        pub username: String,
        #[dynorm(set = pull_request_ticket, read_only)]
        pub ticket_type: String,
        #[dynorm(watch = [pull_request_number], set = ticket_number)]
        pub ticket_number: String,
        #[dynorm(default = "Open", set = to_status_code, get = to_status)]
        pub status: String,
        /// ElectroDB's `PullRequestReviews`: each reviewer's verdict, by name.
        pub reviewers: Option<BTreeMap<String, Reviewer>>,
        #[dynorm(default = "now", read_only)]
        pub created_at: DateTime<Utc>,
        #[dynorm(updated_at)]
        pub updated_at: Option<DateTime<Utc>>,
    }

    /// A comment on a pull request: in the pull request's review, its author's
    /// `conversations` and the `inbox` of whom it replies to.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "VersionControlService",
        entity = "pullRequestComment",
        rename_all = "camelCase"
    )]
    #[dynorm(
        convention = "electrodb",
        service = "versioncontrol",
        entity_version = "1"
    )]
    #[key(
        pk = [repo_owner, repo_name, pull_request_number],
        sk = [comment_id],
        collection = "PRReview"
    )]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [username],
        gsi1sk = [repo_owner, repo_name],
        collection = "conversations"
    )]
    #[key(
        index = "gsi2pk-gsi2sk-index",
        gsi2pk = [reply_to],
        gsi2sk = [updated_at, reply_viewed],
        collection = "inbox"
    )]
    pub struct PullRequestComment {
        pub repo_name: String,
        pub username: String,
        pub repo_owner: String,
        pub pull_request_number: String,
        pub comment_id: String,
        pub reply_to: String,
        #[dynorm(set = mark_unviewed, get = hide_unviewed)]
        pub reply_viewed: Option<String>,
        #[dynorm(default = "now", read_only)]
        pub created_at: DateTime<Utc>,
        #[dynorm(updated_at)]
        pub updated_at: Option<DateTime<Utc>>,
    }

    /// A repository: among its owner's `alerts`, and in their `owned` work by whether it
    /// is private. `username` follows `repo_owner`.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "VersionControlService",
        entity = "repositories",
        rename_all = "camelCase"
    )]
    #[dynorm(
        convention = "electrodb",
        service = "versioncontrol",
        entity_version = "1"
    )]
    #[key(pk = [repo_owner], sk = [repo_name], collection = "alerts")]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [username],
        gsi1sk = [is_private, created_at],
        collection = "owned"
    )]
    pub struct Repository {
        pub repo_name: String,
        pub repo_owner: String,
        pub about: Option<String>,
        #[dynorm(watch = [repo_owner], set = owner)]
        pub username: Option<String>,
        pub description: Option<String>,
        pub is_private: Option<bool>,
        pub license: Option<License>,
        #[dynorm(default = "main")]
        pub default_branch: Option<String>,
        pub topics: Option<BTreeSet<String>>,
        pub followers: Option<BTreeSet<String>>,
        pub stars: Option<BTreeSet<String>>,
        #[dynorm(default = "now", read_only)]
        pub created_at: DateTime<Utc>,
        #[dynorm(updated_at)]
        pub updated_at: Option<DateTime<Utc>>,
    }

    /// A user's subscription to a repository (ticket type and number empty, stored as
    /// `#`) or to one of its issues or pull requests: what the user is `watching`, and
    /// among a ticket's `subscribers`.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "VersionControlService",
        entity = "subscription",
        rename_all = "camelCase"
    )]
    #[dynorm(
        convention = "electrodb",
        service = "versioncontrol",
        entity_version = "1"
    )]
    #[key(pk = [repo_owner, repo_name], sk = [username, ticket_type, ticket_number])]
    #[key(
        index = "gsi3pk-gsi3sk-index",
        gsi3pk = [username],
        gsi3sk = [ticket_type, ticket_number],
        collection = "watching"
    )]
    #[key(
        index = "gsi4pk-gsi4sk-index",
        gsi4pk = [repo_owner, repo_name, ticket_number],
        gsi4sk = [ticket_type, username],
        collection = "subscribers"
    )]
    pub struct Subscription {
        pub repo_name: String,
        pub repo_owner: String,
        pub username: String,
        #[dynorm(set = mark_repository, get = hide_repository)]
        pub ticket_number: String,
        #[dynorm(set = mark_repository, get = hide_repository)]
        pub ticket_type: String,
        #[dynorm(default = "now", read_only)]
        pub created_at: DateTime<Utc>,
        #[dynorm(updated_at)]
        pub updated_at: Option<DateTime<Utc>>,
    }

    /// A user: their `overview`, in their `owned` work and what they are `watching`.
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(
        table = "VersionControlService",
        entity = "user",
        rename_all = "camelCase"
    )]
    #[dynorm(
        convention = "electrodb",
        service = "versioncontrol",
        entity_version = "1"
    )]
    #[key(pk = [username], sk = [], collection = "overview")]
    #[key(
        index = "gsi1pk-gsi1sk-index",
        gsi1pk = [username],
        gsi1sk = [],
        collection = "owned"
    )]
    #[key(
        index = "gsi3pk-gsi3sk-index",
        gsi3pk = [username],
        gsi3sk = [],
        collection = "watching"
    )]
    pub struct User {
        pub username: String,
        pub full_name: Option<String>,
        pub photo: Option<String>,
        pub bio: Option<String>,
        pub location: Option<String>,
        /// ElectroDB's `any`: whatever value it is given.
        pub pinned: Option<serde_json::Value>,
        pub following: Option<BTreeSet<String>>,
        pub followers: Option<BTreeSet<String>>,
        #[dynorm(default = "now", read_only)]
        pub created_at: DateTime<Utc>,
        #[dynorm(updated_at)]
        pub updated_at: Option<DateTime<Utc>>,
    }

    dynorm::shared_table! {
        /// The version-control service's table.
        pub struct VersionControlService {
            Issue, IssueComment, PullRequest, PullRequestComment, Repository, Subscription, User
        }
    }

    /// `owned`: everything a user owns, their issues and pull requests (`managed` within
    /// it), their repositories and their user.
    #[derive(Collection, Debug)]
    #[dynorm(index = "gsi1pk-gsi1sk-index")]
    pub enum Owned {
        Issue(Issue),
        PullRequest(PullRequest),
        Repository(Repository),
        User(User),
    }

    /// `issueReview`: an issue and its comments.
    #[derive(Collection, Debug)]
    pub enum IssueReview {
        Issue(Issue),
        IssueComment(IssueComment),
    }

    /// `PRReview`: a pull request and its comments.
    #[derive(Collection, Debug)]
    pub enum PrReview {
        PullRequest(PullRequest),
        PullRequestComment(PullRequestComment),
    }

    /// `subscribers`: a ticket (or, with no ticket number, a repository) and the users
    /// subscribed to it. The partition key is built as the first entity's,
    /// `Subscription`'s, is, so no ticket number (`""`) is its `#`.
    #[derive(Collection, Debug)]
    #[dynorm(index = "gsi4pk-gsi4sk-index")]
    pub enum Subscribers {
        Subscription(Subscription),
        Issue(Issue),
        PullRequest(PullRequest),
    }
}
