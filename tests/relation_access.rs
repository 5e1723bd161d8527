//! How a relation reaches its related side, against a real server, counting requests: a
//! `one` relation whose target is reachable only through a global index, relations whose
//! references go beyond the hash key (a filter, a range key equality), and relations
//! that need a scan, refused without `allow_scan` (by `plan()` and by `send()`, before
//! anything is sent) and read with one Scan with it.

mod common;

use common::Requests;
use dynorm::__private::RelationSchema;
use dynorm::relation::One;
use dynorm::{ErrorKind, Model};

/// An account, found by its id, or by its email only through the index `by_email`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Accounts")]
struct Account {
    #[hash_key]
    id: String,
    #[index(name = "by_email")]
    email: String,
    name: String,
}

/// A referrer, whose `code` no key holds.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Referrers")]
#[relation(name = "signups", many = Signup, fields = [code], references = [code], allow_scan)]
struct Referrer {
    #[hash_key]
    id: String,
    code: String,
}

/// A signup of a campaign: its account through the email index, its referrer by a scan.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Signups")]
#[relation(name = "account", one = Account, fields = [email], references = [email])]
#[relation(name = "referrer", one = Referrer, fields = [code], references = [code], allow_scan)]
struct Signup {
    #[hash_key]
    campaign: String,
    #[range_key]
    id: String,
    email: String,
    code: String,
}

/// A campaign of an organisation: its signups with its featured code (the hash key and a
/// filter on `code`), and its first signup (the hash key and a range key equality).
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Campaigns")]
#[relation(name = "coded", many = Signup, fields = [name, code], references = [campaign, code])]
#[relation(name = "opener", many = Signup, fields = [name, first], references = [campaign, id])]
struct Campaign {
    #[hash_key]
    org: String,
    #[range_key]
    name: String,
    code: String,
    first: String,
}

async fn setup(label: &str) -> (dynorm::Client, Requests) {
    let db = common::db(label).await;
    db.tables().ensure::<Account>().send().await.unwrap();
    db.tables().ensure::<Referrer>().send().await.unwrap();
    db.tables().ensure::<Signup>().send().await.unwrap();
    let accounts =
        [("a1", "ada@example.org"), ("a2", "grace@example.org")].map(|(id, email)| Account {
            id: id.into(),
            email: email.into(),
            name: id.to_uppercase(),
        });
    db.batch_write().put_many(&accounts).send().await.unwrap();
    let referrers = [("r1", "SPRING"), ("r2", "AUTUMN")].map(|(id, code)| Referrer {
        id: id.into(),
        code: code.into(),
    });
    db.batch_write().put_many(&referrers).send().await.unwrap();
    // Two signups share an email and a code; one email and one code match nothing.
    let signups = [
        ("s1", "ada@example.org", "SPRING"),
        ("s2", "ada@example.org", "SPRING"),
        ("s3", "grace@example.org", "AUTUMN"),
        ("s4", "nobody@example.org", "NONE"),
    ]
    .map(|(id, email, code)| Signup {
        campaign: "launch".into(),
        id: id.into(),
        email: email.into(),
        code: code.into(),
    });
    db.batch_write().put_many(&signups).send().await.unwrap();
    let requests = Requests::new();
    (requests.client(&db), requests)
}

#[tokio::test]
async fn a_one_relation_reachable_only_through_an_index_queries_it() {
    let (db, requests) = setup("rel_access_index").await;
    let find = db
        .find::<Signup>()
        .matching(Signup::CAMPAIGN.eq("launch"))
        .with(Signup::account());
    let plan = find.plan().unwrap();
    assert_eq!(plan.waves.len(), 2, "{plan}");
    assert!(
        plan.waves[1][0].contains("Query on `by_email` per distinct parent"),
        "{plan}"
    );
    let found = find.all().await.unwrap();
    let names: Vec<(&str, Option<&str>)> = found
        .iter()
        .map(|(s, a)| (s.id.as_str(), a.as_ref().map(|a| a.id.as_str())))
        .collect();
    assert_eq!(
        names,
        [
            ("s1", Some("a1")),
            ("s2", Some("a1")),
            ("s3", Some("a2")),
            ("s4", None)
        ]
    );
    // The signups, then one Query on the index per distinct email (three).
    requests.assert_counts([("Query", 1 + 3)]);
}

