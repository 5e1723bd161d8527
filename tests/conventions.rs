//! Items that dynorm writes under ElectroDB's and DynamoDB-Toolbox's conventions are
//! byte-identical to those the libraries write (`tests/interop/fixtures.json`, made by
//! `tests/interop/fixtures.js` with the real packages), and dynorm reads the libraries'
//! items as the libraries do. Then every write path writes the identity and every read path
//! checks it, on the test server. No node needed.

mod common;
#[path = "interop_models/mod.rs"]
mod interop_models;

use dynorm::Request;
use std::collections::{BTreeSet, HashMap};

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Utc};
use dynorm::{ErrorKind, Item, Model};
use interop_models::{defaults, tasks, templates, toolbox};

/// Attributes the libraries set to the time of writing; the fixtures hold `"<now>"`.
const NOW: [&str; 3] = ["updatedAt", "_ct", "_md"];

/// The fixture items, by name.
fn fixtures() -> HashMap<String, Item> {
    let text = include_str!("interop/fixtures.json");
    let json: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(text).expect("fixtures.json is JSON");
    json.into_iter()
        .map(|(name, item)| (name, interop_models::dynamodb_json::from_item(&item)))
        .collect()
}

/// The item with its time-of-writing attributes replaced by `"<now>"`, after checking
/// they are JavaScript's `toISOString()` text.
fn normalized(mut item: Item) -> Item {
    for name in NOW {
        if let Some(AttributeValue::S(text)) = item.get(name) {
            if text != "<now>" {
                let parsed = DateTime::parse_from_rfc3339(text);
                assert!(
                    parsed.is_ok() && text.len() == 24 && text.ends_with('Z'),
                    "`{name}` is {text:?}, not toISOString() text"
                );
            }
            item.insert(name.to_owned(), AttributeValue::S("<now>".into()));
        }
    }
    item
}

fn at() -> DateTime<Utc> {
    "2026-12-01T03:41:50.258Z".parse().unwrap()
}

/// What dynorm writes for a model, as a whole item, with its generated times.
fn written<M: Model>(model: &M) -> Item {
    normalized(model.to_item().expect("the model converts"))
}

fn team() -> templates::Team {
    templates::Team {
        team_id: "t_eng".into(),
        name: "Engineering".into(),
        created_at: Some(at()),
        updated_at: Some(Utc::now()),
    }
}

fn membership() -> templates::Membership {
    templates::Membership {
        team_id: "t_eng".into(),
        user_id: "u_alice".into(),
        role: templates::Role::Owner,
        joined_at: Some(at()),
    }
}

fn default_membership() -> defaults::Membership {
    defaults::Membership {
        team_id: "T_Eng".into(),
        user_id: "U_Alice".into(),
        role: defaults::Role::Owner,
        seats: Some(3),
    }
}

fn pikachu() -> toolbox::Pokemon {
    toolbox::Pokemon {
        pokemon_id: "pikachu".into(),
        name: "Pikachu".into(),
        level: 12,
        types: Some(BTreeSet::from(["electric".to_owned()])),
    }
}

#[test]
fn electrodb_custom_templates_match_the_library() {
    let fixtures = fixtures();
    assert_eq!(written(&team()), fixtures["templates_team"]);
    let user = templates::User {
        user_id: "u_alice".into(),
        name: "Alice Chen".into(),
        email: "alice@example.com".into(),
    };
    assert_eq!(written(&user), fixtures["templates_user"]);
    assert_eq!(written(&membership()), fixtures["templates_membership"]);
}

#[test]
fn electrodb_default_keys_match_the_library() {
    let fixtures = fixtures();
    let team = defaults::Team {
        team_id: "T_Eng".into(),
        name: "Engineering".into(),
    };
    assert_eq!(written(&team), fixtures["defaults_team"]);
    assert_eq!(
        written(&default_membership()),
        fixtures["defaults_membership"]
    );
    let bob = defaults::Membership {
        team_id: "t_design".into(),
        user_id: "u_bob".into(),
        role: defaults::Role::Member,
        seats: None,
    };
    assert_eq!(written(&bob), fixtures["defaults_membership_no_seats"]);
}

#[test]
fn toolbox_items_match_the_library() {
    assert_eq!(written(&pikachu()), fixtures()["toolbox_pokemon"]);
}

