// ElectroDB's library system: four entities of the service "library" in one table (an
// author, a book copy, a book's genre and a member), with its queries and its collections
// `account` (a member and their loans), `works` (an author's books and genres), `detail`
// (a book's copies and genres) and `titles` (a title's copies and genres).
"use strict";

const { Entity, Service } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

const model = (entity) => ({ entity, version: "1", service: "library" });
const string = { type: "string" };
const required = { type: "string", required: true };

function entity(client, table) {
  const author = new Entity({
    model: model("author"),
    attributes: { authorFirstName: required, authorLastName: required, birthday: string, bio: required },
    indexes: {
      writer: {
        pk: { field: "pk", composite: ["authorLastName"] },
        sk: { field: "sk", composite: ["authorFirstName", "birthday"] },
      },
      info: {
        collection: ["works"],
        index: "gsi2pk-gsi2sk-index",
        pk: { field: "gsi2pk", composite: ["authorLastName", "authorFirstName"] },
        sk: { field: "gsi2sk", composite: [] },
      },
    },
  });
  const book = new Entity({
    model: model("book"),
    attributes: {
      bookId: string,
      bookTitle: required,
      description: required,
      publisher: required,
      releaseDate: required,
      authorFirstName: required,
      authorLastName: required,
      isbn: required,
      loanStartDate: string,
      loanEndDate: string,
      memberId: string,
    },
    indexes: {
      copies: {
        collection: ["detail"],
        pk: { field: "pk", composite: ["isbn"] },
        sk: { field: "sk", composite: ["bookId"] },
      },
      loans: {
        collection: ["account"],
        index: "gsi1pk-gsi1sk-index",
        pk: { field: "gsi1pk", composite: ["memberId"] },
        sk: { field: "gsi1sk", composite: ["loanEndDate"] },
      },
      author: {
        collection: ["works"],
        index: "gsi2pk-gsi2sk-index",
        pk: { field: "gsi2pk", composite: ["authorLastName", "authorFirstName"] },
        sk: { field: "gsi2sk", composite: ["loanEndDate"] },
      },
      releases: {
        collection: ["titles"],
        index: "gsi3pk-gsi3sk-index",
        pk: { field: "gsi3pk", composite: ["bookTitle"] },
        sk: { field: "gsi3sk", composite: ["releaseDate"] },
      },
    },
  });
  const genre = new Entity({
    model: model("genre"),
    attributes: {
      genre: required,
      isbn: string,
      bookTitle: string,
      authorFirstName: required,
      authorLastName: required,
      subgenre: string,
    },
    indexes: {
      book: {
        collection: ["detail"],
        pk: { field: "pk", composite: ["isbn"] },
        sk: { field: "sk", composite: ["genre", "subgenre"] },
      },
      categories: {
        index: "gsi1pk-gsi1sk-index",
        pk: { field: "gsi1pk", composite: ["genre"] },
        sk: { field: "gsi1sk", composite: ["subgenre"] },
      },
      author: {
        collection: ["works"],
        index: "gsi2pk-gsi2sk-index",
        pk: { field: "gsi2pk", composite: ["authorLastName", "authorFirstName"] },
        sk: { field: "gsi2sk", composite: ["genre"] },
      },
      title: {
        collection: ["titles"],
        index: "gsi3pk-gsi3sk-index",
        pk: { field: "gsi3pk", composite: ["bookTitle"] },
        sk: { field: "gsi3sk", composite: ["genre", "subgenre"] },
      },
    },
  });
  const member = new Entity({
    model: model("member"),
    attributes: {
      memberId: string,
      membershipStartDate: string,
      membershipEndDate: string,
      address: {
        type: "map",
        properties: { streetAddress: string, city: string, state: string, zip: string },
      },
    },
    indexes: {
      member: {
        pk: { field: "pk", composite: ["memberId"] },
        sk: { field: "sk", composite: [] },
      },
      _: {
        collection: ["account"],
        index: "gsi1pk-gsi1sk-index",
        pk: { field: "gsi1pk", composite: ["memberId"] },
        sk: { field: "gsi1sk", composite: [] },
      },
    },
  });
  return new Service({ author, book, genre, member }, { client, table });
}

