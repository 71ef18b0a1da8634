// AccountStore.list (src/store/ports/signin.ts): users a page at a time in username order, with a
// search; one contract, every store (the Redis store's sorted set of usernames stays exact).
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { Store, UserRecord } from "../src/store/port.js";
import type { Engine } from "../src/store/embedded/engine.js";
import { createRedisClient, waitReady, type RedisClient } from "../src/store/redis/redis-client.js";
import { RedisStore } from "../src/store/redis/index.js";
import { TestCluster } from "./support/cluster.js";
import { TEST_SECRET } from "./support/nodes.js";
import { requireRedis } from "./support/redis.js";
import { createLogger } from "../src/log.js";
import { CURRENT_DATA_VERSION, migrateStore } from "../src/store/migrations.js";

const user = (id: string, username: string, more: Partial<UserRecord> = {}): UserRecord => ({
  id,
  username,
  displayName: username,
  passwordHash: "x",
  createdAt: 1,
  ...more,
});
const names = (users: UserRecord[]) => users.map((u) => u.username);

/** Empties one table of an embedded store (what a store of an older data version lacked). */
async function dropTable(store: Store, name: string): Promise<void> {
  const engine = (store as unknown as { engine: Engine }).engine;
  const table = engine.table<unknown>(name);
  await engine.write(() => {
    for (const { key } of table.range([])) table.remove(key);
  });
}

