//! Single-table design against a real server: the ElectroDB page's Team, User and
//! Membership, access patterns AP1 to AP5 with their request counts, the entity
//! discriminator, ambiguous keys, collections and attribute behaviours.

mod common;

use chrono::{DateTime, Utc};
use dynorm::schema::SharedTable;
use dynorm::types::AttributeValue;
use dynorm::Request;
use dynorm::{Collection, ErrorKind, Model};
use serde::{Deserialize, Serialize};

use common::Requests;

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Role {
    Owner,
    Admin,
    Member,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TeamsApp", entity = "team", rename_all = "camelCase")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
    name: String,
    #[dynorm(default = "now", read_only)]
    created_at: Option<DateTime<Utc>>,
    #[dynorm(updated_at)]
    updated_at: Option<DateTime<Utc>>,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TeamsApp", entity = "user", rename_all = "camelCase")]
#[key(pk = "USER#{user_id}", sk = "#METADATA")]
struct User {
    user_id: String,
    name: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TeamsApp", entity = "membership", rename_all = "camelCase")]
#[key(pk = "TEAM#{team_id}", sk = "MEMBER#{user_id}")]
#[key(index = "GSI1", gsi1pk = "USER#{user_id}", gsi1sk = "TEAM#{team_id}")]
struct Membership {
    team_id: String,
    user_id: String,
    role: Role,
}

/// An entity in the teams' partitions that the collection below does not list.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TeamsApp", entity = "invite", rename_all = "camelCase")]
#[key(pk = "TEAM#{team_id}", sk = "INVITE#{email}")]
struct Invite {
    team_id: String,
    email: String,
}

dynorm::shared_table!(struct TeamsApp { Team, User, Membership, Invite });

#[derive(Collection, Debug)]
enum TeamWithMembers {
    Team(Team),
    Member(Membership),
}

fn team(id: &str, name: &str) -> Team {
    Team {
        team_id: id.into(),
        name: name.into(),
        created_at: None,
        updated_at: None,
    }
}

fn member(team_id: &str, user_id: &str, role: Role) -> Membership {
    Membership {
        team_id: team_id.into(),
        user_id: user_id.into(),
        role,
    }
}

/// The seed's sample data in a new table.
async fn sample(label: &str) -> dynorm::Client {
    let db = common::db(label).await;
    db.tables()
        .create_shared::<TeamsApp>()
        .send()
        .await
        .unwrap();
    db.create(&team("t_eng", "Engineering"))
        .send()
        .await
        .unwrap();
    db.create(&team("t_design", "Design")).send().await.unwrap();
    for (id, name) in [("u_alice", "Alice Chen"), ("u_bob", "Bob Park")] {
        db.create(&User {
            user_id: id.into(),
            name: name.into(),
        })
        .send()
        .await
        .unwrap();
    }
    db.create(&member("t_eng", "u_alice", Role::Owner))
        .send()
        .await
        .unwrap();
    db.create(&member("t_eng", "u_bob", Role::Member))
        .send()
        .await
        .unwrap();
    db.create(&member("t_design", "u_alice", Role::Admin))
        .send()
        .await
        .unwrap();
    db
}

fn text(item: &dynorm::Item, name: &str) -> Option<String> {
    match item.get(name) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    }
}

#[tokio::test]
async fn the_physical_items_match_the_sample_data() {
    let db = sample("st_items").await;
    let output = db
        .sdk()
        .scan()
        .table_name(db.tables().name::<Team>())
        .send()
        .await
        .unwrap();
    let mut rows: Vec<[Option<String>; 4]> = output
        .items
        .unwrap_or_default()
        .iter()
        .map(|i| {
            [
                text(i, "pk"),
                text(i, "sk"),
                text(i, "gsi1pk"),
                text(i, "gsi1sk"),
            ]
        })
        .collect();
    rows.sort();
    let s = |v: &str| Some(v.to_owned());
    let mut expected = vec![
        [s("TEAM#t_eng"), s("#METADATA"), None, None],
        [s("TEAM#t_design"), s("#METADATA"), None, None],
        [s("USER#u_alice"), s("#METADATA"), None, None],
        [s("USER#u_bob"), s("#METADATA"), None, None],
        [
            s("TEAM#t_eng"),
            s("MEMBER#u_alice"),
            s("USER#u_alice"),
            s("TEAM#t_eng"),
        ],
        [
            s("TEAM#t_eng"),
            s("MEMBER#u_bob"),
            s("USER#u_bob"),
            s("TEAM#t_eng"),
        ],
        [
            s("TEAM#t_design"),
            s("MEMBER#u_alice"),
            s("USER#u_alice"),
            s("TEAM#t_design"),
        ],
    ];
    expected.sort();
    assert_eq!(rows, expected);
    // The template fields are stored as ordinary attributes too, as given: no case folding.
    let raw = db
        .sdk()
        .get_item()
        .table_name(db.tables().name::<Team>())
        .key("pk", AttributeValue::S("TEAM#t_eng".into()))
        .key("sk", AttributeValue::S("MEMBER#u_bob".into()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(text(&raw, "teamId").as_deref(), Some("t_eng"));
    assert_eq!(text(&raw, "role").as_deref(), Some("member"));
    assert_eq!(text(&raw, "__entity").as_deref(), Some("membership"));
}

#[tokio::test]
async fn the_access_patterns_take_one_request_each() {
    let db = sample("st_access").await;
    let requests = Requests::new();
    let db = requests.client(&db);

    // AP1: Query(pk = TEAM#t_eng, sk begins_with MEMBER#).
    let members = db.query_by::<Membership>("t_eng").all().await.unwrap();
    let ids: Vec<_> = members
        .iter()
        .map(|m| (m.user_id.as_str(), m.role))
        .collect();
    assert_eq!(ids, [("u_alice", Role::Owner), ("u_bob", Role::Member)]);
    assert_eq!(requests.take_all(), 1);
    let plan = db.query_by::<Membership>("t_eng").plan().unwrap();
    assert_eq!(
        plan.readable(&plan.key_condition),
        "pk = \"TEAM#t_eng\" AND begins_with(sk, \"MEMBER#\")"
    );

    // AP2: Query(GSI1, gsi1pk = USER#u_alice).
    let teams = db
        .query_by::<MembershipGSI1>("u_alice")
        .all()
        .await
        .unwrap();
    let mut team_ids: Vec<_> = teams.iter().map(|m| (m.team_id.as_str(), m.role)).collect();
    team_ids.sort_by_key(|t| t.0);
    assert_eq!(
        team_ids,
        [("t_design", Role::Admin), ("t_eng", Role::Owner)]
    );
    assert_eq!(requests.take_all(), 1);

    // AP3: GetItem(pk = TEAM#t_eng, sk = MEMBER#u_alice), a hit and a miss.
    let key = |user: &str| MembershipKey {
        team_id: "t_eng".into(),
        user_id: user.into(),
    };
    assert_eq!(
        db.get::<Membership>(key("u_alice"))
            .send()
            .await
            .unwrap()
            .map(|m| m.role),
        Some(Role::Owner)
    );
    assert_eq!(
        db.get::<Membership>(key("u_carol")).send().await.unwrap(),
        None
    );
    assert_eq!(requests.take("GetItem"), 2);

    // AP4: the team and its members, in one query.
    let tally = dynorm::observe::Tally::default();
    let dashboard = db
        .collection::<TeamWithMembers>("t_eng")
        .tally(&tally)
        .all()
        .await
        .unwrap();
    assert_eq!(requests.take_all(), 1, "AP4 is one request");
    assert_eq!(dashboard.len(), 3);
    assert!(matches!(&dashboard[0], TeamWithMembers::Team(t) if t.name == "Engineering"));
    let members: Vec<_> = dashboard
        .iter()
        .filter_map(|i| match i {
            TeamWithMembers::Member(m) => Some(m.user_id.as_str()),
            TeamWithMembers::Team(_) => None,
        })
        .collect();
    assert_eq!(members, ["u_alice", "u_bob"]);
    assert_eq!(tally.skipped(), 0);

    // AP5: DeleteItem(pk = TEAM#t_eng, sk = MEMBER#u_bob).
    db.delete::<Membership>(key("u_bob"))
        .require_exists(true)
        .send()
        .await
        .unwrap();
    assert_eq!(requests.take("DeleteItem"), 1);
    assert_eq!(
        db.query_by::<Membership>("t_eng")
            .all()
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(
        db.query_by::<MembershipGSI1>("u_bob")
            .all()
            .await
            .unwrap()
            .is_empty(),
        "the GSI row is gone too"
    );
}

#[tokio::test]
async fn a_collection_skips_and_counts_entities_it_does_not_list() {
    let db = sample("st_collection").await;
    db.create(&Invite {
        team_id: "t_eng".into(),
        email: "carol@example.com".into(),
    })
    .send()
    .await
    .unwrap();
    let tally = dynorm::observe::Tally::default();
    let dashboard = db
        .collection::<TeamWithMembers>("t_eng")
        .tally(&tally)
        .all()
        .await
        .unwrap();
    assert_eq!((dashboard.len(), tally.skipped()), (3, 1));
    // Queries and scans of one entity see only that entity.
    assert_eq!(db.query_by::<Invite>("t_eng").all().await.unwrap().len(), 1);
    assert_eq!(db.scan::<Team>().count().await.unwrap(), 2);
    assert_eq!(db.scan::<Membership>().count().await.unwrap(), 3);
}

#[tokio::test]
async fn batches_across_entities_of_one_table_keep_them_apart() {
    let db = common::db("st_batches").await;
    db.tables()
        .create_shared::<TeamsApp>()
        .send()
        .await
        .unwrap();
    let teams = [team("t_eng", "Engineering"), team("t_design", "Design")];
    let alice = User {
        user_id: "u_alice".into(),
        name: "Alice Chen".into(),
    };
    let bob = member("t_eng", "u_bob", Role::Member);
    let written = db
        .batch_write()
        .put_many(&teams)
        .put(&alice)
        .put(&bob)
        .send()
        .await
        .unwrap();
    assert_eq!(written, 4);

    let found = db
        .batch_get()
        .get_many::<Team, _>(["t_eng", "t_design"])
        .get::<User>("u_alice")
        .get::<Membership>(MembershipKey {
            team_id: "t_eng".into(),
            user_id: "u_bob".into(),
        })
        .send()
        .await
        .unwrap();
    let mut names: Vec<String> = found
        .items::<Team>()
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    names.sort();
    assert_eq!(names, ["Design", "Engineering"]);
    assert_eq!(found.items::<User>().unwrap(), [alice]);
    assert_eq!(found.items::<Membership>().unwrap(), [bob]);
    assert!(found.items::<Invite>().unwrap().is_empty(), "not read");
}

#[tokio::test]
async fn the_discriminator_refuses_another_entitys_item() {
    let db = sample("st_discriminator").await;
    // An item at a team's key that says it is a user.
    let mut item = team("t_fake", "Fake").to_item().unwrap();
    item.insert("__entity".into(), AttributeValue::S("user".into()));
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Team>())
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
    let error = db.get::<Team>("t_fake").send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conversion);
    assert_eq!(error.attribute(), Some("__entity"));
    assert!(
        error.to_string().contains("is a `user`, not a `team`"),
        "{error}"
    );
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Orgs", entity = "project")]
#[key(pk = "ORG#{org}#PROJECT#{project}")]
struct Project {
    org: String,
    project: String,
    #[dynorm(default = "uuid_v7")]
    token: String,
}

#[tokio::test]
async fn ambiguous_keys_are_refused_and_generated_values_returned() {
    let db = common::db("st_ambiguous").await;
    db.tables().create::<Project>().send().await.unwrap();
    let mut project = Project {
        org: "acme".into(),
        project: "a#b".into(),
        token: String::new(),
    };
    // The last field may hold the separator: nothing follows it.
    let stored = db.create(&project).send_returning_new().await.unwrap();
    assert_eq!(
        stored.token.len(),
        36,
        "a UUID v7 was generated: {}",
        stored.token
    );
    assert_eq!(
        ProjectKey {
            org: "acme".into(),
            project: "a#b".into()
        }
        .to_key_item_for_test(),
        "ORG#acme#PROJECT#a#b"
    );
    // A field followed by `#` may not contain `#`.
    project.org = "ac#me".into();
    let error = db.create(&project).send().await.unwrap_err();
    assert_eq!(
        (error.kind(), error.attribute()),
        (ErrorKind::Validation, Some("org"))
    );
    assert!(error.to_string().contains("ambiguous"), "{error}");
}

/// The rendered partition key of a key, for the test above.
trait RenderedKey {
    fn to_key_item_for_test(&self) -> String;
}

impl RenderedKey for ProjectKey {
    fn to_key_item_for_test(&self) -> String {
        use dynorm::schema::ModelKey;
        match self.to_key_item().unwrap().remove("pk") {
            Some(AttributeValue::S(s)) => s,
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn created_at_is_set_once_and_updated_at_on_every_write() {
    let db = sample("st_behaviours").await;
    let created = db
        .get::<Team>("t_eng")
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    let (created_at, first_update) = (created.created_at.unwrap(), created.updated_at.unwrap());
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let renamed = db
        .update::<Team>("t_eng")
        .set(Team::NAME, "Platform")
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!(
        renamed.created_at,
        Some(created_at),
        "read-only and untouched"
    );
    assert!(renamed.updated_at.unwrap() > first_update);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    db.put(&renamed).send().await.unwrap();
    let put = db
        .get::<Team>("t_eng")
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert!(put.updated_at.unwrap() > renamed.updated_at.unwrap());
    assert_eq!(put.created_at, Some(created_at));
}

#[test]
fn the_shared_table_has_one_create_table_input() {
    let input = TeamsApp::create_table_input();
    assert_eq!(input.table_name(), Some("TeamsApp"));
    let definitions: Vec<_> = input
        .attribute_definitions()
        .iter()
        .map(|d| d.attribute_name().to_owned())
        .collect();
    assert_eq!(definitions, ["pk", "sk", "gsi1pk", "gsi1sk"]);
    let globals = input.global_secondary_indexes();
    assert_eq!(globals.len(), 1);
    assert_eq!(globals[0].index_name(), "GSI1");
    assert_eq!(globals[0].key_schema()[0].attribute_name(), "gsi1pk");
    assert!(TeamsApp::create_table_json().contains("\"GSI1\""));
    // A Team alone knows nothing of GSI1.
    assert!(Team::create_table_input()
        .global_secondary_indexes()
        .is_empty());
}

/// Mizzle's post: its id is a UUID v7 generated on create, and part of the sort key.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Blog", entity = "post", rename_all = "camelCase")]
#[key(pk = "USER#{author_id}", sk = "POST#{id}")]
struct Post {
    #[dynorm(default = "uuid_v7")]
    id: String,
    author_id: String,
    title: String,
}

#[tokio::test]
async fn a_generated_id_can_be_part_of_the_key() {
    let db = common::db("st_generated_key").await;
    db.tables().create::<Post>().send().await.unwrap();
    let draft = Post {
        id: String::new(),
        author_id: "u1".into(),
        title: "Understanding NoSQL Joins".into(),
    };
    let first = db.create(&draft).send_returning_new().await.unwrap();
    let second = db.create(&draft).send_returning_new().await.unwrap();
    assert_eq!(first.id.len(), 36);
    assert!(first.id < second.id, "v7 ids sort by creation time");
    let key = PostKey {
        author_id: "u1".into(),
        id: first.id.clone(),
    };
    assert_eq!(db.get::<Post>(key).send().await.unwrap(), Some(first));
    assert_eq!(db.query_by::<Post>("u1").all().await.unwrap().len(), 2);
    // Only `create` generates: a put without the id is refused, naming it.
    let error = db.put(&draft).send().await.unwrap_err();
    assert_eq!(
        (error.kind(), error.attribute()),
        (ErrorKind::Validation, Some("id"))
    );
}