#[tokio::test]
async fn allow_scan_reads_the_related_side_with_one_scan() {
    let (db, requests) = setup("rel_access_scan").await;
    let find = db
        .find::<Signup>()
        .matching(Signup::CAMPAIGN.eq("launch"))
        .with((Signup::referrer(), Signup::account()));
    let plan = find.plan().unwrap();
    assert_eq!(plan.waves.len(), 2, "{plan}");
    assert!(
        plan.waves[1][0].contains("one Scan with a filter (allow_scan)"),
        "{plan}"
    );
    let found = find.all().await.unwrap();
    let referrers: Vec<Option<&str>> = found
        .iter()
        .map(|(_, (r, _))| r.as_ref().map(|r| r.id.as_str()))
        .collect();
    assert_eq!(referrers, [Some("r1"), Some("r1"), Some("r2"), None]);
    assert_eq!(requests.take("Scan"), 1, "one scan for every parent");
    assert_eq!(requests.take("Query"), 1 + 3);
    assert_eq!(requests.take_all(), 0);

    // A `many` relation by scan, with a per-parent limit.
    let (referrer, signups) = db
        .find::<Referrer>()
        .matching(Referrer::ID.eq("r1"))
        .with(Referrer::signups())
        .first()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(referrer.code, "SPRING");
    let mut ids: Vec<&str> = signups.iter().map(|s| s.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["s1", "s2"]);
    let (_, limited) = db
        .find::<Referrer>()
        .matching(Referrer::ID.eq("r1"))
        .with(Referrer::signups().limit(1))
        .first()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(limited.len(), 1);
    assert_eq!(requests.take("Scan"), 2);
}

#[tokio::test]
async fn without_allow_scan_a_scan_is_refused_before_sending() {
    let (db, requests) = setup("rel_access_refused").await;
    // The same relation as `Signup::referrer`, without `allow_scan`. The derive refuses
    // to declare it (a compile error); a relation built by hand is refused at run time.
    let referrer = || {
        One::<Signup, Referrer>::new(RelationSchema {
            name: "referrer",
            fields: &["code"],
            references: &["code"],
            allow_scan: false,
        })
    };
    let find = || {
        db.find::<Signup>()
            .matching(Signup::CAMPAIGN.eq("launch"))
            .with(referrer())
    };
    let refused = find().plan().unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Validation);
    let message = refused.to_string();
    assert!(message.contains("referrer"), "{message}");
    assert!(message.contains("Referrer"), "{message}");
    assert!(message.contains("allow_scan"), "{message}");
    let refused = find().all().await.unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Validation);
    assert!(refused.to_string().contains("allow_scan"), "{refused}");
    assert_eq!(requests.take_all(), 0, "nothing is sent");
}

/// A relation's Query is planned once per load, with stand-ins for every value that
/// changes from parent to parent; each request must carry exactly its parent's own.
#[tokio::test]
async fn references_beyond_the_hash_key_are_each_parents_own() {
    let (db, requests) = setup("rel_access_references").await;
    db.tables().ensure::<Campaign>().send().await.unwrap();
    let fall = [("s5", "AUTUMN"), ("s6", "SPRING")].map(|(id, code)| Signup {
        campaign: "fall".into(),
        id: id.into(),
        email: "ada@example.org".into(),
        code: code.into(),
    });
    db.batch_write().put_many(&fall).send().await.unwrap();
    let campaigns =
        [("launch", "SPRING", "s3"), ("fall", "AUTUMN", "s6")].map(|(name, code, first)| {
            Campaign {
                org: "acme".into(),
                name: name.into(),
                code: code.into(),
                first: first.into(),
            }
        });
    db.batch_write().put_many(&campaigns).send().await.unwrap();
    requests.take_all();

    let found = db
        .find::<Campaign>()
        .matching(Campaign::ORG.eq("acme"))
        .with((Campaign::coded(), Campaign::opener()))
        .all()
        .await
        .unwrap();
    let ids = |signups: &[Signup]| -> Vec<String> {
        let mut ids: Vec<String> = signups.iter().map(|s| s.id.clone()).collect();
        ids.sort();
        ids
    };
    let loaded: Vec<(&str, Vec<String>, Vec<String>)> = found
        .iter()
        .map(|(c, (coded, opener))| (c.name.as_str(), ids(coded), ids(opener)))
        .collect();
    assert_eq!(
        loaded,
        [
            ("fall", vec!["s5".into()], vec!["s6".into()]),
            ("launch", vec!["s1".into(), "s2".into()], vec!["s3".into()]),
        ]
    );

    // The campaigns, then one Query per campaign for each relation, each with the
    // campaign's own values and no others.
    let bodies = requests.bodies("Query");
    assert_eq!(bodies.len(), 1 + 2 + 2);
    let mut sent: Vec<Vec<String>> = bodies[1..]
        .iter()
        .map(|body| {
            let mut values: Vec<String> = body["ExpressionAttributeValues"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v["S"].as_str().expect("a string value").to_owned())
                .collect();
            values.sort();
            values
        })
        .collect();
    sent.sort();
    let expected: Vec<Vec<String>> = [
        ["AUTUMN", "fall"],
        ["SPRING", "launch"],
        ["fall", "s6"],
        ["launch", "s3"],
    ]
    .iter()
    .map(|pair| pair.iter().map(|v| (*v).to_owned()).collect())
    .collect();
    assert_eq!(sent, expected);
    for body in &bodies[1..] {
        let condition = body["KeyConditionExpression"].as_str().unwrap();
        match body.get("FilterExpression") {
            // `coded`: the code is a filter.
            Some(filter) => {
                assert!(!condition.contains("AND"), "{condition}");
                assert!(filter.as_str().unwrap().contains('='), "{filter}");
            }
            // `opener`: the id is a range key equality.
            None => assert!(condition.contains("AND"), "{condition}"),
        }
    }
}
