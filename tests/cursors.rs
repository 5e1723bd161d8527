//! Page cursors are bound to what they page: a cursor from another table, model, index or
//! partition (or scan segment) is refused before anything is sent, with or without a
//! cursor key; with a key, a cursor does not show its key values; and paging with either
//! kind reads every item exactly once.

mod common;

use base64::Engine as _;
use dynorm::{Client, ErrorKind, Model};

use common::Requests;

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Member")]
struct Member {
    #[hash_key]
    email: String,
    #[range_key]
    id: String,
    #[index(name = "byTeam")]
    team: String,
}

/// The same key names as `Member`, in a table of its own.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Guest")]
struct Guest {
    #[hash_key]
    email: String,
    #[range_key]
    id: String,
    #[index(name = "byTeam")]
    team: String,
}

/// Another model of `Member`'s table, with the same keys.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Member")]
struct Badge {
    #[hash_key]
    email: String,
    #[range_key]
    id: String,
}

const ADA: &str = "ada@example.com";
const BOB: &str = "bob@example.com";
const SECRET: &[u8] = b"an application secret of 32 bytes";

/// Seven members for each of two emails, all in team `t1`.
async fn members(label: &str) -> Client {
    let db = common::db_with::<Member>(label).await;
    db.tables().create::<Guest>().send().await.unwrap();
    for email in [ADA, BOB] {
        for n in 0..7 {
            let member = Member {
                email: email.into(),
                id: format!("m{n}"),
                team: "t1".into(),
            };
            db.put(&member).send().await.unwrap();
        }
    }
    db
}

/// The client without a key, and one with a key.
fn both(db: &Client) -> [Client; 2] {
    [
        db.clone(),
        db.to_builder()
            .cursor_key(SECRET)
            .map(|b| b.build())
            .unwrap(),
    ]
}

fn assert_refused(result: dynorm::Result<impl std::fmt::Debug>, model: &str, operation: &str) {
    let error = result.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.model(), Some(model), "{error}");
    assert_eq!(error.operation(), Some(operation), "{error}");
    assert!(error.to_string().contains("page cursor"), "{error}");
}

#[tokio::test]
async fn a_cursor_from_anywhere_else_is_refused_before_sending() {
    let db = members("cursor_binding").await;
    for client in both(&db) {
        let cursor = client
            .query_by::<Member>(ADA)
            .page_size(2)
            .page(None)
            .await
            .unwrap()
            .cursor
            .expect("7 members do not fit in 2");
        let scan_cursor = client
            .scan::<Member>()
            .segment(0, 2)
            .page_size(1)
            .page(None)
            .await
            .unwrap()
            .cursor
            .expect("a segment of 14 members does not fit in 1");
        let requests = Requests::new();
        let counted = requests.client(&client);
        let cursor = Some(cursor.as_str());
        // Another table with the same key names.
        assert_refused(
            counted.query_by::<Guest>(ADA).page(cursor).await,
            "Guest",
            "query",
        );
        // Another model of the same table.
        assert_refused(
            counted.query_by::<Badge>(ADA).page(cursor).await,
            "Badge",
            "query",
        );
        // Another index of the same model.
        assert_refused(
            counted.query_by::<MemberByTeam>("t1").page(cursor).await,
            "Member",
            "query",
        );
        // Another partition of the same index.
        assert_refused(
            counted.query_by::<Member>(BOB).page(cursor).await,
            "Member",
            "query",
        );
        // A scan of the same table, and another segment of a scan.
        assert_refused(
            counted.scan::<Member>().page(cursor).await,
            "Member",
            "scan",
        );
        assert_refused(
            counted
                .scan::<Member>()
                .segment(1, 2)
                .page(Some(&scan_cursor))
                .await,
            "Member",
            "scan",
        );
        assert_refused(
            counted.scan::<Member>().page(Some(&scan_cursor)).await,
            "Member",
            "scan",
        );
        // Hydrated and budgeted pages of another partition refuse it too.
        assert_refused(
            counted
                .query_by::<MemberByTeam>("t1")
                .hydrate()
                .page(Some(&scan_cursor))
                .await,
            "Member",
            "query",
        );
        assert_refused(
            counted
                .query_by::<Member>(BOB)
                .budget(50.0)
                .page(cursor)
                .await,
            "Member",
            "query",
        );
        assert_eq!(requests.total(), 0, "nothing was sent");
        // Where it comes from, it is taken.
        let page = counted
            .query_by::<Member>(ADA)
            .page_size(2)
            .page(cursor)
            .await;
        assert_eq!(page.unwrap().items.len(), 2);
        assert_eq!(requests.total(), 1);
    }
}

