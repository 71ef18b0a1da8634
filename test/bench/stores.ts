// The stores side by side (#23): Sigil on the persistent embedded store (LMDB in a DATA_DIR) beside
// Sigil on the in-process store (DATA_DIR=:memory:) for reads, and beside Sigil on Redis for
// writes, in one run, with the same requests; then start-up with 100,000 accounts in DATA_DIR, and
// the size of the data folder beside Redis's memory for the same accounts. Goals: reads within
// 80% of the in-process store, writes at least Redis's rate (one node), start-up under 2 s, the
// folder under 2x Redis's memory.
//
// Writes are measured beside two Redis servers. The goal is checked against Redis run with the
// same promise the embedded store makes — a write is answered once it is on disk: an append-only
// file with `appendfsync always` (docs/operations.md names it). The bench's own Redis, which keeps
// nothing, is shown beside it for what a write costs with no disk in its path (no goal: it is not
// a setup that keeps an account).
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { EmbeddedStore } from "../../src/store/embedded/index.js";
import { LmdbEngine } from "../../src/store/embedded/lmdb-engine.js";
import { RedisStore } from "../../src/store/redis/index.js";
import type { UserRecord } from "../../src/store/port.js";
import { http } from "../support/http.js";
import { PageClient, authorize, basic, pkce, registerApp } from "../support/pages.js";
import type { ServerProcess } from "../support/processes.js";
import { TestRedis } from "../support/redis.js";
import {
  cpuSeconds,
  measure,
  selected,
  sideBySide,
  type LoadOptions,
  type LoadRequest,
  type Measurement,
} from "./lib/load.js";
import type { BenchContext, BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";
import { startBenchSigil, startSwarm } from "./lib/sockets.js";
import { REDIRECT, tokenPost } from "./signin.js";

const CHALLENGES = 2000;
const SECRET = "bench-secret-0123456789abcdef0123456789abcdef";

interface Side {
  name: string;
  proc: ServerProcess;
  keys: string[];
  answers: Map<string, string>;
  access: string;
  clientId: string;
  token: string;
  mintCode(): Promise<string>;
  tokenRequest(code: string): LoadRequest;
}

/** A node's world, made over HTTP as people make it: challenges, an app, a consent, a CUSTOM TOKEN. */
async function prepare(name: string, proc: ServerProcess): Promise<Side> {
  const keys: string[] = [];
  const answers = new Map<string, string>();
  for (let i = 0; i < CHALLENGES; i += 50) {
    const made = await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        http(proc.url, "/challenge/new", { method: "POST", headers: { question: `q${i + j}`, answer: `a${i + j}` } }),
      ),
    );
    made.forEach((r, j) => {
      if (r.status !== 201) throw new Error(`setup: ${name} /challenge/new ${r.status} ${r.text}`);
      keys.push(r.json.key);
      answers.set(r.json.key, `a${i + j}`);
    });
  }
  const dev = new PageClient(proc.url);
  await dev.signUp("devon-bench");
  const app = await registerApp(dev, [REDIRECT], "Bench");
  const made = await dev.submit("/developers", `/developers/${app.clientId}/tokens`, { name: "bench" });
  const token = /class="secret custom-token">([^<]+)</.exec(made.text)?.[1];
  if (!token) throw new Error(`setup: ${name} made no CUSTOM TOKEN (${made.status})`);
  const user = new PageClient(proc.url);
  await user.signUp("alice-bench", "correct horse battery", "Alice");
  const { verifier, challenge } = pkce();
  const auth = {
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    state: "s",
    code_challenge: challenge,
    code_challenge_method: "S256",
  };
  const authorization = basic(app.clientId, app.clientSecret);
  const tokenRequest = (code: string): LoadRequest => tokenPost(authorization, code, verifier);
  const mintCode = async () => (await authorize(user, auth)).searchParams.get("code")!;
  const req = tokenRequest(await mintCode());
  const t = await http(proc.url, req.path, { method: "POST", headers: req.headers!, body: req.body! });
  if (t.status !== 200) throw new Error(`setup: ${name} /token ${t.status} ${t.text}`);
  return {
    name,
    proc,
    keys,
    answers,
    access: t.json.access_token,
    clientId: app.clientId,
    token,
    mintCode,
    tokenRequest,
  };
}

