//! ElectroDB's version-control examples, said in dynorm: each runs the example's function
//! with the arguments the example calls it with, on the service's repositories, issues,
//! pull requests, comments, subscriptions and users
//! (`tests/interop/conformance/version_control.js` runs the same with ElectroDB).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use dynorm::item::UpdateItem;
use dynorm::query::CollectionQuery;
use dynorm::{Client, Error};

use super::version_control::{
    Issue, IssueComment, IssueCommentKey, IssueReview, License, Owned, PrReview, PullRequest,
    PullRequestComment, PullRequestGsi1pkGsi1skIndex, PullRequestKey, Repository,
    RepositoryGsi1pkGsi1skIndex, RepositoryKey, Reviewer, Subscribers, Subscription, User,
};

/// The time of writing both sides use (`NOW` of `conformance/clock.js`).
const NOW: &str = "2024-05-01T12:00:00.000Z";

/// The fixed time of writing, as a date.
fn now() -> DateTime<Utc> {
    NOW.parse().expect("an ISO time")
}

/// The documentation's `IsNotTicket`: no ticket, a subscription to the whole repository.
const IS_NOT_TICKET: &str = "";

/// One of the service's items.
pub enum Record {
    Issue(Issue),
    IssueComment(IssueComment),
    PullRequest(PullRequest),
    PullRequestComment(PullRequestComment),
    Repository(Repository),
    Subscription(Subscription),
    User(User),
}

const OWNER: &str = "tywalch";
const REPO: &str = "electrodb";

/// A set of names.
fn names(names: &[&str]) -> Option<BTreeSet<String>> {
    Some(names.iter().map(|&n| n.to_owned()).collect())
}

/// A user with only a name, a bio and whom they follow and are followed by.
fn user(
    username: &str,
    full_name: &str,
    bio: &str,
    following: &[&str],
    followers: &[&str],
) -> User {
    User {
        username: username.into(),
        full_name: Some(full_name.into()),
        photo: None,
        bio: Some(bio.into()),
        location: None,
        pinned: None,
        following: names(following),
        followers: names(followers),
        created_at: now(),
        updated_at: None,
    }
}

/// A repository with nothing but its privacy and license.
fn repository(owner: &str, name: &str, is_private: bool, license: License) -> Repository {
    Repository {
        repo_name: name.into(),
        repo_owner: owner.into(),
        about: None,
        username: None,
        description: None,
        is_private: Some(is_private),
        license: Some(license),
        default_branch: None,
        topics: None,
        followers: None,
        stars: None,
        created_at: now(),
        updated_at: None,
    }
}

/// An issue of ElectroDB's repository; `status` empty is the default, `Open`.
fn issue(number: &str, username: &str, status: &str, subject: &str, body: &str) -> Issue {
    Issue {
        issue_number: number.into(),
        repo_name: REPO.into(),
        repo_owner: OWNER.into(),
        username: username.into(),
        ticket_type: String::new(),
        ticket_number: String::new(),
        status: status.into(),
        subject: Some(subject.into()),
        body: Some(body.into()),
        created_at: now(),
        updated_at: None,
    }
}

/// A comment on an issue of ElectroDB's repository.
fn issue_comment(
    number: &str,
    id: &str,
    username: &str,
    reply_to: &str,
    body: &str,
) -> IssueComment {
    IssueComment {
        issue_number: number.into(),
        comment_id: id.into(),
        username: username.into(),
        reply_to: reply_to.into(),
        reply_viewed: None,
        repo_name: REPO.into(),
        repo_owner: OWNER.into(),
        body: Some(body.into()),
        created_at: now(),
        updated_at: None,
    }
}

/// A pull request of ElectroDB's repository, with no reviewers.
fn pull_request(number: &str, username: &str, status: &str) -> PullRequest {
    PullRequest {
        pull_request_number: number.into(),
        repo_name: REPO.into(),
        repo_owner: OWNER.into(),
        username: username.into(),
        ticket_type: String::new(),
        ticket_number: String::new(),
        status: status.into(),
        reviewers: None,
        created_at: now(),
        updated_at: None,
    }
}

