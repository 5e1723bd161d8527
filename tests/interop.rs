//! Sharing tables with TypeScript services, in both directions, through the real npm
//! packages: ElectroDB and DynamoDB-Toolbox write items, dynorm reads them (get, query, an
//! index query and a collection), dynorm writes items on every write path, and the
//! libraries read those back with their ownership checks on and compare every attribute
//! (`tests/interop/*.js`).
//!
//! These tests need node and the packages of `.ci/node/package.json`, which `.ci/run`
//! installs in `.ci/cache` before it runs them with `--ignored`, against DynamoDB Local.
//! Set `DYNORM_NODE_MODULES` to use packages installed elsewhere.

#[path = "interop_models/mod.rs"]
mod interop_models;

use dynorm::Request;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use dynorm::Client;
use interop_models::{defaults, tasks, templates, toolbox};

/// The endpoint node connects to: DynamoDB Local in CI, else the embedded server.
fn endpoint() -> String {
    match std::env::var("DYNAMODB_ENDPOINT") {
        Ok(endpoint) if !endpoint.trim().is_empty() => endpoint.trim().to_owned(),
        _ => dynorm_test::embedded_endpoint()
            .expect("the embedded server starts")
            .to_owned(),
    }
}

/// Runs `tests/interop/<script> <args>` with node, and fails with its output if it fails.
fn node(script: &str, args: &[&str]) {
    node_output(script, args);
}

