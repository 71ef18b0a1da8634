// The groups part of the store port (src/store/ports/groups.ts): one contract, every store.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { Store } from "../src/store/port.js";

describeStoreContract("Store contract: groups", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  it("When groups are made, filled and emptied, then both sides (a group's members, a user's groups) follow", async () => {
    expect(await store.groups.create({ name: "ops", createdAt: 1 })).to.equal(true);
    expect(await store.groups.create({ name: "ops", createdAt: 2 })).to.equal(false);
    expect(await store.groups.get("ops")).to.deep.equal({ name: "ops", createdAt: 1 });
    expect(await store.groups.create({ name: "dev.team-a_1", createdAt: 3 })).to.equal(true);
    expect(await store.groups.addMember("ops", "u2")).to.equal("added");
    expect(await store.groups.addMember("ops", "u1")).to.equal("added");
    expect(await store.groups.addMember("ops", "u1")).to.equal("already");
    expect(await store.groups.addMember("dev.team-a_1", "u1")).to.equal("added");
    expect(await store.groups.addMember("nope", "u1")).to.equal("no-group");
    expect(await store.groups.get("nope")).to.equal(null);
    expect(await store.groups.members("nope")).to.equal(null);
    expect(await store.groups.groupsOf("u1")).to.deep.equal(["dev.team-a_1", "ops"]);
    expect(await store.groups.groupsOf("u2")).to.deep.equal(["ops"]);
    expect(await store.groups.groupsOf("u3")).to.deep.equal([]);
    expect(await store.groups.members("ops")).to.deep.equal(["u1", "u2"]);
    expect(await store.groups.list()).to.deep.equal([
      { name: "dev.team-a_1", createdAt: 3, members: 1 },
      { name: "ops", createdAt: 1, members: 2 },
    ]);
    expect(await store.groups.removeMember("ops", "u2")).to.equal("removed");
    expect(await store.groups.removeMember("ops", "u2")).to.equal("not-member");
    expect(await store.groups.removeMember("nope", "u2")).to.equal("no-group");
    expect(await store.groups.groupsOf("u2")).to.deep.equal([]);
    expect(await store.groups.members("ops")).to.deep.equal(["u1"]);
  });

  it("When a group is deleted, then no user is in it, and a new group of that name starts empty", async () => {
    await store.groups.create({ name: "ops", createdAt: 1 });
    await store.groups.create({ name: "dev", createdAt: 1 });
    for (const u of ["u1", "u2"]) await store.groups.addMember("ops", u);
    await store.groups.addMember("dev", "u1");
    expect(await store.groups.delete("ops")).to.equal(true);
    expect(await store.groups.delete("ops")).to.equal(false);
    expect(await store.groups.get("ops")).to.equal(null);
    expect(await store.groups.groupsOf("u1")).to.deep.equal(["dev"]);
    expect(await store.groups.groupsOf("u2")).to.deep.equal([]);
    expect(await store.groups.list()).to.deep.equal([{ name: "dev", createdAt: 1, members: 1 }]);
    expect(await store.groups.create({ name: "ops", createdAt: 2 })).to.equal(true);
    expect(await store.groups.members("ops")).to.deep.equal([]);
  });

  it("When a user is taken out of every group, then their groups are empty and the groups' counts drop", async () => {
    await store.groups.create({ name: "ops", createdAt: 1 });
    await store.groups.create({ name: "dev", createdAt: 1 });
    for (const g of ["ops", "dev"]) for (const u of ["u1", "u2"]) await store.groups.addMember(g, u);
    await store.groups.removeUser("u1");
    await store.groups.removeUser("u9");
    expect(await store.groups.groupsOf("u1")).to.deep.equal([]);
    expect(await store.groups.members("ops")).to.deep.equal(["u2"]);
    expect(await store.groups.members("dev")).to.deep.equal(["u2"]);
  });

  it("When the same member is added 50 times at once, then one add counts and there is one membership; 50 creates of one name: one", async () => {
    const creates = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.groups.create({ name: "ops", createdAt: i })),
    );
    expect(creates.filter(Boolean)).to.have.length(1);
    const adds = await Promise.all(Array.from({ length: 50 }, () => store.groups.addMember("ops", "u1")));
    expect(adds.filter((a) => a === "added")).to.have.length(1);
    expect(adds.filter((a) => a === "already")).to.have.length(49);
    expect(await store.groups.members("ops")).to.deep.equal(["u1"]);
    expect(await store.groups.groupsOf("u1")).to.deep.equal(["ops"]);
    const [only, ...rest] = await store.groups.list();
    expect(rest).to.deep.equal([]);
    expect(only).to.include({ name: "ops", members: 1 });
  });

  it("When adds race a group's deletion, then no user is left holding the deleted group", async () => {
    await store.groups.create({ name: "ops", createdAt: 1 });
    await Promise.all([
      ...Array.from({ length: 25 }, (_, i) => store.groups.addMember("ops", `u${i}`)),
      store.groups.delete("ops"),
      ...Array.from({ length: 25 }, (_, i) => store.groups.addMember("ops", `u${i + 25}`)),
    ]);
    for (let i = 0; i < 50; i++) expect(await store.groups.groupsOf(`u${i}`)).to.deep.equal([]);
  });
});