describeStoreContract("Store contract: the list of users", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  /** Every user, read a page of `limit` at a time. */
  async function all(limit: number, query?: string): Promise<string[]> {
    const out: string[] = [];
    for (;;) {
      const page = await store.accounts.list({
        limit,
        ...(query ? { query } : {}),
        ...(out.length ? { after: out.at(-1)! } : {}),
      });
      out.push(...names(page));
      if (page.length < limit) return out;
    }
  }

  it("When users are listed a page at a time, then every user comes once, in username order", async () => {
    const made = ["mia", "bo", "zed", "al", "bob", "bo.b", "bo-b", "bo_b", "b00"];
    for (const [i, n] of made.entries()) expect(await store.accounts.create(user(`u${i}`, n))).to.equal(true);
    const sorted = made.toSorted();
    expect(names(await store.accounts.list({ limit: 100 }))).to.deep.equal(sorted);
    expect(await all(2)).to.deep.equal(sorted);
    expect(await all(1)).to.deep.equal(sorted);
    expect(names(await store.accounts.list({ limit: 3, after: "bo" }))).to.deep.equal(
      sorted.filter((n) => n > "bo").slice(0, 3),
    );
    expect(await store.accounts.list({ limit: 5, after: "zed" })).to.deep.equal([]);
  });

  it("When a query is given, then only users one of whose words (username, display name, email) begins with it come, without regard to case", async () => {
    await store.accounts.create(user("u1", "ann", { displayName: "Ann Smith" }));
    await store.accounts.create(user("u2", "bert", { displayName: "Bert", email: "bert@Smithy.example" }));
    await store.accounts.create(user("u3", "csmith"));
    await store.accounts.create(user("u4", "dora", { displayName: "Dora" }));
    await store.accounts.create(
      user("u5", "c.smith-jones", { displayName: "Ｃｈｒｉｓ", email: "Chris.J@Mail.example" }),
    );
    // Prefix of a word, never a substring: csmith is not found by "smith".
    expect(await all(10, "smith")).to.deep.equal(["ann", "bert", "c.smith-jones"]);
    expect(await all(1, "smith")).to.deep.equal(["ann", "bert", "c.smith-jones"]);
    expect(await all(10, "mith")).to.deep.equal([]);
    expect(await all(10, "cs")).to.deep.equal(["csmith"]);
    expect(await all(10, "dora")).to.deep.equal(["dora"]);
    expect(await all(10, "nobody")).to.deep.equal([]);
    // The display name whole ("ann s"), its words, the email whole, its local part and domain.
    expect(await all(10, "ann s")).to.deep.equal(["ann"]);
    expect(await all(10, "jones")).to.deep.equal(["c.smith-jones"]);
    expect(await all(10, "chris")).to.deep.equal(["c.smith-jones"]); // NFKC: full-width letters
    expect(await all(10, "chris.j@")).to.deep.equal(["c.smith-jones"]);
    expect(await all(10, "mail.ex")).to.deep.equal(["c.smith-jones"]);
    const [bert] = await store.accounts.list({ limit: 1, query: "smithy.example" });
    expect(bert).to.deep.include({ id: "u2", email: "bert@Smithy.example", displayName: "Bert" });
    // A query longer than any indexed word (cut at 64) still matches only the whole word.
    const long = "l".repeat(100);
    await store.accounts.create(user("u6", "longname", { displayName: long }));
    expect(await all(10, long)).to.deep.equal(["longname"]);
    expect(await all(10, `${long}x`)).to.deep.equal([]);
  });

  it("When a user's name or email changes, then the old words no longer find them and the new ones do; deletion removes them", async () => {
    await store.accounts.create(user("u1", "ann", { displayName: "Ann Smith", email: "ann@old.example" }));
    await store.accounts.create(user("u2", "bob", { displayName: "Bob Smith" }));
    await store.accounts.update("u1", (u) => ({ ...u, displayName: "Ann Jones", email: "ann@new.example" }));
    expect(await all(10, "smith")).to.deep.equal(["bob"]);
    expect(await all(10, "old")).to.deep.equal([]);
    expect(await all(10, "jones")).to.deep.equal(["ann"]);
    expect(await all(10, "new.ex")).to.deep.equal(["ann"]);
    // A change of something else (not a word) leaves the search as it was.
    await store.accounts.update("u1", (u) => ({ ...u, locale: "fr" }));
    expect(await all(10, "jones")).to.deep.equal(["ann"]);
    await store.accounts.delete((await store.accounts.byId("u1"))!);
    expect(await all(10, "jones")).to.deep.equal([]);
    expect(await all(10, "ann")).to.deep.equal([]);
    // A new user of the freed name is found by their own words only.
    await store.accounts.create(user("u3", "ann", { displayName: "Ann Other" }));
    expect(await all(10, "jones")).to.deep.equal([]);
    expect((await store.accounts.list({ limit: 5, query: "other" })).map((u) => u.id)).to.deep.equal(["u3"]);
  });

  it("When 50 profile changes of one user and 50 of fifty users are sent at once, then the index finds each user by their last words only", async () => {
    await store.accounts.create(user("one", "solo", { displayName: "Start" }));
    const many = Array.from({ length: 50 }, (_, i) => user(`m${i}`, `many${String(i).padStart(2, "0")}`));
    await Promise.all(many.map((u) => store.accounts.create(u)));
    const names50 = Array.from({ length: 50 }, (_, i) => `Name${i}`);
    await Promise.all([
      ...names50.map((n) => store.accounts.update("one", (u) => ({ ...u, displayName: n }))),
      ...many.map((u, i) => store.accounts.update(u.id, (r) => ({ ...r, displayName: `Renamed${i}` }))),
    ]);
    const last = (await store.accounts.byId("one"))!.displayName;
    expect(await all(10, last.toLowerCase())).to.deep.equal(["solo"]);
    for (const n of names50.filter((n) => n !== last && !last.toLowerCase().startsWith(n.toLowerCase())))
      expect(await all(10, n.toLowerCase()), n).to.deep.equal([]);
    expect(await all(10, "start")).to.deep.equal([]);
    expect(await all(7, "renamed")).to.deep.equal(many.map((u) => u.username));
    expect(await all(10, "renamed7")).to.deep.equal(["many07"]);
  });

  it("When a query matches few of many users, then a page still holds every match after the cursor", async () => {
    // More users than one batch of the store's walk (USER_LIST_BATCH), with matches far apart.
    await Promise.all(
      Array.from({ length: 1200 }, (_, i) => {
        const n = `user${String(i).padStart(4, "0")}`;
        return store.accounts.create(user(`u${i}`, n, i % 400 === 7 ? { displayName: "Needle" } : {}));
      }),
    );
    expect(await all(50, "needle")).to.deep.equal(["user0007", "user0407", "user0807"]);
    expect(await all(2, "needle")).to.deep.equal(["user0007", "user0407", "user0807"]);
    expect((await all(500)).length).to.equal(1200);
  });

  it("When a query is broad (more index entries than a search reads), then it pages the same users in the same order", async function () {
    this.timeout(120_000);
    // 5,100 users of one word "Common": two entries each ("common" and "common <n>"), over the cap
    // of 10,000, so the store walks the username index instead of the index of words.
    const made = Array.from({ length: 5100 }, (_, i) =>
      user(`c${i}`, `cu${String(i).padStart(4, "0")}`, { displayName: `Common ${i}` }),
    );
    for (let i = 0; i < made.length; i += 500)
      await Promise.all(made.slice(i, i + 500).map((u) => store.accounts.create(u)));
    await store.accounts.create(user("x1", "zz-other", { displayName: "Uncommon" }));
    const first = names(await store.accounts.list({ limit: 50, query: "common" }));
    expect(first).to.deep.equal(made.slice(0, 50).map((u) => u.username));
    const later = names(await store.accounts.list({ limit: 50, query: "common", after: "cu5080" }));
    expect(later).to.deep.equal(made.slice(5081).map((u) => u.username));
    // A narrow query among them still reads the index: "common 51" begins 11 users' names.
    expect(await all(50, "common 51")).to.deep.equal(
      made.filter((_, i) => `${i}`.startsWith("51")).map((u) => u.username),
    );
  });

  it("When 50 users sign up at once (some with one name) and some are deleted, then the list holds exactly those that remain", async () => {
    const tries = Array.from({ length: 50 }, (_, i) => user(`u${i}`, `n${i % 40}`));
    const created = await Promise.all(tries.map((u) => store.accounts.create(u)));
    expect(created.filter(Boolean).length).to.equal(40);
    const stored = tries.filter((_, i) => created[i]);
    expect(await all(7)).to.deep.equal(stored.map((u) => u.username).toSorted());
    const gone = stored.slice(0, 25);
    // Each deleted twice at once: one deletion counts, the index loses exactly that user.
    await Promise.all([...gone, ...gone].map((u) => store.accounts.delete(u)));
    const left = stored
      .slice(25)
      .map((u) => u.username)
      .toSorted();
    expect(await all(7)).to.deep.equal(left);
    // A name freed and taken again is listed once, as the new user.
    expect(await store.accounts.create(user("again", gone[0]!.username, { displayName: "Again" }))).to.equal(true);
    const listed = await store.accounts.list({ limit: 100 });
    expect(listed.filter((u) => u.username === gone[0]!.username).map((u) => u.id)).to.deep.equal(["again"]);
    expect(listed.length).to.equal(left.length + 1);
  });

  it("When a store of data version 1 (no index of usernames on Redis) is migrated, then every user is listed, and only once", async () => {
    const made = Array.from({ length: 30 }, (_, i) => user(`u${i}`, `v${String(i).padStart(2, "0")}`));
    await Promise.all(made.map((u) => store.accounts.create(u)));
    await store.accounts.delete(made[0]!);
    // What a Redis store of version 1 held: no index.
    if (backend.redis) backend.redis.cli("DEL", "sigil:{usernames}");
    await store.meta.setDataVersion(1);
    const r = await migrateStore(store, createLogger("silent"));
    expect(r).to.include({ version: CURRENT_DATA_VERSION, ran: CURRENT_DATA_VERSION - 1 });
    expect(await all(7)).to.deep.equal(made.slice(1).map((u) => u.username));
    // Run again (a crash before the version was recorded): the same list.
    await store.meta.setDataVersion(1);
    await migrateStore(store, createLogger("silent"));
    expect(await all(100)).to.deep.equal(made.slice(1).map((u) => u.username));
  });

  it("When a store of data version 3 (no index of search words) is migrated, then every user is found by their words", async () => {
    const made = Array.from({ length: 30 }, (_, i) =>
      user(`u${i}`, `w${String(i).padStart(2, "0")}`, { displayName: `Person ${i % 3 === 0 ? "Fizz" : "Buzz"}` }),
    );
    await Promise.all(made.map((u) => store.accounts.create(u)));
    // What a store of version 3 held: no index of search words.
    if (backend.redis) backend.redis.cli("DEL", "sigil:{user-search}");
    else await dropTable(store, "user-search");
    expect(await all(100, "fizz")).to.deep.equal([]);
    await store.meta.setDataVersion(3);
    const r = await migrateStore(store, createLogger("silent"));
    expect(r).to.include({ version: CURRENT_DATA_VERSION, ran: 1 });
    const fizz = made.filter((_, i) => i % 3 === 0).map((u) => u.username);
    expect(await all(4, "fizz")).to.deep.equal(fizz);
    expect(await all(100, "person")).to.deep.equal(made.map((u) => u.username));
    // Run again (a crash before the version was recorded): the same answers.
    await store.meta.setDataVersion(3);
    await migrateStore(store, createLogger("silent"));
    expect(await all(100, "fizz")).to.deep.equal(fizz);
  });

  it("When the admin flag is set, then the list and the record carry it", async () => {
    await store.accounts.create(user("u1", "ann", { admin: true }));
    await store.accounts.create(user("u2", "bob"));
    expect((await store.accounts.list({ limit: 10 })).map((u) => u.admin === true)).to.deep.equal([true, false]);
  });
});