/// [`node`], returning what the script printed.
fn node_output(script: &str, args: &[&str]) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let modules = std::env::var_os("DYNORM_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(".ci/cache/node_modules"));
    assert!(
        modules.join("electrodb").is_dir(),
        "no npm packages in {}: run `npm ci --prefix .ci/cache` with .ci/node/package.json",
        modules.display()
    );
    let output = Command::new("node")
        .arg(root.join("tests/interop").join(script))
        .args(args)
        .env("NODE_PATH", &modules)
        .env("NODE_NO_WARNINGS", "1")
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "node {script} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

async fn db(label: &str) -> Client {
    dynorm_test::isolated_client(label)
        .await
        .expect("the test server is reachable")
}

#[tokio::test]
#[ignore = "needs node and the npm packages in .ci/cache: .ci/run runs it"]
async fn electrodb_and_dynorm_share_the_teams_tables() {
    let db = db("interop_edb").await;
    db.tables()
        .create_shared::<templates::TeamsTemplates>()
        .send()
        .await
        .unwrap();
    db.tables()
        .create_shared::<defaults::TeamsDefaults>()
        .send()
        .await
        .unwrap();
    let (with_templates, with_defaults) = (
        db.tables().name::<templates::Team>(),
        db.tables().name::<defaults::Team>(),
    );
    let endpoint = endpoint();
    let tables = [endpoint.as_str(), &with_templates, &with_defaults];
    node("electrodb.js", &[&["write"][..], &tables].concat());

    read_electrodb_items(&db).await;
    write_for_electrodb(&db).await;

    node("electrodb.js", &[&["verify"][..], &tables].concat());
}

/// dynorm reads what ElectroDB wrote: get, query, an index query and a collection.
async fn read_electrodb_items(db: &Client) {
    use templates::{Membership, MembershipGSI1, Role, Team, TeamWithMembers};

    let team = db
        .get::<Team>("t_eng")
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!(team.name, "Engineering");
    assert!(team.created_at.is_some() && team.updated_at.is_some());

    let members = db.query_by::<Membership>("t_eng").all().await.unwrap();
    let roles: Vec<_> = members
        .iter()
        .map(|m| (m.user_id.as_str(), m.role))
        .collect();
    assert_eq!(roles, [("u_alice", Role::Owner), ("u_bob", Role::Member)]);

    let teams = db
        .query_by::<MembershipGSI1>("u_alice")
        .all()
        .await
        .unwrap();
    let teams: Vec<_> = teams.iter().map(|m| m.team_id.as_str()).collect();
    assert_eq!(teams, ["t_design", "t_eng"]);

    let tally = dynorm::observe::Tally::default();
    let page = db
        .collection::<TeamWithMembers>("t_eng")
        .tally(&tally)
        .all()
        .await
        .unwrap();
    assert_eq!((page.len(), tally.skipped()), (3, 0));
    assert!(matches!(&page[0], TeamWithMembers::Team(t) if t.name == "Engineering"));

    let team = db
        .get::<defaults::Team>("T_Eng")
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!(
        (team.team_id.as_str(), team.name.as_str()),
        ("T_Eng", "Engineering")
    );
    let members = db
        .query_by::<defaults::Membership>("T_Eng")
        .all()
        .await
        .unwrap();
    let members: Vec<_> = members
        .iter()
        .map(|m| (m.user_id.as_str(), m.seats))
        .collect();
    assert_eq!(members, [("U_Alice", Some(3)), ("u_bob", None)]);
    let alice = db
        .query_by::<defaults::MembershipGSI1>("U_Alice")
        .all()
        .await
        .unwrap();
    assert_eq!(alice.len(), 1);
    assert_eq!(alice[0].role, Role::Owner);
    let tally = dynorm::observe::Tally::default();
    let page = db
        .collection::<defaults::TeamWithMembers>("T_Eng")
        .tally(&tally)
        .all()
        .await
        .unwrap();
    assert_eq!((page.len(), tally.skipped()), (3, 0));
}

/// dynorm writes on every path: create, put, update, batch and transaction.
async fn write_for_electrodb(db: &Client) {
    use templates::{Membership, MembershipKey, Role, Team, User};

    let member = |team: &str, user: &str, role| Membership {
        team_id: team.into(),
        user_id: user.into(),
        role,
        joined_at: None,
    };
    db.create(&Team {
        team_id: "t_ops".into(),
        name: "Operations".into(),
        created_at: None,
        updated_at: None,
    })
    .send()
    .await
    .unwrap();
    db.create(&User {
        user_id: "u_carol".into(),
        name: "Carol Diaz".into(),
        email: "carol@example.com".into(),
    })
    .send()
    .await
    .unwrap();
    db.put(&User {
        user_id: "u_bob".into(),
        name: "Bob Park".into(),
        email: "bob@ops.example.com".into(),
    })
    .send()
    .await
    .unwrap();
    db.create(&member("t_ops", "u_carol", Role::Owner))
        .send()
        .await
        .unwrap();
    // `default`s apply on create; a batch put writes the item as given.
    let joined = |m: Membership| Membership {
        joined_at: Some(chrono::Utc::now()),
        ..m
    };
    let carol = joined(member("t_eng", "u_carol", Role::Member));
    let dave = joined(member("t_design", "u_dave", Role::Member));
    db.batch_write()
        .put(&carol)
        .put(&dave)
        .send()
        .await
        .unwrap();
    db.transact_write()
        .write(db.create(&member("t_ops", "u_dave", Role::Admin)))
        .send()
        .await
        .unwrap();
    db.update::<Membership>(MembershipKey {
        team_id: "t_eng".into(),
        user_id: "u_bob".into(),
    })
    .set(Membership::ROLE, Role::Admin)
    .send()
    .await
    .unwrap();

    db.update::<defaults::Team>("T_Eng")
        .set(defaults::Team::NAME, "Eng")
        .send()
        .await
        .unwrap();
    db.create(&defaults::Membership {
        team_id: "T_Eng".into(),
        user_id: "U_Carol".into(),
        role: Role::Admin,
        seats: Some(1),
    })
    .send()
    .await
    .unwrap();
}

#[tokio::test]
#[ignore = "needs node and the npm packages in .ci/cache: .ci/run runs it"]
async fn dynamodb_toolbox_and_dynorm_share_a_table() {
    use toolbox::Pokemon;

    let db = db("interop_tb").await;
    db.tables().create::<Pokemon>().send().await.unwrap();
    let table = db.tables().name::<Pokemon>();
    let endpoint = endpoint();
    node("toolbox.js", &["write", &endpoint, &table]);

    let pikachu = db
        .get::<Pokemon>("pikachu")
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!((pikachu.name.as_str(), pikachu.level), ("Pikachu", 12));
    assert_eq!(pikachu.types, Some(BTreeSet::from(["electric".to_owned()])));

    db.put(&Pokemon {
        pokemon_id: "bulbasaur".into(),
        name: "Bulbasaur".into(),
        level: 5,
        types: Some(BTreeSet::from(["grass".to_owned(), "poison".to_owned()])),
    })
    .send()
    .await
    .unwrap();
    db.update::<Pokemon>("pikachu")
        .set(Pokemon::LEVEL, 13u32)
        .send()
        .await
        .unwrap();

    // DynamoDB-Toolbox's timestamps by default, and nested maps with optional fields.
    let ash = db
        .get::<tasks::Trainer>("ash")
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    let home = ash.home.expect("Ash has a home");
    assert_eq!((home.town.as_str(), home.gym), ("Pallet", None));
    assert_eq!(
        home.rival.map(|r| (r.name, r.title)),
        Some(("Gary".into(), None))
    );
    db.create(&tasks::Trainer {
        trainer_id: "misty".into(),
        name: "Misty".into(),
        home: Some(tasks::Home {
            town: "Cerulean".into(),
            gym: None,
            rival: Some(tasks::Rival {
                name: "Brock".into(),
                title: None,
            }),
        }),
    })
    .send()
    .await
    .unwrap();
    db.put(&tasks::Badge {
        badge_id: "cascade".into(),
        name: "Cascade".into(),
    })
    .send()
    .await
    .unwrap();

    // DynamoDB-Toolbox's computed, transformed and default attributes: its gym read
    // through `get`, then a path of its map and its computed slug's source changed.
    let pewter = db
        .get::<tasks::Gym>("pewter")
        .send()
        .await
        .unwrap()
        .expect("the gym exists");
    assert_eq!(
        (
            pewter.leader_slug.as_str(),
            pewter.city.as_str(),
            pewter.badges
        ),
        ("brock", "pewter", Some(8))
    );
    db.update::<tasks::Gym>("pewter")
        .set(tasks::Gym::ADDRESS.field::<u32>("number"), 2)
        .set(tasks::Gym::LEADER, "Flint")
        .send()
        .await
        .unwrap();
    db.create(&tasks::Gym {
        gym_id: "cerulean".into(),
        leader: "Misty".into(),
        leader_slug: String::new(),
        city: "Cerulean".into(),
        badges: None,
        address: tasks::Address {
            street: "Water St".into(),
            number: 3,
        },
    })
    .send()
    .await
    .unwrap();

    node("toolbox.js", &["verify", &endpoint, &table]);
    // DynamoDB-Toolbox's update of a path in the map dynorm wrote.
    let cerulean = db
        .get::<tasks::Gym>("cerulean")
        .send()
        .await
        .unwrap()
        .expect("the gym exists");
    assert_eq!(cerulean.address.number, 7);
}

#[tokio::test]
#[ignore = "needs node and the npm packages in .ci/cache: .ci/run runs it"]
async fn electrodb_task_manager_in_both_directions() {
    use tasks::{Assignments, Details, Employee, Reviewer, Task, TaskGSI1, TaskGSI3, TaskKey};

    let db = db("interop_tasks").await;
    db.tables()
        .create_shared::<tasks::TaskManager>()
        .send()
        .await
        .unwrap();
    let table = db.tables().name::<Task>();
    let endpoint = endpoint();
    node("tasks.js", &["write", &endpoint, &table]);

    // Read by key although the values hold ElectroDB's separator `#`.
    let key = |task: &str, project: &str, employee: &str| TaskKey {
        task_id: task.into(),
        project: project.into(),
        employee: employee.into(),
    };
    let t1 = db
        .get::<Task>(key("T#1", "Core#API", "Ann"))
        .send()
        .await
        .unwrap()
        .expect("ElectroDB's task is read by key");
    let details = t1.details.expect("the task has details");
    assert_eq!((details.estimate, details.notes), (Some(3), None));
    assert_eq!(
        details.reviewer,
        Some(Reviewer {
            name: "Bo".into(),
            email: None
        })
    );
    let by_project = db.query_by::<TaskGSI1>("Core#API").all().await.unwrap();
    let mut ids: Vec<_> = by_project.iter().map(|t| t.task_id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["T#1", "t2"]);
    let ann = db
        .get::<Employee>("Ann")
        .send()
        .await
        .unwrap()
        .expect("ElectroDB's employee");
    assert_eq!(ann.office, None);

    // ElectroDB's `assignments` collection on GSI3, read as one collection: the query
    // ElectroDB sends, and Ann with her task.
    let collection = db.collection::<Assignments>("Ann");
    let input = collection.preview().unwrap();
    assert_eq!(input.index_name(), Some("GSI3"));
    let values = input.expression_attribute_values().unwrap();
    let mut texts: Vec<_> = values.values().filter_map(|v| v.as_s().ok()).collect();
    texts.sort_unstable();
    assert_eq!(texts, ["$assignments", "$taskapp#employee_ann"]);
    let work = collection.all().await.unwrap();
    assert!(
        matches!(&work[..], [Assignments::Employee(e), Assignments::Task(t)] if e.employee == "Ann" && t.task_id == "T#1"),
        "{work:?}"
    );
    // A query on the sort key's leading attribute, with ElectroDB's key condition: the
    // prefix runs to the next attribute's label (the key is lowercased, so the filter
    // stays for the exact value).
    let core = db
        .query_by::<TaskGSI3>("Ann")
        .matching(Task::PROJECT.eq("Core#API"));
    let input = core.preview().unwrap();
    let key_condition = input.key_condition_expression().unwrap_or_default();
    assert!(key_condition.contains("begins_with"), "{key_condition}");
    let values = input.expression_attribute_values().unwrap();
    assert!(
        values.values().any(|v| v.as_s().ok().map(String::as_str)
            == Some("$assignments#task_1#project_core#api#taskid_")),
        "{values:?}"
    );
    let core = core.all().await.unwrap();
    assert_eq!(
        core.iter().map(|t| t.task_id.as_str()).collect::<Vec<_>>(),
        ["T#1"]
    );

    db.create(&Task {
        task_id: "T#3".into(),
        project: "Core#API".into(),
        employee: "Cy".into(),
        status: None,
        details: Some(Details {
            estimate: None,
            notes: Some("draft".into()),
            reviewer: Some(Reviewer {
                name: "Di".into(),
                email: None,
            }),
        }),
    })
    .send()
    .await
    .unwrap();
    db.put(&Task {
        task_id: "t4".into(),
        project: "Ops".into(),
        employee: "Cy".into(),
        status: Some("blocked".into()),
        details: None,
    })
    .send()
    .await
    .unwrap();
    db.create(&Employee {
        employee: "Cy".into(),
        name: "Cy Ng".into(),
        office: None,
    })
    .send()
    .await
    .unwrap();

    node("tasks.js", &["verify", &endpoint, &table]);
}

/// ElectroDB's version-control entities and dynorm share their tables through the model
/// features dynorm says in ElectroDB's words: computed and transformed attributes (a
/// transformed key part included), a boolean and an enum in a key with a literal default,
/// sub-collections, and an update of a path inside a map. Each side reads and changes what
/// the other wrote, and ElectroDB finds dynorm's items through its queries and collections.
#[tokio::test]
#[ignore = "needs node and the npm packages in .ci/cache: .ci/run runs it"]
async fn electrodb_version_control_in_both_directions() {
    use interop_models::owned::{ManagedWork, Owned, OwnedWork, PullRequest};
    use interop_models::repositories::{License, Repository, RepositoryGsi1pkGsi1skIndex};
    use interop_models::tickets::{Issue, IssueGsi2pkGsi2skIndex, IssueKey};

    let db = db("interop_version_control").await;
    db.tables().create::<Issue>().send().await.unwrap();
    db.tables().create::<Repository>().send().await.unwrap();
    db.tables().create_shared::<Owned>().send().await.unwrap();
    db.tables()
        .create_shared::<tasks::TaskManager>()
        .send()
        .await
        .unwrap();
    let tables = [
        db.tables().name::<Issue>(),
        db.tables().name::<Repository>(),
        db.tables().name::<PullRequest>(),
        db.tables().name::<tasks::Task>(),
    ];
    let endpoint = endpoint();
    let args = |mode: &'static str| {
        let mut args = vec![mode, endpoint.as_str()];
        args.extend(tables.iter().map(String::as_str));
        args
    };
    node("versioncontrol.js", &args("write"));

    // ElectroDB's issues read through `get`: the status from its code, no reply marker.
    let key = |number: &str| IssueKey {
        repo_owner: "tywalch".into(),
        repo_name: "electrodb".into(),
        issue_number: number.into(),
    };
    let issue_42: Issue = db
        .get(key("42"))
        .send()
        .await
        .unwrap()
        .expect("ElectroDB's issue");
    assert_eq!(
        (
            issue_42.status.as_str(),
            issue_42.ticket_number.as_str(),
            &issue_42.reply_viewed
        ),
        ("Open", "42", &None)
    );
    // A key condition on the transformed key part finds ElectroDB's closed issue.
    let closed = db
        .query_by::<IssueGsi2pkGsi2skIndex>(("tywalch".to_owned(), "electrodb".to_owned()))
        .range(Issue::STATUS.eq("Closed"))
        .all()
        .await
        .unwrap();
    assert_eq!(
        closed
            .iter()
            .map(|i| i.issue_number.as_str())
            .collect::<Vec<_>>(),
        ["43"]
    );
    db.update(key("42"))
        .set(Issue::STATUS, "Closed")
        .condition(Issue::STATUS.eq("Open"))
        .send()
        .await
        .unwrap();
    db.create(&Issue {
        issue_number: "44".into(),
        status: "Closed".into(),
        ticket_number: String::new(),
        ticket_type: String::new(),
        reply_viewed: None,
        subject: "Shared tables".into(),
        username: "cy".into(),
        ..issue_42.clone()
    })
    .send()
    .await
    .unwrap();
    db.update(key("44"))
        .set(Issue::STATUS, "Open")
        .send()
        .await
        .unwrap();

    // ElectroDB's repositories, found by the boolean in their key; one written by dynorm.
    let public = db
        .query_by::<RepositoryGsi1pkGsi1skIndex>("tywalch".to_owned())
        .range(Repository::IS_PRIVATE.eq(false))
        .all()
        .await
        .unwrap();
    assert_eq!(
        public
            .iter()
            .map(|r| r.repo_name.as_str())
            .collect::<Vec<_>>(),
        ["ElectroDB"]
    );
    db.put(&Repository {
        repo_owner: "tywalch".into(),
        repo_name: "dynorm".into(),
        is_private: false,
        license: License::Apache2,
        default_branch: None,
    })
    .send()
    .await
    .unwrap();

    // ElectroDB's sub-collection levels, and a pull request dynorm adds to both.
    assert_eq!(
        db.collection::<OwnedWork>("ann").all().await.unwrap().len(),
        2
    );
    assert!(
        db.collection::<ManagedWork>("ann")
            .all()
            .await
            .unwrap()
            .len()
            == 1
    );
    db.create(&PullRequest {
        username: "ann".into(),
        id: "p1".into(),
        status: "merged".into(),
    })
    .send()
    .await
    .unwrap();

    // A path inside ElectroDB's map, set by dynorm.
    let reviewer = tasks::Task::DETAILS
        .field::<tasks::Reviewer>("reviewer")
        .field::<String>("name");
    db.update(tasks::TaskKey {
        task_id: "t9".into(),
        project: "Docs".into(),
        employee: "Ann".into(),
    })
    .set(reviewer, "Cy")
    .condition(reviewer.eq("Bo"))
    .send()
    .await
    .unwrap();

    node("versioncontrol.js", &args("verify"));
}

