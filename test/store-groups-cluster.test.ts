// Groups on a three-master Redis Cluster (src/store/redis/groups.ts): every key of a change shares
// the {groups} hash tag, so each script runs on one shard (a CROSSSLOT error would throw here), and
// a backup of them restores.
import { expect } from "chai";
import { describeOnCluster } from "./support/on-cluster.js";
import { restoreItems } from "../src/store/backup.js";
import type { BackupItem } from "../src/store/port.js";

describeOnCluster("Groups on Redis Cluster", (on) => {
  it("When groups are made, filled 50 at once, emptied, deleted, backed up and restored, then every step works", async () => {
    const node = await on.freshNode();
    const groups = node.opened.store.groups;
    for (const name of ["ops", "dev", "qa"]) expect(await groups.create({ name, createdAt: 1 })).to.equal(true);
    const adds = await Promise.all(Array.from({ length: 50 }, () => groups.addMember("ops", "u1")));
    expect(adds.filter((a) => a === "added")).to.have.length(1);
    for (const u of ["u1", "u2", "u3"]) await groups.addMember("dev", u);
    await groups.addMember("qa", "u2");
    expect(await groups.groupsOf("u1")).to.deep.equal(["dev", "ops"]);
    expect(await groups.removeMember("dev", "u3")).to.equal("removed");
    await groups.removeUser("u2");
    expect(await groups.delete("qa")).to.equal(true);
    expect(await groups.list()).to.deep.equal([
      { name: "dev", createdAt: 1, members: 1 },
      { name: "ops", createdAt: 1, members: 1 },
    ]);
    expect(await groups.members("dev")).to.deep.equal(["u1"]);
    expect(await groups.groupsOf("u2")).to.deep.equal([]);

    const store = node.opened.store;
    await store.accounts.create({ id: "u1", username: "ulla", displayName: "U", passwordHash: "x", createdAt: 1 });
    const items: BackupItem[] = [];
    for await (const i of store.backup.items()) items.push(i);
    expect(items.filter((i) => i.kind === "group")).to.have.length(2);
    expect((await store.backup.holdings()).groups).to.equal(2);
    await store.backup.clear();
    expect(await groups.list()).to.deep.equal([]);
    expect(await groups.groupsOf("u1")).to.deep.equal([]);
    await restoreItems(
      store,
      (async function* () {
        yield* items;
      })(),
      3600,
      86400,
    );
    expect(await groups.groupsOf("u1")).to.deep.equal(["dev", "ops"]);
  });
});