#[tokio::test]
async fn a_sealed_cursor_does_not_show_its_key_values() {
    let db = members("cursor_sealed").await;
    let [plain, sealed] = both(&db);
    let cursor = |client: Client| async move {
        client
            .query_by::<Member>(ADA)
            .page_size(2)
            .page(None)
            .await
            .unwrap()
            .cursor
            .unwrap()
    };
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let shows = |bytes: &[u8], needle: &str| {
        bytes
            .windows(needle.len())
            .any(|window| window == needle.as_bytes())
    };
    let sealed = cursor(sealed).await;
    let bytes = engine.decode(sealed.strip_prefix("c4.").unwrap()).unwrap();
    for needle in [ADA, "m1", "email", "Member"] {
        assert!(!shows(&bytes, needle), "`{needle}` in {sealed}");
    }
    // Without a key, the key values are readable, as documented.
    let plain = cursor(plain).await;
    let readable: Vec<u8> = plain
        .split('.')
        .filter_map(|field| engine.decode(field).ok())
        .flatten()
        .collect();
    assert!(shows(&readable, ADA), "{plain}");
}

#[tokio::test]
async fn pages_read_every_item_exactly_once() {
    let db = members("cursor_pages").await;
    for client in both(&db) {
        for page_size in [1, 3, 7] {
            // A query of one partition, page after page.
            let mut seen = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let page = client
                    .query_by::<Member>(ADA)
                    .page_size(page_size)
                    .page(cursor.as_deref())
                    .await
                    .unwrap();
                seen.extend(page.items.into_iter().map(|m| m.id));
                match page.cursor {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            let expected: Vec<String> = (0..7).map(|n| format!("m{n}")).collect();
            assert_eq!(seen, expected, "pages of {page_size}");

            // A scan in two segments, each page after page.
            let mut scanned = Vec::new();
            for segment in 0..2 {
                let mut cursor: Option<String> = None;
                loop {
                    let page = client
                        .scan::<Member>()
                        .segment(segment, 2)
                        .page_size(page_size)
                        .page(cursor.as_deref())
                        .await
                        .unwrap();
                    scanned.extend(page.items.into_iter().map(|m| (m.email, m.id)));
                    match page.cursor {
                        Some(next) => cursor = Some(next),
                        None => break,
                    }
                }
            }
            scanned.sort();
            let mut expected: Vec<(String, String)> = [ADA, BOB]
                .iter()
                .flat_map(|email| (0..7).map(move |n| (email.to_string(), format!("m{n}"))))
                .collect();
            expected.sort();
            assert_eq!(scanned, expected, "scan pages of {page_size}");
        }
    }
}

#[tokio::test]
async fn a_short_or_empty_cursor_key_is_refused_when_the_client_is_built() {
    let db = common::db("cursor_key_length").await;
    for key in [&b""[..], b"secret", &SECRET[..31]] {
        let error = Client::builder(db.sdk().clone())
            .cursor_key(key)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Config, "{error}");
        assert!(error.to_string().contains("at least 32 bytes"), "{error}");
        assert_eq!(
            db.to_builder()
                .cursor_key(key)
                .map(|b| b.build())
                .unwrap_err()
                .kind(),
            ErrorKind::Config
        );
    }
    assert!(Client::builder(db.sdk().clone()).cursor_key(SECRET).is_ok());
}
