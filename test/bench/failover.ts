// npm run failover — a Redis Cluster master killed under load, with and without REDIS_WAIT_REPLICAS.
//
// A private cluster (three masters, three replicas, cluster-node-timeout 500 ms) and two Sigil
// nodes in this process; FAILOVER_WORKERS (8) loops each make a challenge on one node and solve it
// on the other (owned by an app, so every solve is an event), and one socket per node receives the
// app's events. For each side (no wait; REDIS_WAIT_REPLICAS=1):
// 1. FAILOVER_LATENCY_SECONDS (5) of that load, after FAILOVER_WARMUP_SECONDS (3): p50/p99 of new
//    and solve.
// 2. The same load; after 2 s the master of the app's history shard is SIGKILLed, and restarted
//    FAILOVER_RESTART_SECONDS (5) later (it comes back as a replica of the new master, as an
//    orchestrator would bring it back); FAILOVER_AFTER_SECONDS (12) of load after the kill. Reports
//    how long after the kill requests kept failing, how fast the failures came (503, never a
//    hang), and then checks every id: each 201 challenge must still be readable, each 200 solve
//    must have its event in the history, and each event a socket received must be in the history.
import { loadavg } from "node:os";
import { createRequest, send, sleep, solveRequest, type Outcome } from "../faults/client.js";
import { readyClient, type ChannelClient } from "../support/channel.js";
import { TestCluster } from "../support/cluster.js";
import { startNode, type TestNode } from "../support/nodes.js";
import { hasRedisServer } from "../support/redis.js";

const APP = "test-app";
const HISTORY = { maxEvents: 1_000_000, ttlSeconds: 86_400 };
const num = (name: string, d: number) => (process.env[name] ? Number(process.env[name]) : d);
const WORKERS = num("FAILOVER_WORKERS", 8);
const LATENCY_S = num("FAILOVER_LATENCY_SECONDS", 5);
const WARMUP_S = num("FAILOVER_WARMUP_SECONDS", 3);
const RESTART_S = num("FAILOVER_RESTART_SECONDS", 5);
const AFTER_S = num("FAILOVER_AFTER_SECONDS", 12);