#[test]
fn the_libraries_items_read_back_as_models() {
    let fixtures = fixtures();
    let read = templates::Membership::from_item(fixtures["templates_membership"].clone()).unwrap();
    assert_eq!(read, membership());
    let read = defaults::Membership::from_item(fixtures["defaults_membership"].clone()).unwrap();
    assert_eq!(read, default_membership());
    let read = toolbox::Pokemon::from_item(fixtures["toolbox_pokemon"].clone()).unwrap();
    assert_eq!(read, pikachu());
}

#[test]
fn electrodb_items_of_another_version_or_entity_are_refused() {
    let mut item = fixtures()["templates_membership"].clone();
    item.insert("__edb_v__".into(), AttributeValue::S("2".into()));
    let error = templates::Membership::from_item(item.clone()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conversion);
    assert_eq!(error.attribute(), Some("__edb_v__"));
    assert!(error.to_string().contains("version \"2\""), "{error}");

    item.remove("__edb_v__");
    let error = templates::Membership::from_item(item.clone()).unwrap_err();
    assert_eq!(error.attribute(), Some("__edb_v__"), "{error}");

    let mut item = fixtures()["templates_membership"].clone();
    item.insert("__edb_e__".into(), AttributeValue::S("team".into()));
    let error = templates::Membership::from_item(item).unwrap_err();
    assert_eq!(error.attribute(), Some("__edb_e__"), "{error}");
}

#[test]
fn toolbox_reads_items_without_an_entity_name_but_not_another_entitys() {
    let mut item = fixtures()["toolbox_pokemon"].clone();
    item.remove("_et");
    assert_eq!(
        toolbox::Pokemon::from_item(item.clone()).unwrap(),
        pikachu()
    );
    item.insert("_et".into(), AttributeValue::S("TRAINER".into()));
    let error = toolbox::Pokemon::from_item(item).unwrap_err();
    assert_eq!(error.attribute(), Some("_et"), "{error}");
}

#[test]
fn default_keys_lowercase_values_and_text() {
    let schema = &defaults::Membership::SCHEMA;
    let entity = schema.entity.expect("a single-table model");
    let range = entity
        .keys
        .iter()
        .find(|k| k.index.is_none() && !k.is_hash)
        .unwrap();
    // ElectroDB's begins_with for `query.primary({ teamId })`.
    assert_eq!(
        range.static_prefix(),
        "$teamwithmembers#membership_1#userid_"
    );
}

/// The stored item, read raw.
async fn raw<M: Model>(db: &dynorm::Client, key: Item) -> Item {
    db.sdk()
        .get_item()
        .table_name(db.tables().name::<M>())
        .set_key(Some(key))
        .send()
        .await
        .unwrap()
        .item
        .expect("the item is stored")
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn membership_key(team: &str, user: &str) -> Item {
    Item::from([
        ("pk".to_owned(), s(&format!("TEAM#{team}"))),
        ("sk".to_owned(), s(&format!("MEMBER#{user}"))),
    ])
}

/// ElectroDB's identity on a stored item: name and version, and nothing of dynorm's own.
fn assert_electrodb_identity(item: &Item, entity: &str, path: &str) {
    assert_eq!(item.get("__edb_e__"), Some(&s(entity)), "{path}");
    assert_eq!(item.get("__edb_v__"), Some(&s("1")), "{path}");
    assert!(!item.contains_key("__entity"), "{path}");
}

#[tokio::test]
async fn every_write_path_writes_electrodbs_identity() {
    use templates::{Membership, MembershipKey, Role};

    let db = common::db("conv_edb_paths").await;
    db.tables()
        .create_shared::<templates::TeamsTemplates>()
        .send()
        .await
        .unwrap();
    let member = |user: &str| Membership {
        team_id: "t1".into(),
        user_id: user.into(),
        role: Role::Member,
        joined_at: None,
    };
    db.create(&member("create")).send().await.unwrap();
    db.put(&member("put")).send().await.unwrap();
    db.batch_write().put(&member("batch")).send().await.unwrap();
    db.transact_write()
        .write(db.put(&member("transaction")))
        .send()
        .await
        .unwrap();
    let key = |user: &str| MembershipKey {
        team_id: "t1".into(),
        user_id: user.into(),
    };
    db.update::<Membership>(key("upsert"))
        .set(Membership::ROLE, Role::Admin)
        .upsert()
        .send()
        .await
        .unwrap();
    db.update::<Membership>(key("put"))
        .set(Membership::ROLE, Role::Owner)
        .send()
        .await
        .unwrap();
    for path in ["create", "put", "batch", "transaction", "upsert"] {
        let item = raw::<Membership>(&db, membership_key("t1", path)).await;
        assert_electrodb_identity(&item, "membership", path);
        assert_eq!(
            item.get("gsi1pk"),
            Some(&s(&format!("USER#{path}"))),
            "{path}"
        );
    }

    // Every read path takes them, and an item of another version is not the model's.
    let mut foreign = raw::<Membership>(&db, membership_key("t1", "put")).await;
    foreign.insert("sk".into(), s("MEMBER#v2"));
    foreign.insert("userId".into(), s("v2"));
    foreign.insert("gsi1pk".into(), s("USER#v2"));
    foreign.insert("__edb_v__".into(), s("2"));
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Membership>())
        .set_item(Some(foreign))
        .send()
        .await
        .unwrap();
    let members = db.query_by::<Membership>("t1").all().await.unwrap();
    assert_eq!(members.len(), 5, "the version 2 item is not a Membership");
    let tally = dynorm::observe::Tally::default();
    let page = db
        .collection::<templates::TeamWithMembers>("t1")
        .tally(&tally)
        .all()
        .await
        .unwrap();
    assert_eq!((page.len(), tally.skipped()), (5, 1));
    let error = db.get::<Membership>(key("v2")).send().await.unwrap_err();
    assert_eq!(error.attribute(), Some("__edb_v__"), "{error}");
    let found = db
        .batch_get()
        .get::<Membership>(key("v2"))
        .get::<Membership>(key("batch"))
        .send()
        .await
        .unwrap()
        .items::<Membership>()
        .unwrap();
    assert_eq!(found.len(), 1, "a batch get leaves the other version out");
    let scanned = db.scan::<Membership>().all().await.unwrap();
    assert_eq!(scanned.len(), 5);
}

