// One contract, every store: the data version, the migration lock and the SECRET's check (src/store/ports/meta.ts),
// and migrateStore over them (src/store/migrations.ts): what a node does at start with a store of
// an older, the same or a newer data version, alone or with other nodes starting at once.
import { expect } from "chai";
import { createLogger } from "../src/log.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedStore } from "../src/store/embedded/index.js";
import { LmdbEngine } from "../src/store/embedded/lmdb-engine.js";
import { MapEngine } from "../src/store/embedded/map-engine.js";
import { CURRENT_DATA_VERSION, migrateStore, type MigrateOptions, type Migration } from "../src/store/migrations.js";
import type { Store } from "../src/store/port.js";
import { createRedisClient, waitReady, type RedisClient } from "../src/store/redis/redis-client.js";
import { RedisStore } from "../src/store/redis/index.js";
import { StoreRefusedError } from "../src/store/refused.js";
import { TestCluster } from "./support/cluster.js";
import { TEST_SECRET } from "./support/nodes.js";
import { requireRedis, TestRedis } from "./support/redis.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quiet = createLogger("silent");

/** A backend: `open()` gives another node's view of one shared store; `clean()` empties it. */
interface MetaBackend {
  open(): Promise<Store>;
  clean(): Promise<void>;
  closeAll(): Promise<void>;
}

/** A test-only step from `from` to `to` that counts its runs and takes `ms`. */
function countingStep(from: number, to: number, ms = 0): Migration & { runs: number } {
  const step = {
    from,
    to,
    what: `test step ${from} to ${to}`,
    runs: 0,
    async run() {
      step.runs++;
      await sleep(ms);
    },
  };
  return step;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(StoreRefusedError);
    return (err as Error).message;
  }
  throw new Error("expected a refusal");
}