/// Every item of `db`'s table of `M`, as DynamoDB JSON, in key order.
async fn raw_items<M: dynorm::Model>(db: &Client) -> Vec<serde_json::Value> {
    let output = db
        .sdk()
        .scan()
        .table_name(db.tables().name::<M>())
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    let mut items: Vec<_> = output
        .items()
        .iter()
        .map(interop_models::dynamodb_json::item)
        .collect();
    items.sort_by_key(|i| i.to_string());
    items
}

/// Deletes every item of `db`'s table of `M`.
async fn clear<M: dynorm::Model>(db: &Client) {
    let table = db.tables().name::<M>();
    let output = db.sdk().scan().table_name(&table).send().await.unwrap();
    for item in output.items() {
        db.sdk()
            .delete_item()
            .table_name(&table)
            .set_key(Some(M::SCHEMA.key_of(item)))
            .send()
            .await
            .unwrap();
    }
}

/// One entity of ElectroDB's documentation, or one service of several sharing a table, and
/// its examples, said in dynorm (`tests/interop/conformance/<NAME>.js` is the ElectroDB
/// side).
trait Suite {
    /// A model of the suite's table.
    type Model: dynorm::Model;
    const NAME: &'static str;
    /// Writes the items the example starts from.
    async fn seed(example: &str, db: &Client) -> Result<(), dynorm::Error>;
    fn unsaid(example: &str) -> Option<&'static str>;
    async fn run(example: &str, db: &Client) -> Result<Option<usize>, dynorm::Error>;
    /// Every item of the table as dynorm reads it, as text, sorted.
    async fn read_all(db: &Client) -> Result<Vec<String>, dynorm::Error>;
    /// Creates the suite's table.
    async fn create(db: &Client) {
        db.tables().create::<Self::Model>().send().await.unwrap();
    }
}