/// A client with the default-keys table created.
async fn defaults_db(label: &str) -> dynorm::Client {
    let db = common::db(label).await;
    db.tables()
        .create_shared::<defaults::TeamsDefaults>()
        .send()
        .await
        .unwrap();
    db
}

/// A member whose key values have capitals, which default keys fold.
fn team_a_owner(seats: Option<u32>) -> defaults::Membership {
    defaults::Membership {
        team_id: "Team_A".into(),
        user_id: "User_B".into(),
        role: defaults::Role::Owner,
        seats,
    }
}

#[tokio::test]
async fn default_keys_are_lowercased_on_every_path_and_found_by_any_case() {
    use defaults::{Membership, MembershipKey, Role};

    let db = defaults_db("conv_edb_case").await;
    let member = team_a_owner(Some(2));
    db.create(&member).send().await.unwrap();
    let key = MembershipKey {
        team_id: "Team_A".into(),
        user_id: "User_B".into(),
    };
    let found = db
        .get::<Membership>(key.clone())
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!(found, member, "the values keep their case; the keys do not");
    // An update that changes a source of the GSI's sort key rebuilds it, folded.
    db.update::<Membership>(key)
        .set(Membership::ROLE, Role::Admin)
        .send()
        .await
        .unwrap();
    let item = raw::<Membership>(
        &db,
        Item::from([
            ("pk".to_owned(), s("$app#teamid_team_a")),
            (
                "sk".to_owned(),
                s("$teamwithmembers#membership_1#userid_user_b"),
            ),
        ]),
    )
    .await;
    assert_eq!(
        item.get("gsi1sk"),
        Some(&s("$membership_1#teamid_team_a#role_admin"))
    );
    let by_user = db
        .query_by::<defaults::MembershipGSI1>("USER_b")
        .all()
        .await
        .unwrap();
    assert_eq!(
        by_user.len(),
        1,
        "the query's key is folded as the stored one"
    );
}

