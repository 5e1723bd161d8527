// ElectroDB's quick start: a bookstore's `Book` entity, by store location and by author.
"use strict";

const { Entity } = require("electrodb");

const TABLE = { keys: ["pk", "sk"] };

function entity(client, table) {
  return new Entity(
    {
      model: { entity: "book", version: "1", service: "store" },
      attributes: {
        storeId: { type: "string" },
        bookId: { type: "string" },
        price: { type: "number", required: true },
        title: { type: "string" },
        author: { type: "string" },
        condition: { type: ["EXCELLENT", "GOOD", "FAIR", "POOR"], required: true },
        genre: { type: "set", items: "string" },
        published: { type: "string" },
      },
      indexes: {
        byLocation: {
          pk: { field: "pk", composite: ["storeId"] },
          sk: { field: "sk", composite: ["bookId"] },
        },
        byAuthor: {
          index: "gsi1pk-gsi1sk-index",
          pk: { field: "gsi1pk", composite: ["author"] },
          sk: { field: "gsi1sk", composite: ["title"] },
        },
      },
    },
    { client, table },
  );
}

const it = {
  bookId: "beedabe8-e34e-4d41-9272-0755be9a2a9f",
  storeId: "pdx-45",
  author: "Stephen King",
  title: "IT",
  condition: "GOOD",
  price: 15,
  genre: ["HORROR", "THRILLER"],
  published: "1986-09-15",
};
// A second book in the store, under the price filter.
const carrie = {
  bookId: "0c8f3c1e-4d0a-4b7e-9a52-5d0f2d0f7c11",
  storeId: "pdx-45",
  author: "Stephen King",
  title: "Carrie",
  condition: "FAIR",
  price: 8,
  genre: ["HORROR"],
  published: "1974-04-05",
};
const key = { bookId: it.bookId, storeId: it.storeId };

const examples = [
  { name: "quick-start-create-book", run: (e) => e.create(it) },
  { name: "quick-start-get-book", seed: [it], run: (e) => e.get(key) },
  { name: "quick-start-update-book", seed: [it], run: (e) => e.patch(key).set({ price: 10, condition: "FAIR" }) },
  { name: "quick-start-books-by-author", seed: [it, carrie], run: (e) => e.query.byAuthor({ author: "Stephen King" }) },
  {
    name: "quick-start-books-by-store-location",
    seed: [it, carrie],
    run: (e) => e.query.byLocation({ storeId: "pdx-45" }).where(({ price }, { lte }) => lte(price, 10)),
  },
];

module.exports = { entity, TABLE, identity: { entity: "book", version: "1" }, examples };