/// The time of writing in the conformance suite: 2024-05-01T12:00:00.000Z.
const CONFORMANCE_NOW_MS: u64 = 1_714_564_800_000;

/// Runs `$m!` on every suite, in the results table's order: a new suite is one line here.
macro_rules! each_suite {
    ($m:ident) => {
        $m!(StoreLocations);
        $m!(StorePaths);
        $m!(Books);
        $m!(Inventory);
        $m!(TeamDirectory);
        $m!(Staff);
        $m!(ShoppingMall);
        $m!(Animals);
        $m!(AnimalConditions);
        $m!(Edgecases);
        $m!(LibrarySystem);
        $m!(HumanResources);
        $m!(TaskManager);
        $m!(MallLeaseFilters);
        $m!(MallLeases);
        $m!(Organizations);
        $m!(TaskUpdates);
        $m!(Scopes);
        $m!(ScopesUnscoped);
        $m!(Transactions);
        $m!(KeysOnly);
        $m!(IncludeProjection);
        $m!(VersionControl);
        $m!(TaskApp);
        $m!(TaskAppProjects);
        $m!(TaskAppSubcollections);
        $m!(InventoryService);
        $m!(AnimalBirthdays);
        $m!(ItemCounters);
        $m!(ExistingTable);
        $m!(AttributesAsIndexes);
    };
}