#[tokio::test]
async fn toolbox_writes_its_timestamps_and_an_update_keeps_the_creation_time() {
    use toolbox::Pokemon;

    let db = common::db_with::<Pokemon>("conv_toolbox").await;
    db.create(&pikachu()).send().await.unwrap();
    let key = || {
        Item::from([
            ("pk".to_owned(), s("POKEMON#pikachu")),
            ("sk".to_owned(), s("INFO")),
        ])
    };
    let created = raw::<Pokemon>(&db, key()).await;
    assert_eq!(created.get("_et"), Some(&s("POKEMON")));
    assert_eq!(created.get("_ct"), created.get("_md"));
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    db.update::<Pokemon>("pikachu")
        .set(Pokemon::LEVEL, 13u32)
        .send()
        .await
        .unwrap();
    let updated = raw::<Pokemon>(&db, key()).await;
    assert_eq!(
        updated.get("_ct"),
        created.get("_ct"),
        "if_not_exists keeps it"
    );
    assert_ne!(updated.get("_md"), created.get("_md"));
    assert_eq!(normalized(updated.clone()).len(), created.len());

    // An item written before the entity attribute existed is read by key, not by a query.
    let mut unnamed = updated;
    unnamed.remove("_et");
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Pokemon>())
        .set_item(Some(unnamed))
        .send()
        .await
        .unwrap();
    assert!(db.get::<Pokemon>("pikachu").send().await.unwrap().is_some());
    assert!(db.scan::<Pokemon>().all().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_change_streams_typed_key_keeps_the_case_its_folded_key_lost() {
    use defaults::{Membership, MembershipKey};
    use futures::StreamExt;

    let db = defaults_db("conv_stream").await;
    let member = team_a_owner(None);
    db.create(&member).send().await.unwrap();
    let changes: Vec<_> = dynorm_streams::changes::<Membership>(&db)
        .poll_interval(std::time::Duration::from_millis(50))
        .stop_when_idle(std::time::Duration::from_millis(700))
        .stream()
        .collect()
        .await;
    assert_eq!(changes.len(), 1, "{changes:?}");
    let change = changes.into_iter().next().unwrap().unwrap();
    assert_eq!(
        change.key,
        MembershipKey {
            team_id: "Team_A".into(),
            user_id: "User_B".into(),
        }
    );
}

fn task() -> tasks::Task {
    tasks::Task {
        task_id: "T#1".into(),
        project: "Core#API".into(),
        employee: "Ann".into(),
        status: None,
        details: Some(tasks::Details {
            estimate: Some(3),
            notes: None,
            reviewer: Some(tasks::Reviewer {
                name: "Bo".into(),
                email: None,
            }),
        }),
    }
}

/// ElectroDB's task manager: a `None` inside a nested struct is left out, an index whose
/// optional part is absent gets ElectroDB's key with that part empty, labels are the
/// attributes' model names (`employee`, stored as `emp`), and values holding `#` are
/// written as ElectroDB writes them.
#[test]
fn electrodb_task_manager_matches_the_library() {
    let fixtures = fixtures();
    assert_eq!(written(&task()), fixtures["tasks_task"]);
    let with_status = tasks::Task {
        task_id: "t2".into(),
        project: "core".into(),
        employee: "Ann".into(),
        status: Some("Open".into()),
        details: None,
    };
    assert_eq!(written(&with_status), fixtures["tasks_task_with_status"]);
    let ann = tasks::Employee {
        employee: "Ann".into(),
        name: "Ann Lee".into(),
        office: None,
    };
    assert_eq!(written(&ann), fixtures["tasks_employee"]);
    // And they read back, NULL or absent alike.
    let read = tasks::Task::from_item(fixtures["tasks_task"].clone()).unwrap();
    assert_eq!(read, task());
}

/// Under ElectroDB's convention a key with values for only some of its fields is refused,
/// as ElectroDB refuses it; under dynorm's, such an index stays sparse.
#[tokio::test]
async fn electrodb_refuses_an_index_key_with_some_of_its_fields() {
    // An empty value is no value: `gsi1sk` has `id` but not `status`. `to_item` leaves
    // the index out (a default may yet fill the value); every write refuses the item.
    let partial = interop_models::owned::Issue {
        username: "ann".into(),
        id: "i1".into(),
        status: String::new(),
    };
    assert!(!partial.to_item().unwrap().contains_key("gsi1sk"));
    let db = dynorm_test::isolated_client("conventions_partial_index")
        .await
        .unwrap(); // nothing is sent
    let error = db.put(&partial).preview().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert!(error.to_string().contains("gsi1sk"), "{error}");
}

/// DynamoDB-Toolbox writes `_ct` and `_md` unless told not to, and leaves a nested `None`
/// out; so does dynorm under its convention.
#[test]
fn toolbox_timestamps_are_on_by_default_and_nested_none_is_left_out() {
    let fixtures = fixtures();
    let ash = tasks::Trainer {
        trainer_id: "ash".into(),
        name: "Ash".into(),
        home: Some(tasks::Home {
            town: "Pallet".into(),
            gym: None,
            rival: Some(tasks::Rival {
                name: "Gary".into(),
                title: None,
            }),
        }),
    };
    assert_eq!(written(&ash), fixtures["toolbox_trainer"]);
    let boulder = tasks::Badge {
        badge_id: "boulder".into(),
        name: "Boulder".into(),
    };
    assert_eq!(written(&boulder), fixtures["toolbox_badge"]);
}

/// A NULL nowhere: updates and conditions encode nested structs as whole items do. A list
/// keeps its positions, so a `None` element stays NULL there.
#[tokio::test]
async fn updates_and_conditions_leave_nested_none_out() {
    let db = common::db("conv_nested").await;
    let details = task().details.unwrap();
    let key = tasks::TaskKey {
        task_id: "T#1".into(),
        project: "Core#API".into(),
        employee: "Ann".into(),
    };
    let input = db
        .update::<tasks::Task>(key)
        .set(tasks::Task::DETAILS, details.clone())
        .condition(tasks::Task::DETAILS.eq(details))
        .preview()
        .unwrap();
    let values = input.expression_attribute_values().unwrap();
    let expected = fixtures()["tasks_task"]["details"].clone();
    let nested: Vec<_> = values
        .values()
        .filter(|v| matches!(v, AttributeValue::M(_)))
        .collect();
    assert_eq!(nested, [&expected, &expected], "{values:?}");

    let list: Vec<Option<u32>> = vec![Some(1), None];
    let encoded = dynorm::value::AttrValue::to_attr(&list).unwrap();
    assert_eq!(
        encoded,
        AttributeValue::L(vec![
            AttributeValue::N("1".into()),
            AttributeValue::Null(true)
        ])
    );
}

/// A boolean and an enum in a sort key, and a literal default, as ElectroDB writes them
/// (`gsi1sk` holds `isprivate_false#license_mit`), and a query on the key's leading
/// parts with ElectroDB's key condition.
#[tokio::test]
async fn electrodb_booleans_and_enums_in_keys_match_the_library() {
    use interop_models::repositories::{License, Repository, RepositoryGsi1pkGsi1skIndex};
    let fixtures = fixtures();
    let db = dynorm_test::isolated_client("conventions_repositories")
        .await
        .unwrap(); // nothing is sent
    let stored = |repo: &Repository| {
        let input = db.put(repo).preview().unwrap();
        normalized(input.item().cloned().expect("an item"))
    };
    let public = Repository {
        repo_owner: "tywalch".into(),
        repo_name: "ElectroDB".into(),
        is_private: false,
        license: License::Mit,
        default_branch: None,
    };
    assert_eq!(stored(&public), fixtures["repositories_public"]);
    let private = Repository {
        repo_owner: "tywalch".into(),
        repo_name: "Secret".into(),
        is_private: true,
        license: License::Apache2,
        default_branch: Some("trunk".into()),
    };
    assert_eq!(stored(&private), fixtures["repositories_private"]);

    let query = db
        .query_by::<RepositoryGsi1pkGsi1skIndex>("tywalch".to_owned())
        .range(Repository::IS_PRIVATE.eq(false));
    let input = query.preview().unwrap();
    let values = input.expression_attribute_values().unwrap();
    // The key condition's values are ElectroDB's (the filter's are the entity's identity).
    for wanted in fixtures["repositories_public_query"].values() {
        assert!(
            values.values().any(|v| v == wanted),
            "{wanted:?} in {values:?}"
        );
    }
    assert!(
        input
            .key_condition_expression()
            .is_some_and(|k| k.contains("begins_with")),
        "{input:?}"
    );
}

/// ElectroDB's sub-collections: `collection = ["owned", "managed"]` writes ElectroDB's keys,
/// and a collection query at each level sends ElectroDB's key condition and reads the
/// entities of that level, on a real server.
#[tokio::test]
async fn electrodb_sub_collections_match_the_library_at_each_level() {
    use interop_models::owned::{Issue, ManagedWork, Owned, OwnedWork, PullRequest, Repository};
    let fixtures = fixtures();
    let db = common::db("conventions_sub_collections").await;
    db.tables().create_shared::<Owned>().send().await.unwrap();
    let repository = Repository {
        username: "ann".into(),
        id: "r1".into(),
        status: "open".into(),
    };
    let issue = Issue {
        username: "ann".into(),
        id: "i1".into(),
        status: "open".into(),
    };
    let pull_request = PullRequest {
        username: "ann".into(),
        id: "p1".into(),
        status: "merged".into(),
    };
    assert_eq!(written(&repository), fixtures["owned_repository"]);
    assert_eq!(written(&issue), fixtures["owned_issue"]);
    assert_eq!(written(&pull_request), fixtures["owned_pull_request"]);
    db.put(&repository).send().await.unwrap();
    db.put(&issue).send().await.unwrap();
    db.put(&pull_request).send().await.unwrap();

    let key_values = |input: aws_sdk_dynamodb::operation::query::QueryInput| {
        let values = input
            .expression_attribute_values()
            .cloned()
            .unwrap_or_default();
        (
            values.values().cloned().collect::<Vec<_>>(),
            input
                .key_condition_expression()
                .unwrap_or_default()
                .to_owned(),
        )
    };
    for (name, (values, condition)) in [
        (
            "owned_collection_query",
            key_values(db.collection::<OwnedWork>("ann").preview().unwrap()),
        ),
        (
            "managed_collection_query",
            key_values(db.collection::<ManagedWork>("ann").preview().unwrap()),
        ),
    ] {
        assert!(condition.contains("begins_with"), "{name}: {condition}");
        for wanted in fixtures[name].values() {
            assert!(values.contains(wanted), "{name}: {wanted:?} in {values:?}");
        }
    }
    let owned = db.collection::<OwnedWork>("ann").all().await.unwrap();
    assert_eq!(owned.len(), 3, "{owned:?}");
    let managed = db.collection::<ManagedWork>("ann").all().await.unwrap();
    assert_eq!(
        managed,
        [
            ManagedWork::Issue(issue),
            ManagedWork::PullRequest(pull_request)
        ]
    );
}

/// A query without a named index chooses one whose hash key is built from fields when
/// each field has an equality (ElectroDB's `find`), and reads exactly the values asked for:
/// the keys fold letter case, so the equalities stay in the filter.
#[tokio::test]
async fn a_query_chooses_an_index_keyed_by_fields_from_their_equalities() {
    use interop_models::store_examples::latte_larrys;
    use interop_models::store_locations::StoreLocation as S;
    let db = common::db_with::<S>("conventions_index_choice").await;
    db.put(&latte_larrys()).send().await.unwrap();
    db.put(&S {
        mall_id: "EASTPOINTE".into(),
        store_id: "MochaJoes".into(),
        ..latte_larrys()
    })
    .send()
    .await
    .unwrap();

    let by_building = db
        .query::<S>()
        .matching(S::MALL_ID.eq("EastPointe") & S::BUILDING_ID.eq("BuildingA1"));
    let plan = by_building.plan().unwrap();
    assert_eq!(plan.index_name(), "gsi1pk-gsi1sk-index", "{plan}");
    let found = by_building.all().await.unwrap();
    // `EASTPOINTE` shares the folded partition, and the filter leaves it out.
    assert_eq!(
        found
            .iter()
            .map(|s| s.store_id.as_str())
            .collect::<Vec<_>>(),
        ["LatteLarrys"]
    );
    let by_store = db.query::<S>().matching(S::STORE_ID.eq("MochaJoes"));
    assert_eq!(by_store.plan().unwrap().index_name(), "gsi2pk-gsi2sk-index");
    assert_eq!(by_store.all().await.unwrap().len(), 1);
    let by_city = db
        .query::<S>()
        .matching(S::CITY_ID.eq("Atlanta1") & S::MALL_ID.eq("EastPointe"));
    assert_eq!(by_city.plan().unwrap().index_name(), "table");
    assert_eq!(by_city.all().await.unwrap().len(), 1);
}

/// Attributes ElectroDB computes and transforms: `watch` (`ticketNumber`, in `gsi4pk`),
/// `set`/`get` (`status` stored as a code and part of `gsi2sk`; `replyViewed` stored as
/// `#` for none), and a `set` that ignores what it is given (`ticketType`). The items are
/// ElectroDB's byte for byte; an update of the status sends ElectroDB's values and rebuilds
/// `gsi2sk` from the code; each side reads the other's items as the values given.
#[tokio::test]
async fn electrodb_computed_and_transformed_attributes_match_the_library() {
    use interop_models::tickets::{Issue, IssueGsi2pkGsi2skIndex};
    let fixtures = fixtures();
    let db = common::db("conventions_tickets").await;
    db.tables().create::<Issue>().send().await.unwrap();
    let open = Issue {
        repo_owner: "tywalch".into(),
        repo_name: "electrodb".into(),
        issue_number: "42".into(),
        username: "ann".into(),
        ticket_type: "Anything".into(),
        ticket_number: "ignored".into(),
        status: String::new(),
        reply_viewed: None,
        subject: "Keys fold case".into(),
    };
    let closed = Issue {
        issue_number: "43".into(),
        username: "bo".into(),
        status: "Closed".into(),
        reply_viewed: Some("bo".into()),
        subject: "Sub-collections".into(),
        ..open.clone()
    };
    let stored = |issue: &Issue| {
        let input = db.put(issue).preview().unwrap();
        input.item().cloned().expect("an item")
    };
    assert_eq!(stored(&open), fixtures["tickets_issue"]);
    assert_eq!(stored(&closed), fixtures["tickets_issue_closed"]);

    // ElectroDB's item is read as the values it was given, through `get`.
    let theirs = Issue::from_item(fixtures["tickets_issue"].clone()).unwrap();
    let read_back = Issue {
        ticket_type: "Issue".into(),
        ticket_number: "42".into(),
        status: "Open".into(),
        ..open.clone()
    };
    assert_eq!(theirs, read_back);

    // The update sets the status's code and rebuilds `gsi2sk` from it, as ElectroDB does.
    let close = db
        .update(open.key())
        .set(Issue::STATUS, "Closed")
        .preview()
        .unwrap();
    let values = close.expression_attribute_values().unwrap();
    let theirs = &fixtures["tickets_close"];
    let Some(AttributeValue::M(their_values)) = theirs.get("ExpressionAttributeValues") else {
        panic!("{theirs:?}")
    };
    for wanted in [":status_u0", ":gsi2sk_u0"] {
        assert!(
            values.values().any(|v| Some(v) == their_values.get(wanted)),
            "{wanted}: {:?} in {values:?}",
            their_values.get(wanted)
        );
    }

    // On a real server: a condition and a key condition on a transformed attribute compare
    // what a write of the value stores.
    db.put(&open).send().await.unwrap();
    db.put(&closed).send().await.unwrap();
    let query_closed = || {
        db.query_by::<IssueGsi2pkGsi2skIndex>(("tywalch".to_owned(), "electrodb".to_owned()))
            .range(Issue::STATUS.eq("Closed"))
            .all()
    };
    let found = query_closed().await.unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    db.update(open.key())
        .set(Issue::STATUS, "Closed")
        .condition(Issue::STATUS.eq("Open"))
        .send()
        .await
        .unwrap();
    let now_closed: Issue = db.get(open.key()).send().await.unwrap().unwrap();
    assert_eq!(now_closed.status, "Closed");
    let found = query_closed().await.unwrap();
    assert_eq!(found.len(), 2, "{found:?}");

    // The transform decides what an absent `reply_viewed` stores, so an update cannot
    // remove it.
    let error = db
        .update(open.key())
        .remove(Issue::REPLY_VIEWED)
        .preview()
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.attribute(), Some("replyViewed"), "{error}");
}

