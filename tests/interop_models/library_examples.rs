//! ElectroDB's library system examples, said in dynorm: each runs the example's queries on
//! the library's holdings (`tests/interop/conformance/library.js` runs the same with
//! ElectroDB).

use dynorm::{Client, Error};

use super::library::{
    Account, Address, Author, Book, BookGsi1pkGsi1skIndex, BookGsi2pkGsi2skIndex,
    BookGsi3pkGsi3skIndex, Detail, Genre, GenreGsi1pkGsi1skIndex, GenreGsi2pkGsi2skIndex,
    GenreGsi3pkGsi3skIndex, Member, Titles, Works,
};

/// One of the library's items.
pub enum Holding {
    Author(Author),
    Book(Book),
    Genre(Genre),
    Member(Member),
}

fn author(first: &str, last: &str, birthday: &str, bio: &str) -> Author {
    Author {
        author_first_name: first.into(),
        author_last_name: last.into(),
        birthday: birthday.into(),
        bio: bio.into(),
    }
}

/// A copy of a book by Stephen King.
fn copy(title: &str, isbn: &str, id: &str, loan: Option<(&str, &str)>, end: &str) -> Book {
    let (publisher, description, release_date) = match title {
        "It" => ("Viking", "A clown", "1986-09-15"),
        _ => ("Doubleday", "A hotel", "1977-01-28"),
    };
    Book {
        book_id: id.into(),
        book_title: title.into(),
        description: description.into(),
        publisher: publisher.into(),
        release_date: release_date.into(),
        author_first_name: "Stephen".into(),
        author_last_name: "King".into(),
        isbn: isbn.into(),
        loan_start_date: loan.map(|(_, start)| start.into()),
        loan_end_date: Some(end.into()),
        member_id: loan.map(|(member, _)| member.into()),
    }
}

fn genre(title: &str, isbn: &str, genre: &str, subgenre: &str) -> Genre {
    Genre {
        genre: genre.into(),
        isbn: isbn.into(),
        book_title: Some(title.into()),
        author_first_name: "Stephen".into(),
        author_last_name: "King".into(),
        subgenre: subgenre.into(),
    }
}

const IT: &str = "9783453435773";
const SHINING: &str = "9780307743657";

/// The library's holdings, as `library.js` declares them: every example starts from them.
pub fn seed(_example: &str) -> Vec<Holding> {
    vec![
        Holding::Author(author("Stephen", "King", "1947-09-21", "Writes horror.")),
        Holding::Author(author("John", "Smith", "1970-01-01", "Writes history.")),
        Holding::Author(author("Sarah", "King", "1981-05-02", "Writes poems.")),
        Holding::Book(copy(
            "It",
            IT,
            "it-1",
            Some(("0000001", "2022-07-01")),
            "2022-08-15",
        )),
        Holding::Book(copy("It", IT, "it-2", None, "AVAILABLE")),
        Holding::Book(Book {
            release_date: "2017-09-05".into(),
            ..copy("It", IT, "it-3", None, "AVAILABLE")
        }),
        Holding::Book(copy(
            "The Shining",
            SHINING,
            "shining-1",
            Some(("0000001", "2022-06-01")),
            "2022-07-01",
        )),
        Holding::Genre(genre("It", IT, "Horror", "Killer Clowns")),
        Holding::Genre(genre("It", IT, "Horror", "Coming of Age")),
        Holding::Genre(genre("The Shining", SHINING, "Horror", "Haunted Hotels")),
        Holding::Genre(genre("The Shining", SHINING, "Drama", "Family")),
        Holding::Member(Member {
            member_id: "0000001".into(),
            membership_start_date: Some("2020-01-01".into()),
            membership_end_date: Some("2025-01-01".into()),
            address: Some(Address {
                street_address: Some("1 Main St".into()),
                city: Some("Atlanta".into()),
                state: Some("GA".into()),
                zip: Some("30301".into()),
            }),
        }),
    ]
}

/// Writes the holdings an example starts from.
pub async fn put_seed(example: &str, db: &Client) -> Result<(), Error> {
    for holding in seed(example) {
        match holding {
            Holding::Author(a) => db.put(&a).send().await?,
            Holding::Book(b) => db.put(&b).send().await?,
            Holding::Genre(g) => db.put(&g).send().await?,
            Holding::Member(m) => db.put(&m).send().await?,
        }
    }
    Ok(())
}

