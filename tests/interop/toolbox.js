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
const { GetItemCommand, PutItemCommand, UpdateItemCommand } = models.toolbox;

const [mode, endpoint, tableName] = process.argv.slice(2);
const client = models.documentClient(endpoint);
const { table, Pokemon } = models.pokedex(client, tableName);
const { Trainer, Badge, Gym } = models.trainers(table);

async function write() {
  await Pokemon.build(PutItemCommand)
    .item({ pokemonId: "pikachu", name: "Pikachu", level: 12, types: new Set(["electric"]) })
    .send();
  await Trainer.build(PutItemCommand)
    .item({ trainerId: "ash", name: "Ash", home: { town: "Pallet", rival: { name: "Gary" } } })
    .send();
  await Gym.build(PutItemCommand)
    .item({ gymId: "pewter", leader: "Brock", city: "pewter", address: { street: "Rock Way", number: 1 } })
    .send();
  return { written: 3 };
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

  // Written by dynorm without `timestamps`: on by default, as in DynamoDB-Toolbox, and a
  // nested None left out, since Toolbox's parser refuses a NULL for an optional field.
  const { Item: misty } = await Trainer.build(GetItemCommand).key({ trainerId: "misty" }).send();
  assert.ok(misty, "misty: DynamoDB-Toolbox does not read it");
  const storedMisty = (
    await client.send(new GetCommand({ TableName: tableName, Key: { pk: "TRAINER#misty", sk: "PROFILE" } }))
  ).Item;
  const { created, modified, ...mistyData } = misty;
  assert.ok(created && modified, "misty has _ct and _md");
  sameItem("TRAINER misty", storedMisty, Trainer.build(PutItemCommand).item(mistyData).params().Item);
  assert.deepEqual(misty.home, { town: "Cerulean", rival: { name: "Brock" } });
  const { Item: cascade } = await Badge.build(GetItemCommand).key({ badgeId: "cascade" }).send();
  assert.ok(cascade && cascade.created === undefined, "timestamps = false writes no _ct");

  // Computed, transformed and default attributes and a path update, both ways: dynorm
  // wrote Cerulean's gym, and moved Pewter's to another number and leader.
  const gym = async (gymId) => {
    const { Item } = await Gym.build(GetItemCommand).key({ gymId }).send();
    assert.ok(Item, `GYM ${gymId}: DynamoDB-Toolbox does not read it`);
    const stored = (
      await client.send(new GetCommand({ TableName: tableName, Key: { pk: `GYM#${gymId}`, sk: "INFO" } }))
    ).Item;
    sameItem(`GYM ${gymId}`, stored, Gym.build(PutItemCommand).item(Item).params().Item);
    return Item;
  };
  const cerulean = await gym("cerulean");
  assert.deepEqual(
    [cerulean.leaderSlug, cerulean.city, cerulean.badges],
    ["misty", "cerulean", 8],
  );
  const pewter = await gym("pewter");
  assert.deepEqual(
    [pewter.leader, pewter.leaderSlug, pewter.address],
    ["Flint", "flint", { street: "Rock Way", number: 2 }],
  );
  // Toolbox's own update of a path in the map dynorm wrote.
  await Gym.build(UpdateItemCommand).item({ gymId: "cerulean", address: { number: 7 } }).send();
  return { verified: 6 };
}

run(() => (mode === "write" ? write() : verify()));
