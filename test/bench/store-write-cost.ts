// node --import tsx test/bench/store-write-cost.ts — where a new challenge's write costs CPU, on the
// embedded store (LMDB) and on Redis with `appendfsync always`, without HTTP: the store's own
// create() called with 50 in flight (as the bench's 50 connections), BENCH_WRITES (20,000) per
// round, 3 rounds. Per create it prints the CPU of this process's main thread, of its other threads
// (on LMDB: lmdb-js's write and flush work on libuv's pool — the commit's page writes and fsync) and
// of redis-server (its commands, AOF writes and fsyncs). Per-thread figures come from /proc (Linux).
// Beside them, two floors: lmdb-js alone (one batched write transaction per event turn, as the
// store's, with the record and its expiry entry put in it, no lookup, no child transaction) and
// ioredis alone (`SET key value EX ttl NX`): what a create costs each database with nothing of Sigil's.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { open } from "lmdb";
import { EmbeddedStore } from "../../src/store/embedded/index.js";
import { LmdbEngine } from "../../src/store/embedded/lmdb-engine.js";
import { RedisStore } from "../../src/store/redis/index.js";
import type { Store } from "../../src/store/port.js";
import { TestRedis } from "../support/redis.js";

const N = Number(process.env.BENCH_WRITES ?? 20_000);
const IN_FLIGHT = 50;

/** CPU µs (user + system) of one /proc stat line. */
const usec = (stat: string) => {
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10_000; // USER_HZ 100
};
const read = (path: string) => {
  try {
    return usec(readFileSync(path, "utf8"));
  } catch {
    return 0; // a thread that ended
  }
};
/** This process's CPU µs: [main thread, every other thread]. */
function threads(): [number, number] {
  let main = 0;
  let others = 0;
  for (const t of readdirSync("/proc/self/task")) {
    const u = read(`/proc/self/task/${t}/stat`);
    if (Number(t) === process.pid) main = u;
    else others += u;
  }
  return [main, others];
}

const dir = mkdtempSync(join(tmpdir(), "sigil-write-cost-"));
const engine = new LmdbEngine(dir);
const lmdb = new EmbeddedStore(engine);
const server = await TestRedis.start({ appendonly: true });
const client = new Redis(server.url);
const redis = new RedisStore(client, "sigil", undefined, "bench-secret-0123456789abcdef0123456789abcdef");
const floorDir = mkdtempSync(join(tmpdir(), "sigil-write-floor-"));
const floorRoot = open({ path: floorDir, encoding: "msgpack" });
const floorRecords = floorRoot.openDB<unknown, string>({ name: "challenges" });
const floorExpiry = floorRoot.openDB<1, Array<string | number>>({ name: "expiry" });
/** The floors: the least each database does for a create with an expiry. */
const floors = {
  lmdb: (key: string, record: object, ttl: number) =>
    floorRoot.transaction(() => {
      const at = Date.now() + ttl * 1000;
      floorRecords.putSync(key, { v: record, x: at });
      floorExpiry.putSync([at, key], 1);
      return true;
    }),
  redis: async (key: string, record: object, ttl: number) =>
    (await client.set(`floor:${key}`, JSON.stringify(record), "EX", ttl, "NX")) === "OK",
};
const redisPid = Number(/process_id:(\d+)/.exec(await client.info("server"))?.[1]);

type Create = (
  key: string,
  record: { question: string; answerHash: string; createdAt: number },
  ttl: number,
) => Promise<boolean>;

async function round(name: string, create: Create): Promise<void> {
  let i = 0;
  const [m0, o0] = threads();
  const r0 = read(`/proc/${redisPid}/stat`);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (i < N) {
        const record = { question: `bench ${i++}`, answerHash: "ab".repeat(32), createdAt: Date.now() };
        if (!(await create(randomUUID(), record, 86_400))) throw new Error("not created");
      }
    }),
  );
  const wall = performance.now() - t0;
  const [m1, o1] = threads();
  const r1 = read(`/proc/${redisPid}/stat`);
  const per = (a: number, b: number) => ((b - a) / N).toFixed(1).padStart(5);
  console.log(
    `${name.padEnd(12)} µs CPU per create: main thread ${per(m0, m1)}, other threads ${per(o0, o1)}, ` +
      `redis-server ${per(r0, r1)}; ${((N / wall) * 1000).toFixed(0)} creates/s`,
  );
}

const store =
  (s: Store): Create =>
  (key, record, ttl) =>
    s.challenges.create(key, record, ttl);

try {
  for (let r = 0; r < 3; r++) {
    await round("LMDB", store(lmdb));
    await round("Redis", store(redis));
    await round("LMDB floor", floors.lmdb);
    await round("Redis floor", floors.redis);
  }
} finally {
  await lmdb.close();
  await floorRoot.close();
  rmSync(floorDir, { recursive: true, force: true });
  client.disconnect();
  await server.destroy();
  rmSync(dir, { recursive: true, force: true });
}