// The library's holdings. Names and titles are stored as written; ElectroDB's keys fold
// them to lower case, so the examples' lower-case queries find them.
const king = { authorFirstName: "Stephen", authorLastName: "King" };
const it = { ...king, bookTitle: "It", isbn: "9783453435773", publisher: "Viking", description: "A clown", releaseDate: "1986-09-15" };
const shining = { ...king, bookTitle: "The Shining", isbn: "9780307743657", publisher: "Doubleday", description: "A hotel", releaseDate: "1977-01-28" };
const seed = [
  ["author", { ...king, birthday: "1947-09-21", bio: "Writes horror." }],
  ["author", { authorFirstName: "John", authorLastName: "Smith", birthday: "1970-01-01", bio: "Writes history." }],
  ["author", { authorFirstName: "Sarah", authorLastName: "King", birthday: "1981-05-02", bio: "Writes poems." }],
  ["book", { ...it, bookId: "it-1", memberId: "0000001", loanStartDate: "2022-07-01", loanEndDate: "2022-08-15" }],
  ["book", { ...it, bookId: "it-2", loanEndDate: "AVAILABLE" }],
  ["book", { ...it, bookId: "it-3", releaseDate: "2017-09-05", loanEndDate: "AVAILABLE" }],
  ["book", { ...shining, bookId: "shining-1", memberId: "0000001", loanStartDate: "2022-06-01", loanEndDate: "2022-07-01" }],
  ["genre", { ...king, genre: "Horror", subgenre: "Killer Clowns", isbn: it.isbn, bookTitle: "It" }],
  ["genre", { ...king, genre: "Horror", subgenre: "Coming of Age", isbn: it.isbn, bookTitle: "It" }],
  ["genre", { ...king, genre: "Horror", subgenre: "Haunted Hotels", isbn: shining.isbn, bookTitle: "The Shining" }],
  ["genre", { ...king, genre: "Drama", subgenre: "Family", isbn: shining.isbn, bookTitle: "The Shining" }],
  [
    "member",
    {
      memberId: "0000001",
      membershipStartDate: "2020-01-01",
      membershipEndDate: "2025-01-01",
      address: { streetAddress: "1 Main St", city: "Atlanta", state: "GA", zip: "30301" },
    },
  ],
];

const stephen = { authorLastName: "king", authorFirstName: "stephen" };
const q = (name, entityName, ...runs) => ({ name, entityName, seed, runs });
/** A collection's example: its reads return the items of several entities. */
const c = (...args) => ({ ...q(...args), collection: true });

const examples = [
  c("library-system-account-collection", "member, book", (l) => l.collections.account({ memberId: "0000001" })),
  q("library-system-author-full-name", "author", (l) => l.entities.author.query.writer({ authorLastName: "smith", authorFirstName: "john" })),
  q("library-system-author-partial-name", "author", (l) => l.entities.author.query.writer({ authorLastName: "king" }).begins({ authorFirstName: "s" })),
  q("library-system-available-copies", "book", (l) => l.entities.book.query.author({ ...stephen, loanEndDate: "AVAILABLE" })),
  q(
    "library-system-book-genres",
    "genre",
    (l) => l.entities.genre.query.book({ isbn: "9783453435773" }),
    (l) => l.entities.genre.query.title({ bookTitle: "it" }),
  ),
  q(
    "library-system-book-subgenres",
    "genre",
    (l) => l.entities.genre.query.book({ isbn: "9783453435773", genre: "horror" }),
    (l) => l.entities.genre.query.title({ bookTitle: "it", genre: "horror" }),
  ),
  q("library-system-books-by-author", "author", (l) => l.entities.author.query.writer({ authorLastName: "king" })),
  q(
    "library-system-books-by-release-date",
    "book",
    (l) => l.entities.book.query.releases({ bookTitle: "it" }).gte({ releaseDate: "1990-00-00" }),
    (l) => l.entities.book.query.releases({ bookTitle: "it" }).between({ releaseDate: "1990-00-00" }, { releaseDate: "2019-99-99" }),
  ),
  q("library-system-books-by-title", "book", (l) => l.entities.book.query.releases({ bookTitle: "it" })),
  q("library-system-books-in-genre", "genre", (l) => l.entities.genre.query.categories({ genre: "horror" })),
  q("library-system-copies-by-author", "book", (l) => l.entities.book.query.author(stephen)),
  q("library-system-copies-by-isbn", "book", (l) => l.entities.book.query.copies({ isbn: "9783453435773" })),
  c(
    "library-system-detail-collection",
    "book, genre",
    (l) => l.collections.detail({ isbn: "9783453435773" }),
    (l) => l.collections.titles({ bookTitle: "it" }),
  ),
  q("library-system-genre-subgenre", "genre", (l) => l.entities.genre.query.categories({ genre: "horror", subgenre: "killer clowns" })),
  q("library-system-genres-by-author", "genre", (l) => l.entities.genre.query.author(stephen)),
  q("library-system-loan-count", "book", (l) => l.entities.book.query.loans({ memberId: "0000001" })),
  q("library-system-member-info", "member", (l) => l.entities.member.query.member({ memberId: "0000001" })),
  q("library-system-member-loans", "book", (l) => l.entities.book.query.loans({ memberId: "0000001" })),
  q("library-system-overdue-books", "book", (l) => l.entities.book.query.loans({ memberId: "0000001" }).gt({ loanEndDate: "2022-07-30" })),
  q("library-system-subgenres-by-author", "genre", (l) => l.entities.genre.query.author({ ...stephen, genre: "horror" })),
  q("library-system-unavailable-copies", "book", (l) => l.entities.book.query.author(stephen).lt({ loanEndDate: "AVAILABLE" })),
  c(
    "library-system-works-collection",
    "author, book, genre",
    (l) => l.collections.works(stephen),
  ),
];

const identities = ["author", "book", "genre", "member"].map((entity) => ({ entity, version: "1" }));

module.exports = { entity, TABLE, identity: { entity: "library", version: "1" }, identities, examples };
