// The ElectroDB side of tests/interop.rs.
//
//   node electrodb.js write  <endpoint> <templatesTable> <defaultsTable>
//   node electrodb.js verify <endpoint> <templatesTable> <defaultsTable>
//
// `write` puts the seed's sample data with ElectroDB. `verify` reads what dynorm wrote with
// ElectroDB's ownership checks on (no ignoreOwnership), and compares every stored
// attribute with the item ElectroDB itself would write for the same data.
"use strict";

const models = require("./models.js");
const { assert, electroOwned, run } = require("./check.js");

const [mode, endpoint, templatesTable, defaultsTable] = process.argv.slice(2);
const client = models.documentClient(endpoint);
const templates = models.teamsWithTemplates(client, templatesTable);
const defaults = models.teamsWithDefaultKeys(client, defaultsTable);

async function write() {
  const { Team, User, Membership } = templates;
  await Team.put({ teamId: "t_eng", name: "Engineering" }).go();
  await Team.put({ teamId: "t_design", name: "Design" }).go();
  await User.put({ userId: "u_alice", name: "Alice Chen", email: "alice@example.com" }).go();
  await User.put({ userId: "u_bob", name: "Bob Park", email: "bob@example.com" }).go();
  await Membership.put({ teamId: "t_eng", userId: "u_alice", role: "owner" }).go();
  await Membership.put({ teamId: "t_eng", userId: "u_bob", role: "member" }).go();
  await Membership.put({ teamId: "t_design", userId: "u_alice", role: "admin" }).go();

  await defaults.Team.put({ teamId: "T_Eng", name: "Engineering" }).go();
  await defaults.Membership.put({ teamId: "T_Eng", userId: "U_Alice", role: "owner", seats: 3 }).go();
  await defaults.Membership.put({ teamId: "T_Eng", userId: "u_bob", role: "member" }).go();
  return { written: 10 };
}

/** Reads an item with ownership checks on (`check.js`). */
const owned = (entity, table, key) => electroOwned(client, entity, table, key);

async function verify() {
  const { Team, User, Membership, service } = templates;
  const ops = await owned(Team, templatesTable, { teamId: "t_ops" });
  assert.equal(ops.name, "Operations");
  const carol = await owned(User, templatesTable, { userId: "u_carol" });
  assert.equal(carol.email, "carol@example.com");
  const bob = await owned(User, templatesTable, { userId: "u_bob" });
  assert.equal(bob.email, "bob@ops.example.com", "dynorm's put replaced Bob's profile");
  for (const [teamId, userId, role] of [
    ["t_ops", "u_carol", "owner"],
    ["t_eng", "u_carol", "member"],
    ["t_eng", "u_bob", "admin"],
    ["t_design", "u_dave", "member"],
    ["t_ops", "u_dave", "admin"],
  ]) {
    const m = await owned(Membership, templatesTable, { teamId, userId });
    assert.equal(m.role, role, `${teamId}/${userId}'s role`);
  }
  const { data: opsPage } = await service.collections.teamWithMembers({ teamId: "t_ops" }).go();
  assert.equal(opsPage.team.length, 1, "t_ops's collection has its team");
  assert.deepEqual(opsPage.membership.map((m) => m.userId).sort(), ["u_carol", "u_dave"]);
  const { data: carolTeams } = await Membership.query.byUser({ userId: "u_carol" }).go();
  assert.deepEqual(carolTeams.map((m) => m.teamId).sort(), ["t_eng", "t_ops"]);

  const team = await owned(defaults.Team, defaultsTable, { teamId: "T_Eng" });
  assert.equal(team.name, "Eng", "dynorm's update renamed the team");
  const newcomer = await owned(defaults.Membership, defaultsTable, { teamId: "T_Eng", userId: "U_Carol" });
  assert.equal(newcomer.seats, 1);
  const { data: page } = await defaults.service.collections.teamWithMembers({ teamId: "T_Eng" }).go();
  assert.equal(page.team.length, 1);
  assert.deepEqual(page.membership.map((m) => m.userId).sort(), ["U_Alice", "U_Carol", "u_bob"]);
  const { data: byUser } = await defaults.Membership.query.byUser({ userId: "U_Carol" }).go();
  assert.deepEqual(byUser.map((m) => m.role), ["admin"]);
  return { verified: 12 };
}

run(() => (mode === "write" ? write() : verify()));