/// Every item of the table, as dynorm reads it through each entity's scan, as text.
pub async fn read_all(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<Author>(db).await?,
        super::scanned::<Book>(db).await?,
        super::scanned::<Genre>(db).await?,
        super::scanned::<Member>(db).await?,
    ]
    .concat();
    all.sort();
    Ok(all)
}

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// Stephen King, as the examples name him: ElectroDB's keys fold case, and so do dynorm's.
fn stephen() -> (String, String) {
    ("king".into(), "stephen".into())
}

/// The example's queries, in order: how many items they read in all.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let read = match name {
        "library-system-account-collection" => {
            db.collection::<Account>("0000001").all().await?.len()
        }
        "library-system-author-full-name" => db
            .query_by::<Author>("smith")
            .range(Author::AUTHOR_FIRST_NAME.eq("john"))
            .all()
            .await?
            .len(),
        "library-system-author-partial-name" => db
            .query_by::<Author>("king")
            .range(Author::AUTHOR_FIRST_NAME.begins_with("s"))
            .all()
            .await?
            .len(),
        "library-system-available-copies" => db
            .query_by::<BookGsi2pkGsi2skIndex>(stephen())
            .range(Book::LOAN_END_DATE.eq("AVAILABLE"))
            .all()
            .await?
            .len(),
        "library-system-book-genres" => {
            db.query_by::<Genre>(IT).all().await?.len()
                + db.query_by::<GenreGsi3pkGsi3skIndex>("it")
                    .all()
                    .await?
                    .len()
        }
        "library-system-book-subgenres" => {
            db.query_by::<Genre>(IT)
                .range(Genre::GENRE.eq("horror"))
                .all()
                .await?
                .len()
                + db.query_by::<GenreGsi3pkGsi3skIndex>("it")
                    .range(Genre::GENRE.eq("horror"))
                    .all()
                    .await?
                    .len()
        }
        "library-system-books-by-author" => db.query_by::<Author>("king").all().await?.len(),
        "library-system-books-by-release-date" => {
            db.query_by::<BookGsi3pkGsi3skIndex>("it")
                .range(Book::RELEASE_DATE.ge("1990-00-00"))
                .all()
                .await?
                .len()
                + db.query_by::<BookGsi3pkGsi3skIndex>("it")
                    .range(Book::RELEASE_DATE.between("1990-00-00", "2019-99-99"))
                    .all()
                    .await?
                    .len()
        }
        "library-system-books-by-title" => db
            .query_by::<BookGsi3pkGsi3skIndex>("it")
            .all()
            .await?
            .len(),
        "library-system-books-in-genre" => db
            .query_by::<GenreGsi1pkGsi1skIndex>("horror")
            .all()
            .await?
            .len(),
        "library-system-copies-by-author" => db
            .query_by::<BookGsi2pkGsi2skIndex>(stephen())
            .all()
            .await?
            .len(),
        "library-system-copies-by-isbn" => db.query_by::<Book>(IT).all().await?.len(),
        "library-system-detail-collection" => {
            db.collection::<Detail>(IT).all().await?.len()
                + db.collection::<Titles>("it").all().await?.len()
        }
        "library-system-genre-subgenre" => db
            .query_by::<GenreGsi1pkGsi1skIndex>("horror")
            .range(Genre::SUBGENRE.eq("killer clowns"))
            .all()
            .await?
            .len(),
        "library-system-genres-by-author" => db
            .query_by::<GenreGsi2pkGsi2skIndex>(stephen())
            .all()
            .await?
            .len(),
        "library-system-loan-count" | "library-system-member-loans" => db
            .query_by::<BookGsi1pkGsi1skIndex>("0000001")
            .all()
            .await?
            .len(),
        "library-system-member-info" => db.query_by::<Member>("0000001").all().await?.len(),
        "library-system-overdue-books" => db
            .query_by::<BookGsi1pkGsi1skIndex>("0000001")
            .range(Book::LOAN_END_DATE.gt("2022-07-30"))
            .all()
            .await?
            .len(),
        "library-system-subgenres-by-author" => db
            .query_by::<GenreGsi2pkGsi2skIndex>(stephen())
            .range(Genre::GENRE.eq("horror"))
            .all()
            .await?
            .len(),
        "library-system-unavailable-copies" => db
            .query_by::<BookGsi2pkGsi2skIndex>(stephen())
            .range(Book::LOAN_END_DATE.lt("AVAILABLE"))
            .all()
            .await?
            .len(),
        "library-system-works-collection" => db.collection::<Works>(stephen()).all().await?.len(),
        _ => panic!("no dynorm side for the example {name}"),
    };
    Ok(Some(read))
}