/// A `Suite` of model `$model` whose examples are `$module`'s `$seed`, `unsaid` and `$run`.
macro_rules! suite {
    ($suite:ident, $name:literal, $model:ty, $module:ident, $seed:ident, $run:ident) => {
        struct $suite;
        impl Suite for $suite {
            type Model = $model;
            const NAME: &'static str = $name;
            async fn seed(example: &str, db: &Client) -> Result<(), dynorm::Error> {
                for item in interop_models::$module::$seed(example) {
                    db.put(&item).send().await?;
                }
                Ok(())
            }
            fn unsaid(example: &str) -> Option<&'static str> {
                interop_models::$module::unsaid(example)
            }
            async fn run(example: &str, db: &Client) -> Result<Option<usize>, dynorm::Error> {
                interop_models::$module::$run(example, db).await
            }
            async fn read_all(db: &Client) -> Result<Vec<String>, dynorm::Error> {
                let mut found: Vec<String> = db
                    .scan::<$model>()
                    .all()
                    .await?
                    .iter()
                    .map(|m| format!("{m:?}"))
                    .collect();
                found.sort();
                Ok(found)
            }
        }
    };
}

suite!(
    MallLeases,
    "mall_leases",
    interop_models::mall_leases::MallLease,
    mall_leases,
    seed,
    run
);
suite!(
    MallLeaseFilters,
    "mall_lease_filters",
    interop_models::mall_leases::MallLeaseFilter,
    mall_leases,
    seed_filters,
    run_filters
);

suite!(
    Organizations,
    "organizations",
    interop_models::app_updates::Organization,
    app_updates,
    seed_organizations,
    run_organizations
);
suite!(
    TaskUpdates,
    "task_updates",
    interop_models::app_updates::TaskItem,
    app_updates,
    seed_tasks,
    run_tasks
);