function cycle<T>(items: T[], make: (item: T) => LoadRequest): () => LoadRequest {
  let n = 0;
  return () => make(items[n++ % items.length]!);
}

const du = (dir: string): number => readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).blocks * 512, 0);

const account = (i: number): UserRecord => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  username: `user${i}`,
  displayName: `User ${i}`,
  passwordHash: `scrypt$16384$8$1$${"s".repeat(22)}$${"h".repeat(86)}`,
  createdAt: 1_795_000_000_000 + i,
});

const ACCOUNTS = 100_000;

/** 100,000 accounts in a DATA_DIR and in a Redis: start-up time and size. */
async function lastingRows(ctx: BenchContext): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "sigil-bench-data-"));
  const empty = mkdtempSync(join(tmpdir(), "sigil-bench-empty-"));
  const redis = await TestRedis.start();
  const client = new Redis(redis.url);
  try {
    const engine = new LmdbEngine(dir);
    const embedded = new EmbeddedStore(engine);
    const onRedis = new RedisStore(client, "sigil", undefined, SECRET);
    const before = Number(/used_memory:(\d+)/.exec(await client.info("memory"))![1]);
    for (let i = 0; i < ACCOUNTS; i += 1000) {
      const batch = Array.from({ length: 1000 }, (_, j) => account(i + j));
      await Promise.all(batch.flatMap((u) => [embedded.accounts.create(u), onRedis.accounts.create(u)]));
    }
    const used = Number(/used_memory:(\d+)/.exec(await client.info("memory"))![1]) - before;
    await embedded.close();
    const folder = du(dir);
    ctx.log(
      `  ${ACCOUNTS} accounts: DATA_DIR ${(folder / 1e6).toFixed(1)} MB, Redis used_memory +${(used / 1e6).toFixed(1)} MB`,
    );
    const start = async (dataDir: string) => {
      const t0 = performance.now();
      const p = await startBenchSigil("", { name: "sigil-start", env: { REDIS_URL: "", DATA_DIR: dataDir } });
      const s = (performance.now() - t0) / 1000;
      await p.stop("SIGTERM");
      return s;
    };
    await start(empty); // warm the module cache, as every later start is
    // The accounts were written by the store itself, with no data version: the first start takes
    // them for a store of before data versions and runs every migration over them (an upgrade, once).
    // The row is an ordinary start, the one after.
    const upgrade = await start(dir);
    const withData = await start(dir);
    const without = await start(empty);
    ctx.log(
      `  start-up until ready: ${withData.toFixed(2)} s with ${ACCOUNTS} accounts, ${without.toFixed(2)} s empty; ` +
        `the first start, upgrading a store without a data version: ${upgrade.toFixed(2)} s`,
    );
    const none = emptyMeasurement();
    return [
      {
        name: `stores: start-up with ${ACCOUNTS} accounts in DATA_DIR (until ready)`,
        subject: none,
        baseline: none,
        labels: ["LMDB, 100k", "LMDB, empty"],
        figure: { unit: "s", subject: withData, baseline: without, digits: 2 },
        check: { goal: "≤ 2 s", met: withData <= 2 },
      },
      {
        name: `stores: data size, ${ACCOUNTS} accounts`,
        subject: none,
        baseline: none,
        labels: ["DATA_DIR (du)", "Redis used_memory"],
        figure: { unit: "MB", subject: folder / 1e6, baseline: used / 1e6, digits: 1 },
        check: { goal: "≤ 2x Redis", met: folder <= 2 * used },
      },
    ];
  } finally {
    client.disconnect();
    await redis.destroy();
    rmSync(dir, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  }
}

/**
 * A redis-server's own CPU time so far (µs, user + system, from /proc): its commands and, with an
 * append-only file, its writes and fsyncs — the work LMDB does in the node's own threads.
 */