/// An item another program wrote at an entity's key, without its identity attributes, is
/// refused by a read by key, naming the attribute, and read with `ignore_identity()`, as
/// ElectroDB's `ignoreOwnership` reads it. The item is left as it is.
#[tokio::test]
async fn a_read_that_ignores_identity_takes_an_item_another_program_wrote() {
    use templates::{Membership, MembershipKey, Role};

    let db = common::db("conv_ignore_identity").await;
    db.tables()
        .create_shared::<templates::TeamsTemplates>()
        .send()
        .await
        .unwrap();
    let mut item = membership_key("t1", "other");
    item.insert("teamId".into(), s("t1"));
    item.insert("userId".into(), s("other"));
    item.insert("role".into(), s("member"));
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Membership>())
        .set_item(Some(item.clone()))
        .send()
        .await
        .unwrap();
    let key = || MembershipKey {
        team_id: "t1".into(),
        user_id: "other".into(),
    };
    let refused = db.get::<Membership>(key()).send().await.unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Conversion, "{refused}");
    assert_eq!(refused.attribute(), Some("__edb_e__"), "{refused}");
    let read = db
        .get::<Membership>(key())
        .ignore_identity()
        .send()
        .await
        .unwrap()
        .expect("the item is read");
    assert_eq!(read.role, Role::Member);
    assert_eq!(read.user_id, "other");
    assert_eq!(
        raw::<Membership>(&db, membership_key("t1", "other")).await,
        item,
        "a read changes nothing"
    );
    assert!(db
        .get::<Membership>(MembershipKey {
            team_id: "t1".into(),
            user_id: "absent".into(),
        })
        .ignore_identity()
        .send()
        .await
        .unwrap()
        .is_none());
}