/// A `Suite` of `$table`, a service of several models, whose examples are `$module`'s
/// `unsaid`, `$seed`, `$run` and `$read`.
macro_rules! service_suite {
    ($suite:ident, $name:literal, $model:ty, $table:ty, $module:ident, $seed:ident, $run:ident, $read:ident) => {
        struct $suite;
        impl Suite for $suite {
            type Model = $model;
            const NAME: &'static str = $name;
            async fn seed(example: &str, db: &Client) -> Result<(), dynorm::Error> {
                interop_models::$module::$seed(example, db).await
            }
            fn unsaid(example: &str) -> Option<&'static str> {
                interop_models::$module::unsaid(example)
            }
            async fn run(example: &str, db: &Client) -> Result<Option<usize>, dynorm::Error> {
                interop_models::$module::$run(example, db).await
            }
            async fn read_all(db: &Client) -> Result<Vec<String>, dynorm::Error> {
                interop_models::$module::$read(db).await
            }
            async fn create(db: &Client) {
                db.tables().create_shared::<$table>().send().await.unwrap();
            }
        }
    };
}

service_suite!(
    Scopes,
    "scopes",
    interop_models::scopes::ScopedOrganization,
    interop_models::scopes::Scoped,
    scopes,
    put_scoped,
    run_scoped,
    read_scoped
);
service_suite!(
    ScopesUnscoped,
    "scopes_unscoped",
    interop_models::scopes::Organization,
    interop_models::scopes::Unscoped,
    scopes,
    put_unscoped,
    run_unscoped,
    read_unscoped
);

service_suite!(
    Transactions,
    "transactions",
    interop_models::transactions::Agent,
    interop_models::transactions::Transactions,
    transactions,
    put_seed,
    run,
    read_all
);

service_suite!(
    ExistingTable,
    "existing_table",
    interop_models::existing_table::ExistingStore,
    interop_models::existing_table::ExistingStores,
    existing_table,
    put_seed,
    run,
    read_all
);

service_suite!(
    ItemCounters,
    "item_counters",
    interop_models::item_counters::Employee,
    interop_models::item_counters::ItemCounters,
    item_counters,
    put_seed,
    run,
    read_all
);

suite!(
    AttributesAsIndexes,
    "attributes_as_indexes",
    interop_models::attributes_as_indexes::Account,
    attributes_as_indexes,
    seed,
    run
);

suite!(
    AnimalBirthdays,
    "animal_birthdays",
    interop_models::animal_birthdays::BirthdayAnimal,
    animal_birthdays,
    seed,
    run
);

// ElectroDB's task app of its first collection examples: employees and tasks.
service_suite!(
    TaskApp,
    "task_app",
    interop_models::task_app::Employee,
    interop_models::task_app::TaskApp,
    task_app,
    put_seed,
    run,
    read_all
);

// ElectroDB's task app of most collection examples: a task's assignment by project.
service_suite!(
    TaskAppProjects,
    "task_app_projects",
    interop_models::task_app_projects::Employee,
    interop_models::task_app_projects::TaskAppProjects,
    task_app_projects,
    put_seed,
    run,
    read_all
);

// ElectroDB's task app with sub-collections: employees, tasks and project members.
service_suite!(
    TaskAppSubcollections,
    "task_app_subcollections",
    interop_models::task_app_subcollections::Employee,
    interop_models::task_app_subcollections::TaskAppSubcollections,
    task_app_subcollections,
    put_seed,
    run,
    read_all
);

// ElectroDB's multi-attribute index with a collection: inventory items and warehouses.
service_suite!(
    InventoryService,
    "inventory_service",
    interop_models::inventory_service::InventoryItem,
    interop_models::inventory_service::InventoryService,
    inventory_service,
    put_seed,
    run,
    read_all
);

/// A `Suite` of one model whose examples are `$module`'s `$seed`, `$unsaid` and `$run`.
macro_rules! model_suite {
    ($suite:ident, $name:literal, $model:ty, $module:ident, $seed:ident, $unsaid:ident, $run:ident) => {
        struct $suite;
        impl Suite for $suite {
            type Model = $model;
            const NAME: &'static str = $name;
            async fn seed(example: &str, db: &Client) -> Result<(), dynorm::Error> {
                for item in interop_models::$module::$seed(example) {
                    db.put(&item).send().await?;
                }
                Ok(())
            }
            fn unsaid(example: &str) -> Option<&'static str> {
                interop_models::$module::$unsaid(example)
            }
            async fn run(example: &str, db: &Client) -> Result<Option<usize>, dynorm::Error> {
                interop_models::$module::$run(example, db).await
            }
            async fn read_all(db: &Client) -> Result<Vec<String>, dynorm::Error> {
                let mut found: Vec<String> = db
                    .scan::<$model>()
                    .all()
                    .await?
                    .iter()
                    .map(|m| format!("{m:?}"))
                    .collect();
                found.sort();
                Ok(found)
            }
        }
    };
}

