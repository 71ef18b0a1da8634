// One contract, both stores: what the domain relies on from persistence.
import { expect } from "chai";
import { StoreUnavailableError } from "../src/errors.js";
import { MemoryStore } from "../src/store/memory.js";
import type { Store } from "../src/store/port.js";
import { createRedisClient, waitReady, type RedisClient } from "../src/store/redis-client.js";
import { RedisStore } from "../src/store/redis.js";
import { requireRedis, TestRedis } from "./support/redis.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rec = (question: string) => ({ question, answerHash: "ab".repeat(32), createdAt: Date.now() });

function storeContract(name: string, make: () => Promise<{ store: Store; cleanup: () => Promise<void> }>) {
  describe(`Store contract [${name}]`, function () {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ store, cleanup } = await make()));
    afterEach(() => cleanup());

    it("When a challenge is stored, then it reads back with every field", async () => {
      const r = { ...rec("q?"), owner: "app-1" };
      expect(await store.challenges.create("k1", r, 60)).to.equal(true);
      expect(await store.challenges.get("k1")).to.deep.equal(r);
    });

    it("When a challenge has no owner, then none is invented", async () => {
      await store.challenges.create("k1", rec("q"), 60);
      expect(await store.challenges.get("k1")).to.not.have.property("owner");
    });

    it("When a key is taken, then create refuses and keeps the first record", async () => {
      await store.challenges.create("k1", rec("first"), 60);
      expect(await store.challenges.create("k1", rec("second"), 60)).to.equal(false);
      expect((await store.challenges.get("k1"))!.question).to.equal("first");
    });

    it("When a challenge's ttl passes, then it is gone", async () => {
      await store.challenges.create("k1", rec("q"), 1);
      expect(await store.challenges.get("k1")).to.not.equal(null);
      await sleep(1100);
      expect(await store.challenges.get("k1")).to.equal(null);
    });

    it("When a limiter's points are used, then the next consume is refused with the time to wait", async () => {
      const l = store.limiter({ name: "t", points: 3, windowSeconds: 60 });
      for (let i = 0; i < 3; i++) expect((await l.consume("x")).allowed).to.equal(true);
      const r = await l.consume("x");
      expect(r.allowed).to.equal(false);
      if (!r.allowed) expect(r.retryAfterMs).to.be.within(1, 60_000);
      expect((await l.consume("y")).allowed, "another id has its own counter").to.equal(true);
    });

    it("When an attempt is refunded, then it does not count", async () => {
      const l = store.limiter({ name: "t", points: 2, windowSeconds: 60 });
      for (let i = 0; i < 5; i++) {
        expect((await l.consume("x")).allowed).to.equal(true);
        await l.refund("x");
      }
      expect((await l.consume("x")).allowed).to.equal(true);
    });

    it("When concurrent consumes race, then exactly the limit is allowed", async () => {
      const l = store.limiter({ name: "t", points: 7, windowSeconds: 60 });
      const rs = await Promise.all(Array.from({ length: 25 }, () => l.consume("x")));
      expect(rs.filter((r) => r.allowed)).to.have.length(7);
    });

    it("When two limiters share an id, then their counters are separate", async () => {
      const a = store.limiter({ name: "a", points: 1, windowSeconds: 60 });
      const b = store.limiter({ name: "b", points: 1, windowSeconds: 60 });
      expect((await a.consume("x")).allowed).to.equal(true);
      expect((await b.consume("x")).allowed).to.equal(true);
    });

    it("When the window passes, then the counter starts again", async () => {
      const l = store.limiter({ name: "t", points: 1, windowSeconds: 1 });
      expect((await l.consume("x")).allowed).to.equal(true);
      expect((await l.consume("x")).allowed).to.equal(false);
      await sleep(1100);
      expect((await l.consume("x")).allowed).to.equal(true);
    });

    it("When the store is pinged, then it answers", async () => {
      await store.ping();
    });
  });
}

storeContract("memory", async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});

describe("Redis store", function () {
  let redis: TestRedis;
  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
  });
  after(() => redis?.destroy());

  let client: RedisClient | undefined;
  storeContract("redis", async () => {
    redis.cli("FLUSHALL");
    client = createRedisClient(redis.url);
    await waitReady(client, 3000);
    const store = new RedisStore(client, "sigil");
    return {
      store,
      cleanup: async () => {
        await store.close();
        client!.disconnect();
      },
    };
  });

  it("When Redis is gone, then calls fail fast with StoreUnavailableError and recover when it returns", async () => {
    const c = createRedisClient(redis.url);
    await waitReady(c, 3000);
    const store = new RedisStore(c, "sigil");
    try {
      await store.challenges.create("k", rec("q"), 60);
      await redis.stop();
      const t0 = Date.now();
      let err: unknown;
      try {
        await store.challenges.get("k");
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(StoreUnavailableError);
      expect(Date.now() - t0).to.be.lessThan(1500);
      await redis.start();
      await waitReady(c, 5000);
      expect(await store.challenges.get("k")).to.equal(null); // no persistence in this test server
      expect(await store.challenges.create("k", rec("q"), 60)).to.equal(true);
    } finally {
      c.disconnect();
      if (!redis.running) await redis.start();
    }
  });
});