function serverUsec(redis: TestRedis): () => number {
  const pid = Number(/process_id:(\d+)/.exec(redis.cli("INFO", "server"))?.[1]);
  return () => (cpuSeconds(pid) ?? NaN) * 1e6;
}

/** The CPU per request of the node and its store together: LMDB's is in the node, Redis's beside it. */
function withStoreRow(name: string, subject: Measurement, baseline: Measurement, peer: string): Row {
  const node = (m: Measurement) => m.cpuUsPerRequest ?? NaN;
  return {
    name: `  ${name}: CPU per request, node + its store`,
    subject,
    baseline,
    labels: ["LMDB (in the node)", `node + ${peer}`],
    figure: {
      unit: "µs",
      subject: node(subject),
      baseline: node(baseline) + (baseline.redisUsPerRequest ?? NaN),
      digits: 0,
    },
  };
}

function emptyMeasurement(): Measurement {
  return { rps: 0, p50: 0, p99: 0, non2xx: 0, errors: 0, timeouts: 0, total: 0, unexpected: 0 };
}

export const storesBench: BenchModule = {
  name: "stores",
  description:
    "the embedded store (LMDB) beside the in-process store for reads and beside Redis for writes; start-up and size with 100,000 accounts",
  async run(ctx) {
    const { settings } = ctx;
    const procs: ServerProcess[] = [];
    const dir = mkdtempSync(join(tmpdir(), "sigil-bench-lmdb-"));
    const rows: Row[] = [];
    let aof: TestRedis | undefined;
    try {
      const args = { nodeArgs: profileArgs(settings) };
      const env = { CODE_TTL: "600" };
      const lmdb = await startBenchSigil("", {
        ...args,
        name: "sigil-lmdb",
        env: { ...env, REDIS_URL: "", DATA_DIR: dir },
      });
      procs.push(lmdb);
      const memory = await startBenchSigil("", {
        ...args,
        name: "sigil-memory",
        env: { ...env, REDIS_URL: "", DATA_DIR: ":memory:" },
      });
      procs.push(memory);
      const onRedis = await startBenchSigil(ctx.redis.url, { ...args, name: "sigil-redis", env });
      procs.push(onRedis);
      aof = await TestRedis.start({ appendonly: true }); // appendfsync always
      const onAof = await startBenchSigil(aof.url, { ...args, name: "sigil-redis-aof", env });
      procs.push(onAof);
      const [L, M, R, A] = await Promise.all([
        prepare("lmdb", lmdb),
        prepare("memory", memory),
        prepare("redis", onRedis),
        prepare("redis-aof", onAof),
      ]);
      const common = {
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        connections: settings.connections,
      };
      const redisCpu = new Map<Side, () => number>([
        [A, serverUsec(aof)],
        [R, serverUsec(ctx.redis)],
      ]);
      const load = (s: Side, next: () => LoadRequest, expect?: (st: number, b: string) => boolean): LoadOptions => ({
        ...common,
        url: s.proc.url,
        pid: s.proc.pid,
        next,
        ...(expect ? { expect } : {}),
        ...(redisCpu.has(s) ? { redisUsec: redisCpu.get(s)! } : {}),
      });
      const label = (s: Side) => (s === M ? "in-process" : s === A ? "Redis AOF always" : "Redis, nothing kept");
      const pair = async (name: string, peer: Side, goal: number | undefined, make: (s: Side) => LoadOptions) => {
        if (!selected(settings, name)) return;
        const sides = await sideBySide(ctx, name, make(L), make(peer));
        rows.push({ name, ...sides, ...(goal !== undefined ? { goal } : {}), labels: ["LMDB", label(peer)] });
      };
      /**
       * A write row beside Redis answering once on disk (the goal), with the CPU per request of each
       * node and its store together (shown, not judged); then beside Redis keeping nothing.
       */
      const write = async (name: string, make: (s: Side) => LoadOptions) => {
        await pair(`${name} vs Redis AOF always`, A, 1, make);
        const row = rows.at(-1);
        if (row?.name === `${name} vs Redis AOF always`)
          rows.push(withStoreRow(name, row.subject, row.baseline, "Redis AOF always"));
        await pair(`${name} vs Redis, nothing kept`, R, undefined, make);
      };
      const ok200 = (st: number) => st === 200;
      // Reads, beside the in-process store.
      await pair("stores: GET /challenge/q (read)", M, 0.8, (s) =>
        load(
          s,
          cycle(s.keys, (key) => ({ method: "GET", path: "/challenge/q", headers: { key } })),
          ok200,
        ),
      );
      await pair("stores: GET /auth/user (read)", M, 0.8, (s) => {
        const req: LoadRequest = {
          method: "GET",
          path: "/auth/user",
          headers: { authorization: `Bearer ${s.access}`, client_id: s.clientId },
        };
        return load(s, () => req, ok200);
      });
      // Writes, beside Redis.
      await write("stores: POST /challenge/solve, right answers (write)", (s) =>
        load(
          s,
          cycle(s.keys, (key) => ({
            method: "POST",
            path: "/challenge/solve",
            headers: { key, a: s.answers.get(key)! },
          })),
          (st, b) => st === 200 && b.includes('"correct":true'),
        ),
      );
      await write("stores: POST /challenge/new (write)", (s) => {
        let n = 0;
        return load(
          s,
          () => ({ method: "POST", path: "/challenge/new", headers: { question: `bench ${n++}`, answer: "x" } }),
          (st) => st === 201,
        );
      });
      const tname = "stores: POST /token, code trade (write)";
      if (selected(settings, tname)) {
        const count = Number(process.env.BENCH_TOKEN_CODES ?? 2000);
        const best: Record<string, Measurement> = {};
        for (let round = 1; round <= Math.max(1, settings.rounds); round++) {
          for (const s of [L, A, R]) {
            const pool: string[] = [];
            for (let i = 0; i < count + count / 10; i++) pool.push(await s.mintCode());
            let i = 0;
            const m = await measure({
              ...load(s, () => s.tokenRequest(pool[i++] ?? "exhausted"), ok200),
              amount: count,
              warmupAmount: count / 10,
            });
            ctx.log(`  ${tname} round ${round}: ${s.name} ${m.rps.toFixed(0)} trades/s`);
            if (!best[s.name] || m.rps > best[s.name]!.rps) best[s.name] = m;
          }
        }
        rows.push({
          name: `${tname} vs Redis AOF always`,
          subject: best.lmdb!,
          baseline: best["redis-aof"]!,
          goal: 1,
          labels: ["LMDB", label(A)],
        });
        rows.push(withStoreRow(tname, best.lmdb!, best["redis-aof"]!, "Redis AOF always"));
        rows.push({
          name: `${tname} vs Redis, nothing kept`,
          subject: best.lmdb!,
          baseline: best.redis!,
          labels: ["LMDB", label(R)],
        });
      }
      const cname = "stores: socket connections/s, CUSTOM TOKEN (read)";
      if (selected(settings, cname)) {
        const swarm = await startSwarm(2);
        try {
          const rate: Record<string, number> = {};
          for (let round = 1; round <= Math.max(1, settings.rounds); round++) {
            for (const s of [L, M]) {
              const t0 = performance.now();
              const { connected } = await swarm.connect(s.proc.url, s.token, 2000, 100);
              const r = connected / ((performance.now() - t0) / 1000);
              await swarm.drop();
              ctx.log(`  ${cname} round ${round}: ${s.name} ${connected} sockets, ${r.toFixed(0)}/s`);
              rate[s.name] = Math.max(rate[s.name] ?? 0, connected === 2000 ? r : 0);
            }
          }
          const none = emptyMeasurement();
          rows.push({
            name: cname,
            subject: none,
            baseline: none,
            goal: 0.8,
            labels: ["LMDB", "in-process"],
            figure: { unit: "conn/s", subject: rate.lmdb!, baseline: rate.memory! },
          });
        } finally {
          await swarm.close();
        }
      }
    } finally {
      await stopAll(ctx, procs);
      await aof?.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
    if (selected(settings, "stores: start-up") || selected(settings, "stores: data size"))
      rows.push(...(await lastingRows(ctx)));
    return rows;
  },
};
