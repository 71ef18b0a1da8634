// Many idle sockets (issue #14 §3): BENCH_IDLE_SOCKETS (45,000) sockets of one app, a third on each
// of three Sigil nodes on one Redis, held by socket-swarm.ts client processes of at most
// BENCH_IDLE_PER_CLIENT (15,000) sockets each (one file descriptor per socket: `ulimit -n` must
// allow it); then one event that every socket must get. Beside the same with bare Socket.IO +
// @socket.io/redis-adapter (baseline-recovery.ts with ADAPTER=redis, sockets in one room, POST
// /publish broadcasts to it), one side after the other. Reported per side: how long the sockets
// took to connect; RSS of each node before the sockets, after them (5 s idle) and per socket; the
// event's arrival at every socket (from the request's send to the last socket, and the median),
// and the sockets that did not get it. Minutes at full size: its own script (`npm run bench:idle`),
// not part of the default `npm run bench`.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { sigilEnv, type ServerProcess } from "../support/processes.js";
import { cpuSeconds, type Measurement } from "./lib/load.js";
import type { BenchContext, BenchModule } from "./lib/module.js";
import { stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";
import {
  appWithToken,
  num,
  ownedChallenges,
  percentile,
  rss,
  sleep,
  startBenchSigil,
  startFloorNodes,
  startSwarm,
} from "./lib/sockets.js";
import { empty } from "./realtime.js";

const now = () => performance.timeOrigin + performance.now();
const MiB = 1024 * 1024;

/** The soft limit on open files of processes started from here (`ulimit -n`). */
function openFilesLimit(): number {
  const m = /Max open files\s+(\d+|unlimited)/.exec(readFileSync("/proc/self/limits", "utf8"));
  return !m || m[1] === "unlimited" ? Infinity : Number(m[1]);
}

interface IdleSide {
  label: string;
  nodes: ServerProcess[];
  token?: string;
  /** Sends the one event; resolves with the HTTP status. */
  publish(): Promise<number>;
  key: string;
}

interface IdleResult {
  connected: number;
  /** Sockets whose handshake failed (connect_error or 20 s without an answer). */
  failed: number;
  connectSeconds: number;
  /** RSS per node before and after the sockets (bytes). */
  before: number[];
  after: number[];
  /** (after − before) / sockets on the node, averaged over the nodes (bytes). */
  perSocket: number;
  clientRss: number[];
  arrived: number;
  /** From the send to the last socket's arrival, and the median arrival (ms). */
  all: number;
  p50: number;
  status: number;
}

async function idleRun(ctx: BenchContext, side: IdleSide, sockets: number, perClient: number): Promise<IdleResult> {
  const swarm = await startSwarm(Math.ceil(sockets / perClient));
  try {
    await sleep(2000);
    const before = side.nodes.map((n) => rss(n.pid));
    const t0 = performance.now();
    let connected = 0;
    let failed = 0;
    const perNode: number[] = [];
    for (const [i, n] of side.nodes.entries()) {
      const count = Math.floor(sockets / 3) + (i < sockets % 3 ? 1 : 0);
      const r = await swarm.connect(n.url, side.token, count, 250, true);
      // Reported, not fatal: on a saturated machine a few handshakes time out (20 s), and the rest is still worth measuring.
      failed += r.failed;
      connected += r.connected;
      perNode.push(r.connected);
    }
    const connectSeconds = (performance.now() - t0) / 1000;
    await sleep(5000); // idle
    const after = side.nodes.map((n) => rss(n.pid));
    const clientRss = swarm.procs.map((p) => rss(p.pid!));
    await swarm.arrivals(); // nothing before the event
    const sent = now();
    const status = await side.publish();
    // Until every socket has it, or none more has for 3 s (60 s at most).
    const times: number[] = [];
    for (let idle = 0, waited = 0; times.length < connected && idle < 3 && waited < 60; waited++) {
      await sleep(1000);
      const got = (await swarm.arrivals()).get(side.key) ?? [];
      times.push(...got.map((t) => t - sent));
      idle = got.length === 0 ? idle + 1 : 0;
    }
    times.sort((a, b) => a - b);
    const perSocket = side.nodes.reduce((a, _, i) => a + (after[i]! - before[i]!) / perNode[i]!, 0) / side.nodes.length;
    const r: IdleResult = {
      connected,
      failed,
      connectSeconds,
      before,
      after,
      perSocket,
      clientRss,
      arrived: times.length,
      all: times.at(-1) ?? NaN,
      p50: percentile(times, 50),
      status,
    };
    const mib = (b: number) => (b / MiB).toFixed(0);
    ctx.log(
      `  ${side.label}: ${connected} sockets on 3 nodes from ${swarm.procs.length} client processes in ${connectSeconds.toFixed(1)} s ` +
        `(${failed} failed to connect) ` +
        `(${(connected / connectSeconds).toFixed(0)}/s); node RSS ${before.map(mib).join("/")} → ${after.map(mib).join("/")} MiB, ` +
        `${(perSocket / 1024).toFixed(1)} KiB per socket; client RSS ${clientRss.map(mib).join("/")} MiB; ` +
        `one event (HTTP ${status}): ${r.arrived} of ${connected} sockets got it, the last after ${r.all.toFixed(0)} ms ` +
        `(median ${r.p50.toFixed(0)} ms); load ${loadavg()
          .map((l) => l.toFixed(1))
          .join(" ")}`,
    );
    return r;
  } finally {
    await swarm.close();
  }
}

function measurement(r: IdleResult): Measurement {
  return {
    ...empty(),
    total: r.arrived,
    errors: r.connected - r.arrived,
    non2xx: r.status === 200 ? 0 : 1,
    p50: r.p50,
    p99: r.all,
  };
}

export const idleBench: BenchModule = {
  name: "idle",
  description:
    "many idle sockets over three nodes (45,000 by default): RSS per node and per socket, one event to every socket, beside bare Socket.IO + @socket.io/redis-adapter",
  async run(ctx) {
    const redisUrl = ctx.redis.url;
    const sockets = num("BENCH_IDLE_SOCKETS", 45_000);
    const perClient = num("BENCH_IDLE_PER_CLIENT", 15_000);
    const limit = openFilesLimit();
    // Each node holds a third of the sockets, each client process perClient: one descriptor each.
    if (Math.max(perClient, sockets / 3) + 200 > limit)
      throw new Error(
        `ulimit -n is ${limit}: too low for ${perClient} sockets per client process and ${Math.ceil(sockets / 3)} per node (raise it, or lower BENCH_IDLE_PER_CLIENT)`,
      );
    const procs: ServerProcess[] = [];
    try {
      const sigil = await Promise.all(["A", "B", "C"].map((n) => startBenchSigil(redisUrl, { name: `sigil ${n}` })));
      procs.push(...sigil);
      const floor = await startFloorNodes(redisUrl);
      procs.push(...floor);
      const { token } = appWithToken(sigilEnv(0, redisUrl));
      const [key] = await ownedChallenges(sigil[0]!.url, token, 1);
      const post = async (url: string, headers: Record<string, string>) =>
        (await fetch(url, { method: "POST", headers })).status;
      const s = await idleRun(
        ctx,
        {
          label: "Sigil",
          nodes: sigil,
          token,
          key: key!,
          publish: () =>
            post(`${sigil[0]!.url}/challenge/solve`, { "content-type": "application/json", key: key!, a: "answer-0" }),
        },
        sockets,
        perClient,
      );
      const f = await idleRun(
        ctx,
        {
          label: "floor",
          nodes: floor,
          key: "idle-1",
          publish: () => post(`${floor[0]!.url}/publish`, { key: "idle-1" }),
        },
        sockets,
        perClient,
      );
      const cpu = (side: ServerProcess[]) => side.map((n) => (cpuSeconds(n.pid) ?? NaN).toFixed(1)).join("/");
      ctx.log(`  node CPU seconds over the module: Sigil ${cpu(sigil)}, floor ${cpu(floor)}`);
      const kib = (r: IdleResult) => r.perSocket / 1024;
      const rows: Row[] = [
        {
          name: `${sockets} idle sockets on 3 nodes: memory per socket`,
          subject: measurement(s),
          baseline: measurement(f),
          labels: ["Sigil", "Socket.IO + redis-adapter"],
          figure: { unit: "KiB", subject: kib(s), baseline: kib(f), digits: 1 },
          note:
            `(node RSS after − before) / its sockets, mean of the 3 nodes; node RSS after: Sigil ${s.after.map((b) => (b / MiB).toFixed(0)).join("/")} MiB, ` +
            `floor ${f.after.map((b) => (b / MiB).toFixed(0)).join("/")} MiB. One event: p50 = median arrival, p99 column = the last socket's (ms); ` +
            `errors = connected sockets that never got it. Connected in ${s.connectSeconds.toFixed(0)} s / ${f.connectSeconds.toFixed(0)} s; ` +
            `handshakes failed: ${s.failed} / ${f.failed}`,
        },
      ];
      return rows;
    } finally {
      await stopAll(ctx, procs, [0, "SIGTERM"]);
    }
  },
};