function metaContract(name: string, backend: () => MetaBackend) {
  describe(`Store contract: data version and migrations [${name}]`, function () {
    this.timeout(20_000);
    let b: MetaBackend;
    let store: Store;
    beforeEach(async () => {
      b = backend();
      await b.clean();
      store = await b.open();
    });
    afterEach(() => b.closeAll());

    it("When no version is recorded, then it reads null; a stamp records it once, and a later stamp keeps the first", async () => {
      expect(await store.meta.dataVersion()).to.equal(null);
      expect(await store.meta.stampDataVersion(1)).to.equal(1);
      expect(await store.meta.stampDataVersion(5)).to.equal(1);
      expect(await store.meta.dataVersion()).to.equal(1);
      await store.meta.setDataVersion(3);
      expect(await (await b.open()).meta.dataVersion(), "another node's view").to.equal(3);
    });

    it("When no SECRET check is recorded, then it reads null; a stamp records it once, a later stamp answers the first; set replaces it", async () => {
      expect(await store.meta.secretCheck()).to.equal(null);
      expect(await store.meta.stampSecretCheck("check-a")).to.equal("check-a");
      expect(await store.meta.stampSecretCheck("check-b"), "the first stays").to.equal("check-a");
      expect(await (await b.open()).meta.secretCheck(), "another node's view").to.equal("check-a");
      await store.meta.setSecretCheck("check-b");
      expect(await (await b.open()).meta.secretCheck()).to.equal("check-b");
      expect(await store.meta.dataVersion(), "the data version is another record").to.equal(null);
    });

    it("When 50 stamp different SECRET checks at once, then one is recorded and every stamp answers it", async () => {
      const stores = await Promise.all(Array.from({ length: 5 }, () => b.open()));
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => stores[i % 5]!.meta.stampSecretCheck(`check-${i}`)),
      );
      expect(new Set(answers).size).to.equal(1);
      expect(await store.meta.secretCheck()).to.equal(answers[0]);
    });

    it("When 50 take the migration lock at once, then exactly one has it; only its token renews or releases it", async () => {
      const stores = await Promise.all(Array.from({ length: 5 }, () => b.open()));
      const taken = await Promise.all(
        Array.from({ length: 50 }, (_, i) => stores[i % 5]!.meta.takeMigrationLock(`t${i}`, 10_000)),
      );
      expect(taken.filter(Boolean)).to.have.length(1);
      const holder = `t${taken.indexOf(true)}`;
      const other = holder === "t0" ? "t1" : "t0";
      expect(await store.meta.renewMigrationLock(other, 10_000)).to.equal(false);
      await store.meta.releaseMigrationLock(other);
      expect(await store.meta.takeMigrationLock("late", 10_000), "not released by another token").to.equal(false);
      expect(await store.meta.renewMigrationLock(holder, 10_000)).to.equal(true);
      await store.meta.releaseMigrationLock(holder);
      expect(await store.meta.takeMigrationLock("late", 10_000)).to.equal(true);
    });

    it("When the lock's holder stops renewing, then it lapses after its time and another takes it", async () => {
      expect(await store.meta.takeMigrationLock("crashed", 300)).to.equal(true);
      expect(await store.meta.takeMigrationLock("next", 300)).to.equal(false);
      await sleep(400);
      expect(await store.meta.renewMigrationLock("crashed", 300)).to.equal(false);
      expect(await store.meta.takeMigrationLock("next", 300)).to.equal(true);
    });

    it("When a node starts on a store with no version (empty, or written by an earlier Sigil), then it is stamped version 1 and nothing runs", async () => {
      const step = countingStep(1, 2);
      const r = await migrateStore(store, quiet, { current: 1, migrations: [] });
      expect(r).to.deep.equal({ found: null, version: 1, ran: 0 });
      expect(await store.meta.dataVersion()).to.equal(1);
      // With a newer code (version 2), the store of version 1 takes the step 1 → 2.
      await store.meta.setDataVersion(1);
      expect(await migrateStore(store, quiet, { current: 2, migrations: [step] })).to.deep.equal({
        found: 1,
        version: 2,
        ran: 1,
      });
      expect(step.runs).to.equal(1);
    });

    it("When the store is at the code's version, then nothing runs and nothing changes", async () => {
      const step = countingStep(1, 2);
      await store.meta.setDataVersion(2);
      expect(await migrateStore(store, quiet, { current: 2, migrations: [step] })).to.deep.equal({
        found: 2,
        version: 2,
        ran: 0,
      });
      expect(step.runs).to.equal(0);
    });

    it("When the store was stamped version 0, then each step runs once in order and the version is recorded after each", async () => {
      const seen: Array<number | null> = [];
      const steps: Migration[] = [0, 1, 2].map((v) => ({
        from: v,
        to: v + 1,
        what: `step ${v}`,
        run: async (s) => void seen.push(await s.meta.dataVersion()),
      }));
      await store.meta.setDataVersion(0);
      const r = await migrateStore(store, quiet, { current: 3, migrations: steps.toReversed() });
      expect(r).to.deep.equal({ found: 0, version: 3, ran: 3 });
      expect(seen, "the version each step found").to.deep.equal([0, 1, 2]);
      expect(await store.meta.dataVersion()).to.equal(3);
      expect(await store.meta.takeMigrationLock("after", 1000), "the lock is released").to.equal(true);
    });

    it("When the store's version is newer than the code's, then it is refused naming both versions, and nothing is written", async () => {
      await store.meta.setDataVersion(7);
      const msg = await refusal(migrateStore(store, quiet));
      expect(msg).to.include("version 7").and.include(`data version ${CURRENT_DATA_VERSION}`);
      expect(await store.meta.dataVersion()).to.equal(7);
    });

    it("When no migration leads from the store's version, then it is refused naming it, before any step runs", async () => {
      const step = countingStep(2, 3);
      await store.meta.setDataVersion(1);
      const msg = await refusal(migrateStore(store, quiet, { current: 3, migrations: [step] }));
      expect(msg).to.include("version 1").and.include("no migration");
      expect(step.runs).to.equal(0);
      expect(await store.meta.dataVersion()).to.equal(1);
    });

    it("When 50 nodes start at once on an older store, then the step runs once, the others wait for it and go on at the new version", async () => {
      const step = countingStep(1, 2, 300);
      await store.meta.setDataVersion(1);
      const stores = await Promise.all(Array.from({ length: 5 }, () => b.open()));
      const opts: MigrateOptions = { current: 2, migrations: [step], pollMs: 50 };
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => migrateStore(stores[i % 5]!, quiet, opts)),
      );
      expect(step.runs).to.equal(1);
      expect(results.map((r) => r.version)).to.deep.equal(Array(50).fill(2));
      expect(results.filter((r) => r.ran === 1)).to.have.length(1);
      expect(await store.meta.dataVersion()).to.equal(2);
    });

    it("When a migrating node died holding the lock, then the next node waits for the lock to lapse and resumes at the unfinished step", async () => {
      const first = countingStep(1, 2);
      const second = countingStep(2, 3);
      // The dead node finished 1 → 2 (recorded) and died in 2 → 3, its lock still there.
      await store.meta.setDataVersion(2);
      expect(await store.meta.takeMigrationLock("dead node", 600)).to.equal(true);
      const t0 = Date.now();
      const r = await migrateStore(store, quiet, { current: 3, migrations: [first, second], pollMs: 50 });
      expect(Date.now() - t0, "waited for the dead node's lock to lapse").to.be.at.least(450);
      expect(r).to.deep.equal({ found: 2, version: 3, ran: 1 });
      expect([first.runs, second.runs]).to.deep.equal([0, 1]);
    });

    it("When another node holds the lock too long, then a waiting node gives up with a clear refusal, writing nothing", async () => {
      await store.meta.setDataVersion(1);
      expect(await store.meta.takeMigrationLock("slow node", 10_000)).to.equal(true);
      const step = countingStep(1, 2);
      const msg = await refusal(
        migrateStore(store, quiet, { current: 2, migrations: [step], waitMs: 300, pollMs: 50 }),
      );
      expect(msg).to.include("another node").and.include("from version 1 to 2");
      expect(step.runs).to.equal(0);
      expect(await store.meta.dataVersion()).to.equal(1);
    });

    it("When a step fails, then the version stays before it, the lock is released, and the next start runs it again", async () => {
      let fail = true;
      const step: Migration = {
        from: 1,
        to: 2,
        what: "fails once",
        run: async () => {
          if (fail) throw new Error("disk full");
        },
      };
      await store.meta.setDataVersion(1);
      let err: unknown;
      await migrateStore(store, quiet, { current: 2, migrations: [step] }).catch((e: unknown) => (err = e));
      expect(String(err)).to.include("disk full");
      expect(await store.meta.dataVersion()).to.equal(1);
      fail = false;
      expect((await migrateStore(store, quiet, { current: 2, migrations: [step] })).version).to.equal(2);
    });

    it("When a holder's lock lapses mid-step (a long pause), then it records nothing and says so", async () => {
      await store.meta.setDataVersion(1);
      const step: Migration = {
        from: 1,
        to: 2,
        what: "paused",
        run: async (s) => {
          // Another node took the lock while this one was paused (its renewal did not come in time).
          await s.meta.releaseMigrationLock("?"); // not its token: nothing happens
          await sleep(50);
          await forceTakeOver(s);
        },
      };
      const msg = await refusal(migrateStore(store, quiet, { current: 2, migrations: [step] }));
      expect(msg).to.include("lost the migration lock");
      expect(await store.meta.dataVersion()).to.equal(1);
    });
  });
}