/// A comment on a pull request of ElectroDB's repository, not viewed yet.
fn pull_request_comment(number: &str, id: &str, username: &str, reply_to: &str) -> Record {
    Record::PullRequestComment(PullRequestComment {
        repo_name: REPO.into(),
        username: username.into(),
        repo_owner: OWNER.into(),
        pull_request_number: number.into(),
        comment_id: id.into(),
        reply_to: reply_to.into(),
        reply_viewed: None,
        created_at: now(),
        updated_at: None,
    })
}

/// A subscription to ElectroDB's repository (`ticket` empty) or to one of its tickets.
fn subscription(username: &str, ticket_type: &str, ticket_number: &str) -> Record {
    Record::Subscription(Subscription {
        repo_name: REPO.into(),
        repo_owner: OWNER.into(),
        username: username.into(),
        ticket_number: ticket_number.into(),
        ticket_type: ticket_type.into(),
        created_at: now(),
        updated_at: None,
    })
}

/// A reviewer's verdict.
fn verdict(approved: bool, at: &str) -> Reviewer {
    Reviewer {
        approved,
        updated_at: at.into(),
    }
}

/// The service's data, as `version_control.js` declares it: every example starts from it.
pub fn seed(_example: &str) -> Vec<Record> {
    vec![
        Record::User(User {
            photo: Some("https://example.com/tywalch.png".into()),
            location: Some("Atlanta".into()),
            pinned: Some(serde_json::json!(["electrodb", "recipes"])),
            ..user(
                "tywalch",
                "Tyler Walch",
                "Writes ElectroDB.",
                &["sparky"],
                &["sparky", "ann"],
            )
        }),
        Record::User(user(
            "sparky",
            "Sparky",
            "Reviews pull requests.",
            &["tywalch"],
            &["tywalch"],
        )),
        Record::Repository(Repository {
            about: Some("A DynamoDB library".into()),
            description: Some("Single-table design made simple".into()),
            topics: names(&["dynamodb", "typescript"]),
            followers: names(&["ann"]),
            stars: names(&["ann", "sparky"]),
            ..repository(OWNER, REPO, false, License::Mit)
        }),
        Record::Repository(Repository {
            about: Some("Private notes".into()),
            ..repository(OWNER, "notes", true, License::Apache2)
        }),
        Record::Repository(Repository {
            default_branch: Some("trunk".into()),
            ..repository(OWNER, "recipes", false, License::Unlicense)
        }),
        Record::Repository(Repository {
            about: Some("A fork".into()),
            ..repository("sparky", REPO, false, License::Mit)
        }),
        Record::Issue(issue(
            "287",
            "sparky",
            "",
            "Keys fold case",
            "Why lower case?",
        )),
        Record::Issue(issue("301", "tywalch", "Closed", "Docs", "Write them")),
        Record::Issue(issue(
            "302",
            "tywalch",
            "",
            "Collections",
            "Sub-collections",
        )),
        Record::IssueComment(issue_comment(
            "287",
            "comment-001",
            "sparky",
            "tywalch",
            "Any news?",
        )),
        Record::IssueComment(IssueComment {
            reply_viewed: Some("2024-04-30T09:00:00.000Z".into()),
            ..issue_comment("287", "comment-002", "tywalch", "sparky", "Soon")
        }),
        Record::IssueComment(issue_comment(
            "301",
            "comment-003",
            "ann",
            "tywalch",
            "Done?",
        )),
        Record::PullRequest(PullRequest {
            reviewers: Some(BTreeMap::from([
                (
                    "sparky".to_owned(),
                    verdict(false, "2024-04-29T10:00:00.000Z"),
                ),
                (
                    "tywalch".to_owned(),
                    verdict(true, "2024-04-30T11:00:00.000Z"),
                ),
            ])),
            ..pull_request("414", "ann", "")
        }),
        Record::PullRequest(pull_request("415", "tywalch", "")),
        Record::PullRequest(pull_request("416", "tywalch", "Closed")),
        pull_request_comment("414", "comment-101", "tywalch", "ann"),
        pull_request_comment("414", "comment-102", "sparky", "tywalch"),
        subscription("sparky", IS_NOT_TICKET, IS_NOT_TICKET),
        subscription("tywalch", IS_NOT_TICKET, IS_NOT_TICKET),
        subscription("ann", "Issue", "287"),
    ]
}

