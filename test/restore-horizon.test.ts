// After a restore, a resume never claims it recovered everything (docs/operations.md#backup-and-restore,
// docs/realtime.md#resuming-with-since): what the old store had after the backup is gone, so a
// client resuming (auth.since → ready {recovered}; subscribe {channel, since} → ack {recovered})
// from an id issued before the restore gets recovered: false, whatever came after it since; one
// resuming from an id issued after the restore gets recovered: true and exactly what followed.
// On every store, Redis Cluster included, with the node that serves running through the restore.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import { describeOnCluster } from "./support/on-cluster.js";
import { call, readyClient, sleep, type ChannelClient } from "./support/channel.js";
import type { TestNode } from "./support/nodes.js";
import { restoreItems } from "../src/store/backup.js";
import type { BackupItem, Store } from "../src/store/port.js";

const limits = { maxEvents: 1000, ttlSeconds: 86400 };
const APP = "app";

async function collect(store: Store): Promise<BackupItem[]> {
  const out: BackupItem[] = [];
  for await (const item of store.backup.items()) out.push(item);
  return out;
}

async function restore(store: Store, items: BackupItem[]): Promise<void> {
  await store.backup.clear();
  const counts = await restoreItems(
    store,
    (async function* () {
      yield* items;
    })(),
    3600,
    limits.ttlSeconds,
  );
  expect(counts.dropped).to.equal(0);
}

/** The store's history, written as the service writes it. */
function writer(store: Store) {
  return {
    event: async (key = "k") =>
      (await store.events.append(APP, { key, correct: true, at: new Date().toISOString() }, limits)).id,
    message: async (channel: string, data: unknown = channel) =>
      (
        await store.channels.publish(
          APP,
          [{ channel, data: JSON.stringify(data), at: new Date().toISOString() }],
          limits,
        )
      )[0]!,
  };
}

/** The ids of the channel's messages a client got, in order. */
const idsOf = (c: ChannelClient, channel: string) => c.messages.filter((m) => m.channel === channel).map((m) => m.id);

async function resumeAfterRestore(node: TestNode): Promise<void> {
  const store = node.opened.store;
  await store.apps.create({
    clientId: APP,
    ownerId: "u1",
    name: "App",
    redirectUris: ["https://a.example/cb"],
    secretHash: "ab",
    createdAt: Date.now(),
  });
  const { token } = await node.server.customTokens.create({ app: APP, name: "feed" });
  const w = writer(store);
  const backedUp = [await w.event(), await w.event()];
  await w.message("news");
  const items = await collect(store);
  await sleep(5);
  // After the backup: the restore loses these (the client may have seen them).
  const lostEvent = await w.event();
  const lostNews = await w.message("news");
  const lostLate = await w.message("late"); // a channel with no history in the backup
  await sleep(5);
  await restore(store, items);

  // (1) At once: the id is newer than anything restored.
  const first = await readyClient(node.url, { token, since: lostEvent });
  expect(first.readies[0], "a since newer than the backup").to.deep.include({ recovered: false });
  first.close();

  await sleep(5);
  const after = [await w.event(), await w.event()];
  const newsAfter = [await w.message("news"), await w.message("news")];
  const lateAfter = [await w.message("late"), await w.message("late")];

  // (2) New events after the restore pass the lost id: still not recovered; what is there is replayed.
  const resumed = await readyClient(node.url, { token, since: lostEvent });
  expect(resumed.readies[0], "a since lost by the restore, then passed").to.deep.include({ recovered: false });
  expect((await resumed.waitEvents(2)).map((e) => e.id)).to.deep.equal(after);
  resumed.close();
  // From before the backup as well: the events after it may have been more than the backup held.
  const older = await readyClient(node.url, { token, since: backedUp[0]! });
  expect(older.readies[0], "a since from before the backup").to.deep.include({ recovered: false });
  expect((await older.waitEvents(3)).map((e) => e.id)).to.deep.equal([backedUp[1], ...after]);
  older.close();

  // (3) A channel with a history in the backup, and one without: recovered false, what is there replayed.
  const sub = await readyClient(node.url, { token });
  expect(await call(sub, "subscribe", { channel: "news", since: lostNews })).to.deep.equal({ recovered: false });
  expect(await call(sub, "subscribe", { channel: "late", since: lostLate })).to.deep.equal({ recovered: false });
  await sub.waitMessages(4);
  expect(idsOf(sub, "news")).to.deep.equal(newsAfter);
  expect(idsOf(sub, "late")).to.deep.equal(lateAfter);
  sub.close();

  // (4) An id issued after the restore: recovered, exactly the events after it, then live ones.
  const fresh = await readyClient(node.url, { token, since: after[0]! });
  expect(fresh.readies[0], "a since issued after the restore").to.deep.include({ recovered: true });
  await w.event("marker");
  expect((await fresh.eventsBefore("marker")).map((e) => e.id)).to.deep.equal([after[1]]);
  fresh.close();
  const freshSub = await readyClient(node.url, { token });
  for (const [channel, ids] of [
    ["news", newsAfter],
    ["late", lateAfter],
  ] as const) {
    expect(await call(freshSub, "subscribe", { channel, since: ids[0] }), channel).to.deep.equal({ recovered: true });
  }
  const marker = await w.message("news", "marker");
  await freshSub.waitMessages(3);
  expect(idsOf(freshSub, "news")).to.deep.equal([newsAfter[1], marker]);
  expect(idsOf(freshSub, "late")).to.deep.equal([lateAfter[1]]);
  freshSub.close();
}

describeStoreContract("After a restore, resuming with since", (backend) => {
  it("When a backup is restored into an empty store while its node runs, then a since issued before the restore is never recovered (even once newer events pass it, app events and channels alike), and one issued after is, with exactly what followed", async function () {
    this.timeout(20_000);
    await resumeAfterRestore(await backend.startNode());
  });

  it("When the store is backed up and restored again, then the horizon only rises: ids from before either restore read as not complete, later ones as complete", async () => {
    const store = (await backend.startNode()).opened.store;
    const w = writer(store);
    const beforeFirst = await w.event();
    await sleep(5);
    const h1 = await store.backup.markRestored();
    expect(h1).to.be.above(Number(beforeFirst.split("-")[0]));
    await sleep(5);
    const between = await w.event();
    const second = await w.event();
    expect((await store.events.readAfter(APP, between, 10, limits)).complete, "after the first restore").to.equal(true);
    const items = await collect(store);
    await sleep(5);
    await restore(store, items);
    await sleep(5);
    const later = [await w.event(), await w.event()];
    for (const since of [beforeFirst, between]) {
      const read = await store.events.readAfter(APP, since, 10, limits);
      expect(read.complete, since).to.equal(false);
      expect(read.events.map((e) => e.id)).to.include.members(later);
    }
    expect(await store.events.readAfter(APP, later[0]!, 10, limits)).to.deep.include({ complete: true });
    // The second restore raised it past every id the second backup held.
    const h2 = await store.backup.markRestored();
    expect(h2).to.be.above(h1);
    expect(Number(second.split("-")[0])).to.be.below(h2);
  });
});

describeOnCluster("After a restore on Redis Cluster, resuming with since", (on) => {
  it("When a backup is restored while a node serves the cluster, then resumes follow the restore horizon as on every store", async () => {
    await resumeAfterRestore(await on.freshNode());
  });
});