model_suite!(
    KeysOnly,
    "keys_only",
    interop_models::projections::Asset,
    projections,
    seed_assets,
    unsaid_assets,
    run_assets
);
model_suite!(
    IncludeProjection,
    "include_projection",
    interop_models::projections::Task,
    projections,
    seed_tasks,
    unsaid_tasks,
    run_tasks
);

// ElectroDB's library system: four entities in one table.
service_suite!(
    LibrarySystem,
    "library",
    interop_models::library::Book,
    interop_models::library::Library,
    library_examples,
    put_seed,
    run,
    read_all
);

// ElectroDB's version-control service: seven entities in one table.
service_suite!(
    VersionControl,
    "version_control",
    interop_models::version_control::Issue,
    interop_models::version_control::VersionControlService,
    version_control_examples,
    put_seed,
    run,
    read_all
);

// ElectroDB's human resources app: an employee, a task and an office in one table.
service_suite!(
    HumanResources,
    "human_resources",
    interop_models::human_resources::Employee,
    interop_models::human_resources::ProjectManagement,
    human_resources_examples,
    put_seed,
    run,
    read_all
);

// ElectroDB's task manager: an employee, an office and a task in one table.
service_suite!(
    TaskManager,
    "task_manager",
    interop_models::task_manager::Task,
    interop_models::task_manager::TaskManager,
    task_manager_examples,
    put_seed,
    run,
    read_all
);

suite!(
    StoreLocations,
    "store_locations",
    interop_models::store_locations::StoreLocation,
    store_examples,
    seed,
    run
);
suite!(
    StorePaths,
    "store_paths",
    interop_models::store_paths::StorePath,
    store_path_examples,
    seed,
    run
);
suite!(
    Books,
    "books",
    interop_models::books::Book,
    book_examples,
    seed,
    run
);
suite!(
    Inventory,
    "inventory",
    interop_models::inventory::InventoryItem,
    inventory_examples,
    seed,
    run
);
suite!(
    TeamDirectory,
    "team_directory",
    interop_models::directory::User,
    directory_examples,
    seed_users,
    run_users
);
suite!(
    Staff,
    "staff",
    interop_models::directory::Employee,
    directory_examples,
    seed_staff,
    run_staff
);
suite!(
    ShoppingMall,
    "shopping_mall",
    interop_models::mall::MallStore,
    mall_examples,
    seed,
    run
);
suite!(
    Edgecases,
    "edgecases",
    interop_models::edgecases::Edgecase,
    edgecase_examples,
    seed,
    run
);
suite!(
    Animals,
    "animals",
    interop_models::animals::Animal,
    animal_examples,
    seed,
    run
);
suite!(
    AnimalConditions,
    "animal_conditions",
    interop_models::animals::EvaluatedAnimal,
    animal_examples,
    seed_evaluated,
    run_evaluated
);

/// Runs suite `S`'s examples `names` with dynorm on `ours`, recording what each sent and
/// left in the table.
async fn run_suite<S: Suite>(ours: &Client, names: &[String]) -> Vec<serde_json::Value> {
    use serde_json::{json, Value};
    let requests = dynorm_test::Requests::new();
    let recorded = requests.client(ours);
    let mut runs = Vec::new();
    for name in names {
        clear::<S::Model>(ours).await;
        Box::pin(S::seed(name, ours)).await.unwrap();
        requests.clear();
        if let Some(reason) = S::unsaid(name) {
            runs.push(json!({ "name": name, "unsaid": reason }));
            continue;
        }
        let (read, error) = match Box::pin(S::run(name, &recorded)).await {
            Ok(read) => (read, None),
            Err(e) if e.kind() == dynorm::ErrorKind::Validation => {
                panic!("{name}: dynorm refused the example: {e}")
            }
            Err(e) => (None, Some(format!("{:?}", e.kind()))),
        };
        let sent: Vec<Value> = requests
            .counts()
            .keys()
            .flat_map(|op| {
                requests
                    .bodies(op)
                    .into_iter()
                    .map(move |b| json!({ "operation": op, "body": b }))
            })
            .collect();
        runs.push(json!({
            "name": name,
            "requests": sent,
            "error": error,
            "read": read,
            "items": raw_items::<S::Model>(ours).await,
        }));
    }
    runs
}

/// dynorm reads what ElectroDB wrote in each example of `runs` as it reads its own items.
async fn read_theirs<S: Suite>(
    ours: &Client,
    runs: &[serde_json::Value],
    written: &serde_json::Value,
) {
    for run in runs {
        let name = run["name"].as_str().unwrap();
        let Some(items) = written[name].as_array() else {
            continue;
        };
        let mut read = Vec::new();
        for source in [items, run["items"].as_array().unwrap()] {
            clear::<S::Model>(ours).await;
            for item in source {
                ours.sdk()
                    .put_item()
                    .table_name(ours.tables().name::<S::Model>())
                    .set_item(Some(interop_models::dynamodb_json::from_item(item)))
                    .send()
                    .await
                    .unwrap();
            }
            read.push(Box::pin(S::read_all(ours)).await.unwrap());
        }
        assert_eq!(
            read[0], read[1],
            "{name}: dynorm reads ElectroDB's items as its own"
        );
    }
}

