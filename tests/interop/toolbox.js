// The DynamoDB-Toolbox side of tests/interop.rs.
//
//   node toolbox.js write  <endpoint> <table>
//   node toolbox.js verify <endpoint> <table>
//
// `write` puts a Pokemon with DynamoDB-Toolbox. `verify` reads what dynorm wrote with the
// entity's own parser (its `_et` check and required timestamps), and compares every stored
// attribute with what DynamoDB-Toolbox writes for the same data.
"use strict";

const { GetCommand } = require("@aws-sdk/lib-dynamodb");
const models = require("./models.js");
const { assert, sameItem, run } = require("./check.js");
const { GetItemCommand, PutItemCommand } = models.toolbox;

const [mode, endpoint, tableName] = process.argv.slice(2);
const client = models.documentClient(endpoint);
const { Pokemon } = models.pokedex(client, tableName);

async function write() {
  await Pokemon.build(PutItemCommand)
    .item({ pokemonId: "pikachu", name: "Pikachu", level: 12, types: new Set(["electric"]) })
    .send();
  return { written: 1 };
}

async function owned(pokemonId) {
  const { Item } = await Pokemon.build(GetItemCommand).key({ pokemonId }).send();
  assert.ok(Item, `${pokemonId}: DynamoDB-Toolbox does not read it`);
  const stored = (
    await client.send(new GetCommand({ TableName: tableName, Key: { pk: `POKEMON#${pokemonId}`, sk: "INFO" } }))
  ).Item;
  const { created, modified, ...data } = Item;
  const expected = Pokemon.build(PutItemCommand).item(data).params().Item;
  sameItem(`POKEMON ${pokemonId}`, stored, expected);
  assert.ok(created <= modified, `${pokemonId}: created ${created} after modified ${modified}`);
  return Item;
}

async function verify() {
  const bulbasaur = await owned("bulbasaur");
  assert.equal(bulbasaur.level, 5);
  assert.deepEqual([...bulbasaur.types].sort(), ["grass", "poison"]);
  const pikachu = await owned("pikachu");
  assert.equal(pikachu.level, 13, "dynorm's update raised the level");
  assert.notEqual(pikachu.created, pikachu.modified, "an update keeps _ct and moves _md");
  return { verified: 2 };
}

run(() => (mode === "write" ? write() : verify()));