interface Rec extends Outcome {
  key?: string;
  question?: string;
}

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** Closed-loop load: each worker makes a challenge on one node and solves it on the other. */
function load(nodes: TestNode[], token: string, t0: number, tag: string) {
  const out: Rec[] = [];
  let stopped = false;
  let n = 0;
  const now = () => Date.now() - t0;
  const loops = Array.from({ length: WORKERS }, async (_, w) => {
    while (!stopped) {
      const [x, y] = w % 2 ? [nodes[0]!, nodes[1]!] : [nodes[1]!, nodes[0]!];
      const question = `${tag}-${w}-${n++}`;
      let sent = now();
      const made = await send(x.url, createRequest(question, "yes", { authorization: `Bearer ${token}` }));
      const key = made.status === 201 ? (made.json as { key: string }).key : undefined;
      out.push({ sent, ended: now(), kind: "new", ...made, ...(key ? { key, question } : {}) });
      if (!key) {
        await sleep(20);
        continue;
      }
      sent = now();
      const solved = await send(y.url, solveRequest(key, "yes"));
      out.push({ sent, ended: now(), kind: "solve", ...solved, key });
      if (solved.status !== 200) await sleep(20);
    }
  });
  return {
    out,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

async function retrying<T>(f: () => Promise<T | "retry">, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await f();
    if (r !== "retry") return r;
    if (Date.now() > until) throw new Error("the store did not answer again");
    await sleep(100);
  }
}

async function side(wait: boolean) {
  const cluster = await TestCluster.start({ replicas: 1, nodeTimeoutMs: 500 });
  const env: Record<string, string> = {
    REDIS_ADAPTER: "sharded",
    LOG_LEVEL: "fatal",
    // Keep every event of the run, so that "not in the history" means lost, not trimmed.
    HISTORY_MAX_EVENTS: "1000000",
    ...(wait ? { REDIS_WAIT_REPLICAS: "1", REDIS_WAIT_TIMEOUT_MS: "500" } : {}),
  };
  const nodes = [await startNode({ redisUrl: cluster.url, env }), await startNode({ redisUrl: cluster.url, env })];
  const sockets: ChannelClient[] = [];
  try {
    const { token } = await nodes[0]!.server.customTokens.create({ app: APP });
    for (const n of nodes) sockets.push(await readyClient(n.url, { token, reconnection: true }));

    // 1. Latency, after FAILOVER_WARMUP_SECONDS (3) of the same load (the first side would
    // otherwise pay for the process's cold start).
    const warm = load(nodes, token, Date.now(), "warm");
    await sleep(WARMUP_S * 1000);
    await warm.stop();
    const lat = load(nodes, token, Date.now(), "lat");
    await sleep(LATENCY_S * 1000);
    await lat.stop();
    const ok = (kind: string) => lat.out.filter((o) => o.kind === kind && (o.status === 201 || o.status === 200));
    const ms = (os: Rec[]) => os.map((o) => o.ended - o.sent);
    const latency = {
      newP50: pct(ms(ok("new")), 50),
      newP99: pct(ms(ok("new")), 99),
      solveP50: pct(ms(ok("solve")), 50),
      solveP99: pct(ms(ok("solve")), 99),
      perSecond: Math.round((ok("new").length + ok("solve").length) / LATENCY_S),
      failed: lat.out.filter((o) => o.status !== 201 && o.status !== 200).length,
    };

    // 2. Failover.
    const { master } = cluster.shardOf(`sigil:ev:{${APP}}`);
    const t0 = Date.now();
    const fo = load(nodes, token, t0, "fo");
    await sleep(2000);
    const killedAt = Date.now() - t0;
    await master.stop("SIGKILL");
    await sleep(RESTART_S * 1000);
    await master.start();
    await sleep(Math.max(0, AFTER_S - RESTART_S) * 1000);
    await fo.stop();
    const after = fo.out.filter((o) => o.sent >= killedAt);
    const failed = after.filter((o) => o.status !== 201 && o.status !== 200);
    const lastFail = failed.reduce((m, o) => Math.max(m, o.ended), killedAt);
    const outage = {
      failingForMs: lastFail - killedAt,
      requestsAfterKill: after.length,
      failed: failed.length,
      byStatus: Object.entries(
        failed.reduce<Record<string, number>>((m, o) => {
          const k = String(o.status ?? o.error);
          m[k] = (m[k] ?? 0) + 1;
          return m;
        }, {}),
      )
        .map(([k, v]) => `${k}×${v}`)
        .join(" "),
      slowestFailureMs: failed.reduce((m, o) => Math.max(m, o.ended - o.sent), 0),
      /** Answered 2xx after the kill: how long the store client's own retries stretched a request. */
      succeededP99Ms: pct(
        after.filter((o) => o.status === 201 || o.status === 200).map((o) => o.ended - o.sent),
        99,
      ),
      succeededSlowestMs: after
        .filter((o) => o.status === 201 || o.status === 200)
        .reduce((m, o) => Math.max(m, o.ended - o.sent), 0),
    };

    // 3. Every id checked.
    await cluster.waitOk(20_000);
    const all = [...warm.out, ...lat.out, ...fo.out];
    const acked = all.filter((o) => o.kind === "new" && o.status === 201);
    let lostChallenges = 0;
    for (const o of acked) {
      const status = await retrying(async () => {
        const r = await send(nodes[0]!.url, { method: "GET", path: "/challenge/q", headers: { key: o.key! } });
        return r.status === 503 || r.status === undefined ? "retry" : r.status;
      });
      if (status !== 200) lostChallenges++;
    }
    const history = await retrying(async () => {
      try {
        return await nodes[0]!.opened.store.events.readAfter(APP, "0-0", 1_000_000, HISTORY);
      } catch {
        return "retry";
      }
    });
    const keys = new Set(history.events.map((e) => e.key));
    const ids = new Set(history.events.map((e) => e.id));
    const solved = all.filter((o) => o.kind === "solve" && o.status === 200);
    const lostEvents = solved.filter((o) => !keys.has(o.key!)).length;
    const seen = new Set(sockets.flatMap((s) => s.events.map((e) => e.id)));
    const seenLost = [...seen].filter((id) => !ids.has(id)).length;
    return {
      latency,
      outage,
      acked: { challenges: acked.length, solves: solved.length, socketEvents: seen.size },
      lost: { challenges: lostChallenges, solveEvents: lostEvents, socketEvents: seenLost },
    };
  } finally {
    for (const s of sockets) s.close();
    await Promise.all(nodes.map((n) => n.close()));
    await cluster.destroy();
  }
}

async function main() {
  if (!hasRedisServer()) throw new Error("redis-server is not installed");
  const load0 = loadavg()[0]!.toFixed(1);
  const results: Record<string, Awaited<ReturnType<typeof side>>> = {};
  for (const wait of [false, true]) {
    const name = wait ? "REDIS_WAIT_REPLICAS=1" : "no wait";
    process.stderr.write(`failover: ${name}…\n`);
    results[name] = await side(wait);
  }
  console.log(
    JSON.stringify(
      {
        conditions: {
          workers: WORKERS,
          latencySeconds: LATENCY_S,
          restartSeconds: RESTART_S,
          afterSeconds: AFTER_S,
          loadAverageBefore: load0,
          loadAverageAfter: loadavg()[0]!.toFixed(1),
        },
        results,
      },
      null,
      2,
    ),
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
