//! What each access pattern of the seed examples costs: the capacity dynorm predicts
//! before sending (`predict()`), and what the server reports after (`tally`), printed as
//! the Markdown table in the guide (`guide/07-costs-and-budgets.md`, "What each access
//! pattern costs").
//!
//! `cargo run --example costs` runs it on the embedded server; the guide's figures are
//! from DynamoDB Local (`DYNAMODB_ENDPOINT=http://127.0.0.1:8000 cargo run --example costs`).
//!
//! Every model declares `max_item_bytes`, the largest item it writes, which bounds what
//! the stored item decides: no write's predicted range is wider than 4 units. The
//! example fails when a request consumes what its prediction does not contain, or when a
//! write's range is wider.

use chrono::{DateTime, TimeZone, Utc};
use dynorm::observe::{Predicted, Tally};
use dynorm::Request;
use dynorm::{Collection, Model};

/// The seed's orders, with an INCLUDE global index, a local index and a sparse one.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "CostOrders", rename_all = "camelCase", max_item_bytes = 900)]
pub struct Order {
    #[hash_key]
    pub customer_id: String,
    #[range_key]
    pub order_id: String,
    #[index(name = "byStatus", range_key = "placed_at", project = ["total"])]
    pub status: String,
    #[index(name = "byPlacedAt", local)]
    pub placed_at: DateTime<Utc>,
    #[index(name = "byCoupon")]
    pub coupon_code: Option<String>,
    pub total: f64,
    pub note: Option<String>,
}

/// The seed's teams, in one table.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "CostTeams",
    entity = "team",
    rename_all = "camelCase",
    max_item_bytes = 1000
)]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
pub struct Team {
    pub team_id: String,
    pub name: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "CostTeams",
    entity = "membership",
    rename_all = "camelCase",
    max_item_bytes = 1000
)]
#[key(pk = "TEAM#{team_id}", sk = "MEMBER#{user_id}")]
#[key(index = "GSI1", gsi1pk = "USER#{user_id}", gsi1sk = "TEAM#{team_id}")]
pub struct Membership {
    pub team_id: String,
    pub user_id: String,
    pub role: String,
}

dynorm::shared_table!(struct CostTeams { Team, Membership });

#[derive(Collection, Debug)]
pub enum TeamWithMembers {
    Team(Team),
    Member(Membership),
}

/// The seed's blog: posts under their author, comments under their post.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "CostBlog",
    entity = "Post",
    rename_all = "camelCase",
    max_item_bytes = 1000
)]
#[key(pk = "USER#{author_id}", sk = "POST#{id}")]
#[key(index = "GSI1", gsi1pk = "POST#{id}", gsi1sk = "POST#{id}")]
#[relation(name = "comments", many = Comment, fields = [id], references = [post_id])]
pub struct Post {
    pub id: String,
    pub author_id: String,
    pub title: String,
    pub body: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "CostBlog",
    entity = "Comment",
    rename_all = "camelCase",
    max_item_bytes = 1000
)]
#[key(pk = "POST#{post_id}", sk = "COMMENT#{id}")]
pub struct Comment {
    pub id: String,
    pub post_id: String,
    pub author_id: String,
    pub text: String,
}

dynorm::shared_table!(struct CostBlog { Post, Comment });

fn order(n: usize) -> Order {
    Order {
        customer_id: format!("c{}", n % 4),
        order_id: format!("o{n:03}"),
        status: if n.is_multiple_of(3) { "open" } else { "paid" }.into(),
        placed_at: Utc.with_ymd_and_hms(2026, 9, 1, 8, 0, 0).unwrap()
            + chrono::Duration::hours(n as i64),
        coupon_code: n.is_multiple_of(5).then(|| "WELCOME".into()),
        total: (n * 37 % 500) as f64 + 0.99,
        note: Some("leave at the door ".repeat(n % 30 + 1)),
    }
}

/// The widest range of write units a write of a model with `max_item_bytes` may predict.
const WIDEST_WRITE: f64 = 4.0;

/// One row of the table: the pattern, what was predicted and what was measured.
struct Row {
    pattern: &'static str,
    request: &'static str,
    predicted: Predicted,
    tally: Tally,
}

