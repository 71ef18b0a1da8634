// AppStore.list (src/store/ports/signin.ts): every app a page at a time in client id order; one
// contract, every store (the Redis store's sorted set of client ids stays exact, on a Cluster too,
// and data version 3's migration fills it for older Redis data).
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { AppRecord, Store } from "../src/store/port.js";
import { createRedisClient, waitReady, type RedisClient } from "../src/store/redis/redis-client.js";
import { RedisStore } from "../src/store/redis/index.js";
import { TestCluster } from "./support/cluster.js";
import { TEST_SECRET } from "./support/nodes.js";
import { requireRedis } from "./support/redis.js";
import { createLogger } from "../src/log.js";
import { CURRENT_DATA_VERSION, migrateStore } from "../src/store/migrations.js";

const app = (clientId: string, ownerId = "owner"): AppRecord => ({
  clientId,
  ownerId,
  name: `App ${clientId}`,
  redirectUris: ["https://app.example/cb"],
  secretHash: "x",
  createdAt: 1,
});

/** Every app's client id, read a page of `limit` at a time. */
async function all(store: Store, limit: number): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const page = await store.apps.list({ limit, ...(out.length ? { after: out.at(-1)! } : {}) });
    out.push(...page.map((a) => a.clientId));
    if (page.length < limit) return out;
  }
}

describeStoreContract("Store contract: the list of every app", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  it("When apps are listed a page at a time, then every app comes once, in client id order, with its record", async () => {
    const made = ["m1", "b2", "z3", "a4", "b20", "b-2", "b_2", "B2"];
    for (const [i, id] of made.entries()) await store.apps.create(app(id, `o${i % 3}`));
    const sorted = made.toSorted();
    expect((await store.apps.list({ limit: 100 })).map((a) => a.clientId)).to.deep.equal(sorted);
    expect(await all(store, 3)).to.deep.equal(sorted);
    expect(await all(store, 1)).to.deep.equal(sorted);
    expect((await store.apps.list({ limit: 2, after: "b2" })).map((a) => a.clientId)).to.deep.equal(
      sorted.filter((n) => n > "b2").slice(0, 2),
    );
    expect(await store.apps.list({ limit: 5, after: "z3" })).to.deep.equal([]);
    const [first] = await store.apps.list({ limit: 1 });
    expect(first).to.deep.equal(app("B2", "o1"));
  });

  it("When 50 apps are made at once and some deleted (each twice at once) or updated, then the list holds exactly those that remain", async () => {
    const made = Array.from({ length: 50 }, (_, i) => app(`c${String(i).padStart(2, "0")}`));
    await Promise.all(made.map((a) => store.apps.create(a)));
    const gone = made.slice(0, 20);
    await Promise.all([...gone, ...gone].map((a) => store.apps.delete(a.clientId)));
    await Promise.all(made.slice(20, 30).map((a) => store.apps.update(a.clientId, (x) => ({ ...x, name: "Renamed" }))));
    // An update of a deleted app brings nothing back.
    await store.apps.update(gone[0]!.clientId, (x) => ({ ...x, name: "Ghost" }));
    expect(await all(store, 7)).to.deep.equal(made.slice(20).map((a) => a.clientId));
    const listed = await store.apps.list({ limit: 100 });
    expect(listed.filter((a) => a.name === "Renamed").length).to.equal(10);
  });

  it("When a store of data version 2 (no index of apps on Redis) is migrated, then every app is listed, and only once", async () => {
    await store.accounts.create({ id: "u1", username: "ann", displayName: "Ann", passwordHash: "x", createdAt: 1 });
    const made = Array.from({ length: 30 }, (_, i) => app(`v${String(i).padStart(2, "0")}`, "u1"));
    await Promise.all(made.map((a) => store.apps.create(a)));
    await store.apps.delete(made[0]!.clientId);
    // What a Redis store of version 2 held: no index of apps.
    if (backend.redis) backend.redis.cli("DEL", "sigil:{apps}");
    await store.meta.setDataVersion(2);
    const r = await migrateStore(store, createLogger("silent"));
    // Every step after version 2 ran once (the app index, and those that came after it).
    expect(r).to.include({ version: CURRENT_DATA_VERSION, ran: CURRENT_DATA_VERSION - 2 });
    expect(await all(store, 7)).to.deep.equal(made.slice(1).map((a) => a.clientId));
    // Run again (a crash before the version was recorded): the same list.
    await store.meta.setDataVersion(2);
    await migrateStore(store, createLogger("silent"));
    expect(await all(store, 100)).to.deep.equal(made.slice(1).map((a) => a.clientId));
  });
});

describe("Store contract: the list of every app [Redis Cluster]", function () {
  this.timeout(60_000);
  let cluster: TestCluster;
  let client: RedisClient | undefined;
  before(async function () {
    requireRedis(this, "Redis Cluster");
    cluster = await TestCluster.start();
  });
  after(async () => {
    client?.disconnect();
    await cluster?.destroy();
  });

  it("When 50 apps are made at once across the shards and some deleted, then the list pages exactly those that remain, in order", async () => {
    client = createRedisClient(cluster.url);
    await waitReady(client, 5000);
    const store = new RedisStore(client, "sigil", undefined, TEST_SECRET);
    const made = Array.from({ length: 50 }, (_, i) => app(`k${String(i).padStart(2, "0")}`, `o${i}`));
    await Promise.all(made.map((a) => store.apps.create(a)));
    await Promise.all(made.slice(0, 10).map((a) => store.apps.delete(a.clientId)));
    expect(await all(store, 15)).to.deep.equal(made.slice(10).map((a) => a.clientId));
  });
});