/// Writes the items an example starts from.
pub async fn put_seed(example: &str, db: &Client) -> Result<(), Error> {
    for record in seed(example) {
        match record {
            Record::Issue(i) => db.put(&i).send().await?,
            Record::IssueComment(c) => db.put(&c).send().await?,
            Record::PullRequest(p) => db.put(&p).send().await?,
            Record::PullRequestComment(c) => db.put(&c).send().await?,
            Record::Repository(r) => db.put(&r).send().await?,
            Record::Subscription(s) => db.put(&s).send().await?,
            Record::User(u) => db.put(&u).send().await?,
        }
    }
    Ok(())
}

/// Every item of the table, as dynorm reads it through each entity's scan, as text.
pub async fn read_all(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<Issue>(db).await?,
        super::scanned::<IssueComment>(db).await?,
        super::scanned::<PullRequest>(db).await?,
        super::scanned::<PullRequestComment>(db).await?,
        super::scanned::<Repository>(db).await?,
        super::scanned::<Subscription>(db).await?,
        super::scanned::<User>(db).await?,
    ]
    .concat();
    all.sort();
    Ok(all)
}

/// Why dynorm does not say an example, or `None` when it does.
pub fn unsaid(name: &str) -> Option<&'static str> {
    match name {
        "version-control-unread-comments" => Some(
            "`between` bounds the whole composed key, `updatedAt` and `replyViewed`, with text that is not a date (`0000-00-00`): a key condition bounds one field, and `updated_at` is a `DateTime`",
        ),
        _ => None,
    }
}

/// The documentation's `IssueCommentIds`: a comment's key, and its author.
pub struct IssueCommentIds<'a> {
    pub repo_owner: &'a str,
    pub repo_name: &'a str,
    pub issue_number: &'a str,
    pub comment_id: &'a str,
    pub username: &'a str,
}

/// `getOwnedItems`: everything `username` owns, every page of it.
async fn get_owned_items(db: &Client, username: &str) -> Result<Vec<Owned>, Error> {
    db.collection::<Owned>(username).all().await
}

/// `followRepository`: `follower` joins the repository's followers (ElectroDB's `update`
/// creates the item when it does not exist: an upsert).
async fn follow_repository(
    db: &Client,
    owner: &str,
    name: &str,
    follower: &str,
) -> Result<(), Error> {
    let key = RepositoryKey {
        repo_owner: owner.to_owned(),
        repo_name: name.to_owned(),
    };
    db.update::<Repository>(key)
        .add_to_set(Repository::FOLLOWERS, BTreeSet::from([follower.to_owned()]))
        .upsert()
        .send()
        .await
}

/// `approvePullRequest`: the reviewer's verdict, under their name in `reviewers`, a key
/// chosen at run time, which the pull request must hold already.
async fn approve_pull_request(
    db: &Client,
    owner: &str,
    name: &str,
    number: &str,
    reviewer: &str,
) -> Result<(), Error> {
    let key = PullRequestKey {
        repo_owner: owner.to_owned(),
        repo_name: name.to_owned(),
        pull_request_number: number.to_owned(),
    };
    db.update::<PullRequest>(key)
        .set_entry(PullRequest::REVIEWERS, reviewer, verdict(true, NOW))
        .condition(PullRequest::REVIEWERS.has_key(reviewer))
        .send()
        .await
}

/// `reviewIssue`: an issue and its comments, newest first.
fn review_issue(
    db: &Client,
    owner: &str,
    name: &str,
    number: &str,
) -> CollectionQuery<IssueReview> {
    db.collection::<IssueReview>((owner.to_owned(), name.to_owned(), number.to_owned()))
        .descending()
}