impl Row {
    /// Whether DynamoDB reported what the request consumed, and it lies outside the
    /// prediction.
    fn missed(&self) -> bool {
        self.tally
            .consumed_capacity()
            .is_some_and(|c| !self.predicted.contains(&c))
    }

    /// Whether the request is a write whose range is wider than [`WIDEST_WRITE`].
    fn too_wide(&self) -> bool {
        let units = self.predicted.units();
        self.predicted.write_units().max() > 0.0 && units.max() - units.min() > WIDEST_WRITE
    }

    fn print(&self) {
        let measured = self.tally.consumed_capacity();
        let units = measured.as_ref().map_or(0.0, |c| c.units);
        let holds = measured.as_ref().map_or("not reported", |c| {
            if self.predicted.contains(c) {
                "yes"
            } else {
                "no"
            }
        });
        println!(
            "| {} | {} | {} | {} | {} |",
            self.pattern,
            self.request,
            self.predicted.units(),
            units,
            holds
        );
    }
}

/// Measures `send` with the indexes' capacity asked for, after predicting it.
macro_rules! row {
    ($rows:expr, $pattern:expr, $request:expr, $builder:expr, $predict:ident $(($bytes:expr))?) => {{
        let tally = Tally::default();
        let builder = $builder
            .tally(&tally);
        let predicted = builder.$predict($($bytes)?)?;
        builder.send().await?;
        $rows.push(Row { pattern: $pattern, request: $request, predicted, tally });
    }};
}