/// ElectroDB's attributes used as index keys: the table's keys are written into the
/// fields' own attributes, `accountId` through a template and `organizationId` as the
/// value alone (folded to lower case, as ElectroDB writes it). Every write path stores the
/// key text once, every read path reads each field back out of it, and a condition on
/// the field compares the stored text.
#[tokio::test]
async fn a_key_written_into_its_own_fields_attribute_holds_on_every_path() {
    use interop_models::attributes_as_indexes::{Account, AccountKey};

    let db = common::db_with::<Account>("conv_own_keys").await;
    let account = |id: &str, org: &str| Account {
        account_id: id.into(),
        organization_id: org.into(),
        name: Some(format!("{id} of {org}")),
    };
    let key = |id: &str, org: &str| AccountKey {
        account_id: id.into(),
        organization_id: org.into(),
    };
    let stored_key = |id: &str, org: &str| {
        Item::from([
            ("accountId".to_owned(), s(&format!("prefix_{id}_postfix"))),
            ("organizationId".to_owned(), s(org)),
        ])
    };
    db.create(&account("a1", "o1")).send().await.unwrap();
    db.put(&account("a2", "o1")).send().await.unwrap();
    db.batch_write()
        .put(&account("a3", "o1"))
        .send()
        .await
        .unwrap();
    db.transact_write()
        .write(db.put(&account("a4", "o1")))
        .send()
        .await
        .unwrap();
    for id in ["a1", "a2", "a3", "a4"] {
        let item = raw::<Account>(&db, stored_key(id, "o1")).await;
        assert_eq!(
            item["accountId"],
            s(&format!("prefix_{id}_postfix")),
            "{id}"
        );
        assert_eq!(item["organizationId"], s("o1"), "{id}");
        assert_eq!(
            db.get::<Account>(key(id, "o1")).send().await.unwrap(),
            Some(account(id, "o1")),
            "{id}"
        );
    }
    // An update of another field, and an upsert that creates the item.
    db.update::<Account>(key("a1", "o1"))
        .set(Account::NAME, "renamed")
        .send()
        .await
        .unwrap();
    db.update::<Account>(key("a5", "o1"))
        .set(Account::NAME, "upserted")
        .upsert()
        .send()
        .await
        .unwrap();
    let read = db.get::<Account>(key("a5", "o1")).send().await.unwrap();
    assert_eq!(read.map(|a| a.account_id), Some("a5".to_owned()));
    assert_eq!(
        raw::<Account>(&db, stored_key("a5", "o1")).await["accountId"],
        s("prefix_a5_postfix")
    );
    // A condition on the field compares the stored key text.
    db.update::<Account>(key("a1", "o1"))
        .set(Account::NAME, "checked")
        .condition(Account::ACCOUNT_ID.eq("a1"))
        .send()
        .await
        .unwrap();
    let refused = db
        .update::<Account>(key("a1", "o1"))
        .set(Account::NAME, "wrong")
        .condition(Account::ACCOUNT_ID.eq("a2"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::ConditionFailed, "{refused}");
    // The other reads: a batch, a transaction, the partition and a scan.
    let many = db
        .get_many::<Account, _>([key("a2", "o1"), key("a3", "o1")])
        .send()
        .await
        .unwrap();
    assert_eq!(many.len(), 2);
    let both = db
        .transact_get()
        .get::<Account>(key("a4", "o1"))
        .send()
        .await
        .unwrap();
    assert_eq!(both.get::<Account>(0).unwrap(), Some(account("a4", "o1")));
    let partition = db.query_by::<Account>("a2").all().await.unwrap();
    assert_eq!(partition, [account("a2", "o1")]);
    let mut scanned: Vec<String> = db
        .scan::<Account>()
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.account_id)
        .collect();
    scanned.sort();
    assert_eq!(scanned, ["a1", "a2", "a3", "a4", "a5"]);
    db.delete::<Account>(key("a2", "o1")).send().await.unwrap();
    assert_eq!(
        db.get::<Account>(key("a2", "o1")).send().await.unwrap(),
        None
    );

    // A value holding the text after it in the template would read back as another value
    // (`a` of `prefix_a_postfix_b_postfix`): refused on every write path, before sending.
    let hostile = account("a_postfix_b", "o1");
    for refused in [
        db.create(&hostile).send().await.unwrap_err(),
        db.put(&hostile).send().await.unwrap_err(),
        db.batch_write().put(&hostile).send().await.unwrap_err(),
    ] {
        assert_eq!(refused.kind(), ErrorKind::Validation, "{refused}");
    }
    assert_eq!(db.scan::<Account>().all().await.unwrap().len(), 4);
}