describe("Store contract: the list of users [Redis Cluster]", function () {
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

  it("When 50 users are made at once across the shards and some deleted, then the list pages exactly those that remain, in order", async () => {
    client = createRedisClient(cluster.url);
    await waitReady(client, 5000);
    const store = new RedisStore(client, "sigil", undefined, TEST_SECRET);
    const made = Array.from({ length: 50 }, (_, i) =>
      user(`id-${i}`, `c${String(i).padStart(2, "0")}`, i === 7 ? { email: "x@Needle.example" } : {}),
    );
    expect(await Promise.all(made.map((u) => store.accounts.create(u)))).to.deep.equal(made.map(() => true));
    await Promise.all(made.slice(0, 10).map((u) => store.accounts.delete(u)));
    const pages: string[] = [];
    for (let after: string | undefined; ;) {
      const page = await store.accounts.list({ limit: 15, ...(after ? { after } : {}) });
      pages.push(...names(page));
      if (page.length < 15) break;
      after = page.at(-1)!.username;
    }
    expect(pages).to.deep.equal(made.slice(10).map((u) => u.username));
    expect(names(await store.accounts.list({ limit: 5, query: "needle" }))).to.deep.equal([]);
    await store.accounts.create(user("id-n", "needle-user"));
    expect(names(await store.accounts.list({ limit: 5, query: "needle" }))).to.deep.equal(["needle-user"]);
    // The index of search words is one key (one hash tag, one shard): changes and prefixes across shards.
    await Promise.all(
      made.slice(10).map((u, i) => store.accounts.update(u.id, (r) => ({ ...r, displayName: `Shard Walker ${i}` }))),
    );
    expect(names(await store.accounts.list({ limit: 50, query: "walker" }))).to.deep.equal(
      made.slice(10).map((u) => u.username),
    );
    expect(names(await store.accounts.list({ limit: 50, query: "c1" }))).to.deep.equal(
      made.slice(10, 20).map((u) => u.username),
    );
  });
});