/// ElectroDB's documentation examples as a conformance suite (`tests/interop/conformance.js`
/// says what is compared). dynorm runs each example it can say, recording its requests and
/// the items the table holds after it; ElectroDB runs the same example on a table of its
/// own and compares; then each side reads the items the other wrote. The results table
/// in the guide's sharing chapter is the one this run makes (`DYNORM_BLESS=1` writes it).
#[test]
#[ignore = "needs node and the npm packages in .ci/cache: .ci/run runs it"]
fn electrodb_documentation_examples_both_ways() {
    // One poll of every suite's code is a deep frame in a debug build: a thread with room
    // for it, and a runtime of its own (its tasks run there, under the fixed clock).
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime")
                .block_on(conform())
        })
        .expect("a thread")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}

/// The body of [`electrodb_documentation_examples_both_ways`].
async fn conform() {
    use serde_json::Value;

    // The time both libraries write where an entity stores the time of writing: this, and
    // `NOW` of conformance/clock.js.
    let _clock = dynorm_test::FixedClock::at(
        std::time::UNIX_EPOCH + std::time::Duration::from_millis(CONFORMANCE_NOW_MS),
    );

    let ours = db("conformance_dynorm").await;
    let theirs = db("conformance_edb").await;
    let names: std::collections::HashMap<String, Vec<String>> =
        serde_json::from_str(&node_output("conformance.js", &["names"]))
            .expect("the suites' names");
    let suite_names = |suite: &str| names.get(suite).cloned().unwrap_or_default();
    // Each suite: its tables on both sides, dynorm's run, and ElectroDB's table for it.
    let mut runs: Vec<(&str, Vec<Value>)> = Vec::new();
    let mut tables = Vec::new();
    // Each future boxed: one state machine of every suite overflows a debug build's stack.
    macro_rules! run {
        ($suite:ty) => {
            Box::pin(<$suite>::create(&ours)).await;
            Box::pin(<$suite>::create(&theirs)).await;
            let names = suite_names(<$suite>::NAME);
            let run = Box::pin(run_suite::<$suite>(&ours, &names)).await;
            runs.push((<$suite>::NAME, run));
            tables.push(format!(
                "{}={}",
                <$suite>::NAME,
                theirs.tables().name::<<$suite as Suite>::Model>()
            ));
        };
    }
    each_suite!(run);
    let all: Vec<&Value> = runs.iter().flat_map(|(_, runs)| runs).collect();

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("conformance");
    std::fs::create_dir_all(&dir).unwrap();
    let (dynorm_json, electrodb_json, results) = (
        dir.join("dynorm.json"),
        dir.join("electrodb.json"),
        dir.join("results.md"),
    );
    std::fs::write(&dynorm_json, serde_json::to_vec_pretty(&all).unwrap()).unwrap();
    let mut args = vec![
        "compare".to_owned(),
        endpoint(),
        dynorm_json.to_str().unwrap().to_owned(),
        electrodb_json.to_str().unwrap().to_owned(),
        results.to_str().unwrap().to_owned(),
    ];
    args.extend(tables);
    node(
        "conformance.js",
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );

    let written: Value = serde_json::from_slice(&std::fs::read(&electrodb_json).unwrap()).unwrap();
    let runs_of = |name: &str| &runs.iter().find(|(n, _)| *n == name).unwrap().1;
    macro_rules! read {
        ($suite:ty) => {
            Box::pin(read_theirs::<$suite>(
                &ours,
                runs_of(<$suite>::NAME),
                &written,
            ))
            .await;
        };
    }
    each_suite!(read);
    // Every suite ElectroDB's side declares is said here.
    let mut unsaid: Vec<&String> = names
        .keys()
        .filter(|name| runs.iter().all(|(n, _)| n != name))
        .collect();
    unsaid.sort();
    assert!(
        unsaid.is_empty(),
        "suites with no dynorm side in each_suite!: {unsaid:?}"
    );

    // The guide's table is this run's.
    let table = std::fs::read_to_string(&results).unwrap();
    let guide_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("guide/12-sharing-tables.md");
    let guide = std::fs::read_to_string(&guide_path).unwrap();
    let (start, end) = ("<!-- conformance:start -->\n", "<!-- conformance:end -->");
    let from = guide
        .find(start)
        .expect("the guide marks the conformance table")
        + start.len();
    let to = guide.find(end).expect("the guide marks the table's end");
    if guide[from..to] != table {
        if std::env::var_os("DYNORM_BLESS").is_some() {
            std::fs::write(
                &guide_path,
                format!("{}{table}{}", &guide[..from], &guide[to..]),
            )
            .unwrap();
        } else {
            panic!(
                "the guide's conformance table is not this run's: run with DYNORM_BLESS=1\n{table}"
            );
        }
    }
}