/// As `row!`, for a read that ends in `page(None)`.
macro_rules! page_row {
    ($rows:expr, $pattern:expr, $request:expr, $builder:expr, $bytes:expr) => {{
        let tally = Tally::default();
        let builder = $builder.max_item_bytes($bytes).tally(&tally);
        let predicted = builder.predict()?;
        builder.page(None).await?;
        $rows.push(Row {
            pattern: $pattern,
            request: $request,
            predicted,
            tally,
        });
    }};
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A fresh prefix per run, so it can run again against a persistent server.
    let db = dynorm_test::local::client()
        .await?
        .to_builder()
        .table_prefix(format!("costs_{}_", Utc::now().timestamp_millis()))
        .build();
    db.tables().create::<Order>().send().await?;
    db.tables().create_shared::<CostTeams>().send().await?;
    db.tables().create_shared::<CostBlog>().send().await?;
    println!(
        "tables: {}, {}, {}",
        db.tables().name::<Order>(),
        db.tables().name::<Team>(),
        db.tables().name::<Post>()
    );
    let mut rows = Vec::new();

    // Orders.
    for n in 1..40 {
        db.put(&order(n)).send().await?;
    }
    let first = order(0);
    // A page is bounded by its largest item.
    let mut largest = 0;
    for n in 0..40 {
        largest = largest.max(dynorm::observe::item_size(&order(n).to_item()?));
    }
    row!(
        rows,
        "orders: place an order",
        "PutItem, new, 3 indexes",
        db.create(&first),
        predict
    );
    row!(
        rows,
        "orders: read an order",
        "GetItem, eventual",
        db.get::<Order>(first.key()),
        predict
    );
    row!(
        rows,
        "orders: read an order",
        "GetItem, strong",
        db.get::<Order>(first.key()).consistent_read(true),
        predict
    );
    row!(
        rows,
        "orders: mark paid",
        "UpdateItem, moves byStatus",
        db.update::<Order>(first.key()).set(Order::STATUS, "paid"),
        predict
    );
    row!(
        rows,
        "orders: add a note",
        "UpdateItem, no index attribute",
        db.update::<Order>(first.key())
            .set(Order::NOTE, "ring twice"),
        predict
    );
    page_row!(
        rows,
        "orders: a customer's orders",
        "Query, 10 per page",
        db.query_by::<Order>("c1").page_size(10),
        largest
    );
    page_row!(
        rows,
        "orders: open orders",
        "Query byStatus (INCLUDE), 10 per page",
        db.query_by::<OrderByStatus>("open").page_size(10),
        120
    );
    page_row!(
        rows,
        "orders: a customer's orders by date",
        "Query byPlacedAt (local), 10 per page",
        db.query_by::<OrderByPlacedAt>("c2").page_size(10),
        largest
    );
    row!(
        rows,
        "orders: cancel an order",
        "DeleteItem, 3 indexes",
        db.delete::<Order>(first.key()),
        predict
    );

    // Teams.
    let team = Team {
        team_id: "t1".into(),
        name: "Core".into(),
    };
    let member = Membership {
        team_id: "t1".into(),
        user_id: "u1".into(),
        role: "owner".into(),
    };
    let member_size = dynorm::observe::item_size(&member.to_item()?);
    row!(
        rows,
        "teams: create a team",
        "PutItem, new",
        db.create(&team),
        predict
    );
    row!(
        rows,
        "teams: add a member",
        "PutItem, new, GSI1",
        db.create(&member),
        predict
    );
    for user in 2..12 {
        let other = Membership {
            user_id: format!("u{user}"),
            ..member.clone()
        };
        db.create(&other).send().await?;
    }
    row!(
        rows,
        "teams: a member's role",
        "GetItem, eventual",
        db.get::<Membership>(member.key()),
        predict
    );
    page_row!(
        rows,
        "teams: a team's members",
        "Query, sk begins_with MEMBER#",
        db.query_by::<Membership>("t1"),
        member_size
    );
    page_row!(
        rows,
        "teams: a user's teams",
        "Query GSI1",
        db.query_by::<MembershipGSI1>("u1"),
        member_size
    );
    row!(
        rows,
        "teams: change a role",
        "UpdateItem, no key attribute",
        db.update::<Membership>(member.key())
            .set(Membership::ROLE, "admin"),
        predict
    );
    row!(
        rows,
        "teams: remove a member",
        "DeleteItem, GSI1",
        db.delete::<Membership>(member.key()),
        predict
    );

    // Blog.
    let post = Post {
        id: "p1".into(),
        author_id: "a1".into(),
        title: "Costs".into(),
        body: "units ".repeat(120),
    };
    let post_size = dynorm::observe::item_size(&post.to_item()?);
    row!(
        rows,
        "blog: publish a post",
        "PutItem, new, GSI1",
        db.create(&post),
        predict
    );
    for n in 0..20 {
        let comment = Comment {
            id: format!("m{n:02}"),
            post_id: "p1".into(),
            author_id: "a2".into(),
            text: "nice ".repeat(n + 1),
        };
        row!(
            rows,
            "blog: comment",
            "PutItem, new",
            db.create(&comment),
            predict
        );
    }
    page_row!(
        rows,
        "blog: a post by id",
        "Query GSI1",
        db.query_by::<PostGSI1>("p1"),
        post_size
    );
    page_row!(
        rows,
        "blog: an author's posts",
        "Query",
        db.query_by::<Post>("a1"),
        post_size
    );
    page_row!(
        rows,
        "blog: a post's comments",
        "Query, 25 per page",
        db.query_by::<Comment>("p1").page_size(25),
        200
    );
    // A relation load: its plan predicts every request of the tree, for one parent.
    let tally = Tally::default();
    let find = db
        .find::<Post>()
        .matching(Post::ID.eq("p1"))
        .with(Post::comments())
        .tally(&tally);
    let predicted = find.plan()?.predict(1);
    let found = find.first().await?;
    assert_eq!(found.map(|(_, comments)| comments.len()), Some(20));
    rows.push(Row {
        pattern: "blog: a post with its comments",
        request: "find: Query GSI1, then Query",
        predicted,
        tally,
    });

    println!("| access pattern | request | predicted units | measured units | within |");
    println!("|---|---|---|---|---|");
    let mut last = "";
    for row in &rows {
        // Comments repeat: the first stands for them.
        if row.pattern == last && row.pattern == "blog: comment" {
            continue;
        }
        row.print();
        last = row.pattern;
    }
    let misses = rows.iter().filter(|r| r.missed()).count();
    let wide: Vec<&Row> = rows.iter().filter(|r| r.too_wide()).collect();
    println!(
        "\n{} requests measured, {misses} outside their prediction, {} writes predicted \
         wider than {WIDEST_WRITE} units",
        rows.len(),
        wide.len()
    );
    for row in &wide {
        println!("{}: {}", row.pattern, row.predicted);
    }
    if misses > 0 || !wide.is_empty() {
        return Err(format!(
            "{misses} requests consumed what their prediction did not contain, and {} \
             writes were predicted wider than {WIDEST_WRITE} units",
            wide.len()
        )
        .into());
    }
    Ok(())
}
