// One contract, both stores: what the domain relies on from persistence.
import { expect } from "chai";
import { StoreUnavailableError } from "../src/errors.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedStore } from "../src/store/embedded/index.js";
import { LmdbEngine } from "../src/store/embedded/lmdb-engine.js";
import { MapEngine } from "../src/store/embedded/map-engine.js";
import type { SolveResult, Store } from "../src/store/port.js";
import { createRedisClient, waitReady, type RedisClient } from "../src/store/redis/redis-client.js";
import { RedisStore } from "../src/store/redis/index.js";
import { TEST_SECRET } from "./support/nodes.js";
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

    describe("When solve attempts come", () => {
      const RIGHT = "ab".repeat(32);
      const WRONG = "cd".repeat(32);
      const rules = (perAddress = 3, perKey = 5, window = 60) => ({
        limits: { perAddress, perAddressWindow: window, perKey, perKeyWindow: window },
        history: { maxEvents: 1000, ttlSeconds: 86_400 },
      });
      const attempt = (key: string, answerHash: string, address = "a1") => ({
        key,
        address,
        answerHash,
        at: "2026-01-01T00:00:00.000Z",
      });
      const at = (n: number, f: (i: number) => Promise<SolveResult>) =>
        Promise.all(Array.from({ length: n }, (_, i) => f(i)));
      const statuses = (rs: SolveResult[]) =>
        rs.map((r) => (r.status === "counted" ? String(r.correct) : r.status)).sort();

      it("then an unknown key is unknown", async () => {
        expect(await store.challenges.solve(attempt("nope", RIGHT), rules())).to.deep.equal({ status: "unknown" });
      });

      it("then right answers at once are all right and count nothing; wrong ones at once stop at the limit", async () => {
        await store.challenges.create("k1", rec("q"), 60);
        const rights = await at(20, () => store.challenges.solve(attempt("k1", RIGHT), rules()));
        expect(rights.every((r) => r.status === "counted" && r.correct && !r.event)).to.equal(true);
        const wrongs = await at(8, () => store.challenges.solve(attempt("k1", WRONG), rules()));
        expect(statuses(wrongs)).to.deep.equal([...Array(3).fill("false"), ...Array(5).fill("limited")].sort());
        const right = await store.challenges.solve(attempt("k1", RIGHT), rules());
        expect(right.status, "limited: the right answer too").to.equal("limited");
        if (right.status === "limited") expect(right.retryAfterMs).to.be.within(1, 60_000);
        expect((await store.challenges.solve(attempt("k1", RIGHT, "a2"), rules())).status, "another address").to.equal(
          "counted",
        );
      });

      it("then the per-key limit counts every address", async () => {
        await store.challenges.create("k1", rec("q"), 60);
        const rs = await at(12, (i) => store.challenges.solve(attempt("k1", WRONG, `a${i}`), rules()));
        expect(statuses(rs)).to.deep.equal([...Array(5).fill("false"), ...Array(7).fill("limited")].sort());
        expect((await store.challenges.solve(attempt("k1", RIGHT, "fresh"), rules())).status).to.equal("limited");
      });

      it("then an owned challenge's counted attempts are each one event in its app's history, and refused ones none", async () => {
        await store.challenges.create("k1", { ...rec("q"), owner: "app-1" }, 60);
        // Below the limit whatever the order, then past it.
        const rs = await at(7, (i) => store.challenges.solve(attempt("k1", i < 5 ? RIGHT : WRONG), rules()));
        rs.push(...(await at(4, () => store.challenges.solve(attempt("k1", WRONG), rules()))));
        const events = rs.flatMap((r) => (r.status === "counted" && r.event ? [r.event] : []));
        expect(statuses(rs)).to.deep.equal(
          [...Array(5).fill("true"), ...Array(3).fill("false"), ...Array(3).fill("limited")].sort(),
        );
        expect(events).to.have.length(8);
        expect(
          events.every((e) => e.app === "app-1" && e.key === "k1" && e.at === "2026-01-01T00:00:00.000Z"),
        ).to.equal(true);
        const read = await store.events.readAfter("app-1", "0-0", 100, rules().history);
        expect(read.events.map((e) => e.id).sort()).to.deep.equal(events.map((e) => e.id).sort());
        expect(read.events.filter((e) => e.correct)).to.have.length(5);
      });

      it("then the window passes and the counters start again; an expired challenge is unknown", async () => {
        await store.challenges.create("k1", { ...rec("q"), owner: "app-1" }, 1);
        await store.challenges.create("k2", rec("q"), 60);
        for (const k of ["k1", "k2"]) {
          expect((await store.challenges.solve(attempt(k, WRONG), rules(1, 5, 1))).status).to.equal("counted");
          expect((await store.challenges.solve(attempt(k, RIGHT), rules(1, 5, 1))).status).to.equal("limited");
        }
        await sleep(1100);
        expect((await store.challenges.solve(attempt("k2", RIGHT), rules(1, 5, 1))).status).to.equal("counted");
        expect((await store.challenges.solve(attempt("k1", RIGHT), rules(1, 5, 1))).status).to.equal("unknown");
      });
    });

    it("When a limiter's points are used, then the next consume is refused with the time to wait", async () => {
      const l = store.limiter({ name: "t", points: 3, windowSeconds: 60 });
      for (let i = 0; i < 3; i++) expect((await l.consume("x")).allowed).to.equal(true);
      const r = await l.consume("x");
      expect(r.allowed).to.equal(false);
      if (!r.allowed) expect(r.retryAfterMs).to.be.within(1, 60_000);
      expect((await l.consume("y")).allowed, "another id has its own counter").to.equal(true);
    });

    it("When a limiter is checked, then nothing is counted, and it says limited once no attempt is left", async () => {
      const l = store.limiter({ name: "t", points: 2, windowSeconds: 60 });
      for (let i = 0; i < 5; i++) expect((await l.check("x")).allowed, "checks count nothing").to.equal(true);
      expect((await l.consume("x")).allowed).to.equal(true);
      expect((await l.check("x")).allowed, "one attempt left").to.equal(true);
      expect((await l.consume("x")).allowed).to.equal(true);
      const r = await l.check("x");
      expect(r.allowed, "no attempt left").to.equal(false);
      if (!r.allowed) expect(r.retryAfterMs).to.be.within(1, 60_000);
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
  const store = new EmbeddedStore(new MapEngine());
  return { store, cleanup: () => store.close() };
});