/** Another node's lock in place of the holder's (the holder's token is not known here): a lapse and a take. */
async function forceTakeOver(s: Store): Promise<void> {
  if (s instanceof EmbeddedStore) {
    await s.engine.write(() =>
      s.engine.table("meta").put("migration-lock", { token: "other", until: Date.now() + 60_000 }),
    );
  } else {
    const r = s as RedisStore;
    await r.redis.set(r.keys.migrationLock, "other", "PX", 60_000);
  }
}

metaContract("memory", () => {
  const shared = new EmbeddedStore(new MapEngine());
  return {
    open: async () => shared,
    clean: async () => {},
    closeAll: () => shared.close(),
  };
});

// Each open() is another process's view of one DATA_DIR (a node, the CLI).
metaContract("lmdb", () => {
  const dir = mkdtempSync(join(tmpdir(), "sigil-meta-"));
  const opened: EmbeddedStore[] = [];
  return {
    async open() {
      const s = new EmbeddedStore(new LmdbEngine(dir));
      opened.push(s);
      return s;
    },
    clean: async () => {},
    async closeAll() {
      for (const s of opened.splice(0)) await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

function redisBackend(url: () => string, flush: () => Promise<void>): () => MetaBackend {
  return () => {
    const clients: RedisClient[] = [];
    return {
      async open() {
        const c = createRedisClient(url());
        clients.push(c);
        await waitReady(c, 5000);
        return new RedisStore(c, "sigil", undefined, TEST_SECRET);
      },
      clean: flush,
      async closeAll() {
        for (const c of clients.splice(0)) c.disconnect();
      },
    };
  };
}

describe("Redis", function () {
  let redis: TestRedis;
  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
  });
  after(() => redis?.destroy());
  metaContract(
    "redis",
    redisBackend(
      () => redis.url,
      async () => void redis.cli("FLUSHALL"),
    ),
  );
});

describe("Redis Cluster", function () {
  this.timeout(60_000);
  let cluster: TestCluster;
  before(async function () {
    requireRedis(this, "Redis Cluster");
    cluster = await TestCluster.start();
  });
  after(() => cluster?.destroy());
  metaContract(
    "cluster",
    redisBackend(
      () => cluster.url,
      async () => {
        for (const n of cluster.nodes) n.cli("FLUSHALL");
      },
    ),
  );
});
