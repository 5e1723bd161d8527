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