storeContract("lmdb", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sigil-store-"));
  const store = new EmbeddedStore(new LmdbEngine(dir));
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
    const store = new RedisStore(client, "sigil", undefined, TEST_SECRET);
    return {
      store,
      cleanup: async () => {
        await store.close();
        client!.disconnect();
      },
    };
  });

  it("When a limiter is only checked, then it writes no counter (a success at /token leaves no key naming the client); a counter's key is a keyed hash", async () => {
    redis.cli("FLUSHALL");
    const c = createRedisClient(redis.url);
    try {
      await waitReady(c, 3000);
      const l = new RedisStore(c, "sigil", undefined, TEST_SECRET).limiter({ name: "t", points: 2, windowSeconds: 60 });
      for (let i = 0; i < 3; i++) expect((await l.check("client-1|127.0.0.1")).allowed).to.equal(true);
      expect(redis.cli("KEYS", "*").trim()).to.equal("");
      await l.consume("client-1|127.0.0.1");
      // Counted under a keyed hash of what it counts: the key names neither the client nor the address.
      expect(redis.cli("KEYS", "*").trim()).to.match(/^sigil:rl:t:[A-Za-z0-9_-]{43}$/);
      // Another node with the same SECRET counts on the same key; another SECRET, on another.
      const same = new RedisStore(c, "sigil", undefined, TEST_SECRET).limiter({
        name: "t",
        points: 2,
        windowSeconds: 60,
      });
      await same.consume("client-1|127.0.0.1");
      expect((await l.check("client-1|127.0.0.1")).allowed).to.equal(false);
      const other = new RedisStore(c, "sigil", undefined, `${TEST_SECRET}-other`);
      expect(
        (await other.limiter({ name: "t", points: 2, windowSeconds: 60 }).check("client-1|127.0.0.1")).allowed,
      ).to.equal(true);
    } finally {
      c.disconnect();
    }
  });

  it("When an owned challenge is solved from two nodes, then its solve state sits under the app's hash tag and either node decides it", async () => {
    redis.cli("FLUSHALL");
    const clients = [createRedisClient(redis.url), createRedisClient(redis.url)];
    try {
      await Promise.all(clients.map((c) => waitReady(c, 3000)));
      const [a, b] = clients.map((c) => new RedisStore(c, "sigil", undefined, TEST_SECRET)) as [RedisStore, RedisStore];
      const rules = {
        limits: { perAddress: 2, perAddressWindow: 60, perKey: 100, perKeyWindow: 60 },
        history: { maxEvents: 1000, ttlSeconds: 86_400 },
      };
      const attempt = (answerHash: string) => ({ key: "k1", address: "a1", answerHash, at: new Date().toISOString() });
      await a.challenges.create("k1", { ...rec("q"), owner: "app-1" }, 60);
      expect(await a.challenges.solve(attempt("00"), rules)).to.include({ status: "counted", correct: false });
      // The copy of the answer hash is lost (e.g. a failover): node A, which knows the owner, reads the record again.
      redis.cli("DEL", "sigil:sv:{app-1}:k1:h");
      expect(await a.challenges.solve(attempt("ab".repeat(32)), rules)).to.include({
        status: "counted",
        correct: true,
      });
      expect(await b.challenges.solve(attempt("00"), rules)).to.include({ status: "counted", correct: false });
      expect((await b.challenges.solve(attempt("ab".repeat(32)), rules)).status).to.equal("limited");
      const keys = redis.cli("KEYS", "sigil:sv:*").trim().split(/\s+/).sort();
      expect(keys).to.deep.equal(["sigil:sv:{app-1}:k1:a:a1", "sigil:sv:{app-1}:k1:h", "sigil:sv:{app-1}:k1:n"]);
      expect(Number(redis.cli("PTTL", "sigil:sv:{app-1}:k1:h"))).to.be.within(1, 60_000);
      expect((await a.events.readAfter("app-1", "0-0", 10, rules.history)).events.map((e) => e.correct)).to.deep.equal([
        false,
        true,
        false,
      ]);
    } finally {
      for (const c of clients) c.disconnect();
    }
  });

  it("When Redis is gone, then calls fail fast with StoreUnavailableError and recover when it returns", async () => {
    const c = createRedisClient(redis.url);
    await waitReady(c, 3000);
    const store = new RedisStore(c, "sigil", undefined, TEST_SECRET);
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
