//! ElectroDB's quick start examples on its bookstore's `Book`, said in dynorm.

use std::collections::BTreeSet;

use dynorm::{Client, Error};

use super::books::{Book, BookGsi1pkGsi1skIndex, BookKey, Condition};

fn it() -> Book {
    Book {
        store_id: "pdx-45".into(),
        book_id: "beedabe8-e34e-4d41-9272-0755be9a2a9f".into(),
        price: 15.0,
        title: Some("IT".into()),
        author: Some("Stephen King".into()),
        condition: Condition::Good,
        genre: Some(BTreeSet::from(["HORROR".to_owned(), "THRILLER".to_owned()])),
        published: Some("1986-09-15".into()),
    }
}

fn carrie() -> Book {
    Book {
        book_id: "0c8f3c1e-4d0a-4b7e-9a52-5d0f2d0f7c11".into(),
        price: 8.0,
        title: Some("Carrie".into()),
        condition: Condition::Fair,
        genre: Some(BTreeSet::from(["HORROR".to_owned()])),
        published: Some("1974-04-05".into()),
        ..it()
    }
}

fn key() -> BookKey {
    BookKey {
        store_id: "pdx-45".into(),
        book_id: "beedabe8-e34e-4d41-9272-0755be9a2a9f".into(),
    }
}

/// The books an example starts from, as `books.js` declares them.
pub fn seed(name: &str) -> Vec<Book> {
    match name {
        "quick-start-create-book" => Vec::new(),
        "quick-start-get-book" | "quick-start-update-book" => vec![it()],
        _ => vec![it(), carrie()],
    }
}

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// The example's request; a read returns how many books it found.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    Ok(match name {
        "quick-start-create-book" => {
            db.create(&it()).send().await?;
            None
        }
        "quick-start-get-book" => Some(db.get::<Book>(key()).send().await?.into_iter().count()),
        "quick-start-update-book" => {
            db.update::<Book>(key())
                .set(Book::PRICE, 10.0)
                .set(Book::CONDITION, Condition::Fair)
                .send()
                .await?;
            None
        }
        "quick-start-books-by-author" => Some(
            db.query_by::<BookGsi1pkGsi1skIndex>("Stephen King".to_owned())
                .all()
                .await?
                .len(),
        ),
        "quick-start-books-by-store-location" => Some(
            db.query_by::<Book>("pdx-45")
                .filter(Book::PRICE.le(10.0))
                .all()
                .await?
                .len(),
        ),
        _ => panic!("no dynorm side for the example {name}"),
    })
}