/// `reviewPullRequest`: a pull request and its comments, newest first.
fn review_pull_request(
    db: &Client,
    owner: &str,
    name: &str,
    number: &str,
) -> CollectionQuery<PrReview> {
    db.collection::<PrReview>((owner.to_owned(), name.to_owned(), number.to_owned()))
        .descending()
}

/// `getPublicRepository`: the public repositories of `username`.
async fn get_public_repository(db: &Client, username: &str) -> Result<Vec<Repository>, Error> {
    db.query_by::<RepositoryGsi1pkGsi1skIndex>(username)
        .range(Repository::IS_PRIVATE.eq(false))
        .all()
        .await
}

/// `markAsRead` of an issue's comment: the reply is viewed now, if it is to `user`.
fn mark_as_read(db: &Client, user: &str, comment: &IssueCommentIds) -> UpdateItem<IssueComment> {
    let key = IssueCommentKey {
        repo_owner: comment.repo_owner.to_owned(),
        repo_name: comment.repo_name.to_owned(),
        issue_number: comment.issue_number.to_owned(),
        comment_id: comment.comment_id.to_owned(),
    };
    db.update::<IssueComment>(key)
        .set(IssueComment::REPLY_VIEWED, NOW)
        // The example's `where(eq(replyTo, user))`: `composite` requires the stored value,
        // and the update needs it, since it writes the index's keys together: `gsi2sk` is
        // built from `updated_at`, which every write changes, and `gsi2pk` from `reply_to`.
        .composite(IssueComment::REPLY_TO, user)
}

/// `getSubscribed`: a ticket's subscribers, or with `IsNotTicket` the repository's.
fn get_subscribed(
    db: &Client,
    owner: &str,
    name: &str,
    ticket_number: &str,
) -> CollectionQuery<Subscribers> {
    db.collection::<Subscribers>((owner.to_owned(), name.to_owned(), ticket_number.to_owned()))
}

/// `getUserPullRequests`: the pull requests of `username`, of `status` if given, newest
/// first.
async fn get_user_pull_requests(
    db: &Client,
    username: &str,
    status: Option<&str>,
) -> Result<Vec<PullRequest>, Error> {
    let mut query = db.query_by::<PullRequestGsi1pkGsi1skIndex>(username);
    if let Some(status) = status {
        query = query.range(PullRequest::STATUS.eq(status));
    }
    query.descending().all().await
}

/// The example's function, called as the example calls it: how many items it read.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let read = match name {
        "version-control-approve-pull-request" => {
            approve_pull_request(db, "tywalch", "electrodb", "414", "sparky").await?;
            return Ok(None);
        }
        "version-control-first-page-load" => get_owned_items(db, "tywalch").await?.len(),
        "version-control-follow-repository" => {
            follow_repository(db, "tywalch", "electrodb", "sparky").await?;
            return Ok(None);
        }
        "version-control-issue-review" => review_issue(db, "tywalch", "electrodb", "287")
            .all()
            .await?
            .len(),
        "version-control-pr-review" => review_pull_request(db, "tywalch", "electrodb", "414")
            .all()
            .await?
            .len(),
        "version-control-public-repositories" => get_public_repository(db, "tywalch").await?.len(),
        "version-control-read-reply" => {
            let comment = IssueCommentIds {
                repo_owner: "tywalch",
                repo_name: "electrodb",
                issue_number: "287",
                comment_id: "comment-001",
                username: "sparky",
            };
            mark_as_read(db, "tywalch", &comment).send().await?;
            return Ok(None);
        }
        "version-control-subscribers" => get_subscribed(db, "tywalch", "electrodb", IS_NOT_TICKET)
            .all()
            .await?
            .len(),
        "version-control-user-pull-requests" => get_user_pull_requests(db, "tywalch", Some("Open"))
            .await?
            .len(),
        _ => panic!("no dynorm side for the example {name}"),
    };
    Ok(Some(read))
}
