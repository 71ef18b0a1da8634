// Channels (docs/realtime.md "Channels"): an app's server publishes over HTTP (POST
// /realtime/publish with a CUSTOM TOKEN made with --publish), its sockets subscribe. Sigil beside
// a floor that does the least the same can: bare Socket.IO + @socket.io/redis-adapter, a room per
// channel, an HTTP endpoint that emits to the room (baseline-channels.ts: no history, no resuming,
// no auth, no limits), three nodes of each on the bench Redis, in one run. Rows:
// - latency: BENCH_CHANNELS_LATENCY_SUBSCRIBERS (10) sockets on node B subscribed to one channel,
//   one message at a time published on node A at BENCH_CHANNELS_LATENCY_RATE (20) a second,
//   BENCH_WARMUP seconds of warm-up then BENCH_SECONDS measured; p50/p99 from the request's send
//   (this process) to the message's arrival at each socket (the client process; one machine clock).
//   Goal: Sigil's p99 ≤ 2× the floor's.
// - throughput: BENCH_CHANNELS_SUBSCRIBERS (1,000) sockets, a third on each node, subscribed to one
//   channel; after a warm-up burst, BENCH_CHANNELS_MESSAGES (500) messages published round robin on
//   the three nodes in batches of BENCH_CHANNELS_BATCH (10) at BENCH_CHANNELS_RATE (100) requests a
//   second (under the app's 200/s publish limit): more than the machine delivers, so what is
//   measured is how fast the nodes drain it — deliveries / (first send → last delivery). Goal ≥ 80%
//   of the floor's.
// - memory: BENCH_CHANNELS_MEMORY_SOCKETS (10,000) sockets on node C, each subscribed to the same
//   BENCH_CHANNELS_PER_SOCKET (10) channels (the floor: joined to 10 rooms); RSS and V8 heap
//   (after a full GC, memory-agent.mjs) per socket, before → 5 s after the last subscribe.
//   Goal ≤ 130% of the floor's.
// Every row counts every delivery: a message that did not reach a socket, a socket whose subscribe
// failed or a publish that was not 200 fails the row (and the run).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, sigilEnv, startProcess, type ServerProcess } from "../support/processes.js";
import { cpuSeconds, selected, type Measurement } from "./lib/load.js";
import type { BenchContext, BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";
import { appWithToken, cli, num, percentile, rss, sleep, startBenchSigil, startSwarm } from "./lib/sockets.js";
import { empty } from "./realtime.js";

const now = () => performance.timeOrigin + performance.now();
const KiB = 1024;
const FLOOR = "Socket.IO + redis-adapter";

interface Side {
  label: string;
  nodes: ServerProcess[];
  /** The sockets' auth token (Sigil only). */
  token?: string;
  /** Headers of a publish request (Sigil: the --publish token). */
  headers: Record<string, string>;
}

function post(agent: Agent, url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

const publish = (agent: Agent, side: Side, node: number, messages: Array<{ channel: string; data: unknown }>) =>
  post(
    agent,
    `${side.nodes[node]!.url}/realtime/publish`,
    side.headers,
    JSON.stringify(messages.length === 1 ? messages[0] : messages),
  );

const cpuOf = (nodes: ServerProcess[]) => nodes.map((n) => cpuSeconds(n.pid) ?? NaN);
const cpuSince = (nodes: ServerProcess[], before: number[]) =>
  nodes.reduce((a, n, i) => a + (cpuSeconds(n.pid) ?? NaN) - before[i]!, 0);

/** Publish on node A, subscribers on node B: publish → arrival, every message at every socket. */
async function latencyRun(ctx: BenchContext, side: Side): Promise<Measurement> {
  const { settings } = ctx;
  const subscribers = num("BENCH_CHANNELS_LATENCY_SUBSCRIBERS", 10);
  const rate = num("BENCH_CHANNELS_LATENCY_RATE", 20);
  const channel = "latency";
  const swarm = await startSwarm(1);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  try {
    const c = await swarm.connect(side.nodes[1]!.url, side.token, subscribers, 50, true, undefined, [channel]);
    const warm = Math.round(rate * settings.warmupSeconds);
    const total = warm + Math.round(rate * settings.seconds);
    const sent = new Map<string, number>();
    const statuses: Record<number, number> = {};
    const inflight: Array<Promise<void>> = [];
    let warmArrived = 0;
    let cpu0 = cpuOf(side.nodes.slice(0, 2));
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const wait = start + (i / rate) * 1000 - performance.now();
      if (wait > 0) await sleep(wait);
      if (i === warm) {
        // The warm-up's deliveries: counted (none may be lost), not timed.
        for (const ts of (await swarm.arrivals()).values()) warmArrived += ts.length;
        cpu0 = cpuOf(side.nodes.slice(0, 2));
      }
      const k = `l${i}`;
      if (i >= warm) sent.set(k, now());
      inflight.push(
        publish(agent, side, 0, [{ channel, data: { k } }]).then((s) => {
          statuses[s] = (statuses[s] ?? 0) + 1; // the warm-up's too: every publish must be 200
        }),
      );
    }
    await Promise.all(inflight);
    const expected = sent.size * c.connected;
    const lat: number[] = [];
    for (let idle = 0, waited = 0; lat.length < expected && idle < 3 && waited < 60; waited++) {
      const got = await swarm.arrivals();
      let n = 0;
      for (const [k, ts] of got) {
        n += ts.length;
        const t0 = sent.get(k);
        if (t0 === undefined) {
          warmArrived += ts.length; // a late one of the warm-up
          continue;
        }
        for (const t of ts) lat.push(t - t0);
      }
      idle = n === 0 ? idle + 1 : 0;
      if (lat.length < expected) await sleep(1000);
    }
    const cpu = cpuSince(side.nodes.slice(0, 2), cpu0);
    lat.sort((a, b) => a - b);
    const non2xx = total - (statuses[200] ?? 0);
    const lost = expected - lat.length + (warm * c.connected - warmArrived);
    const m: Measurement = {
      ...empty(),
      rps: lat.length / settings.seconds,
      p50: percentile(lat, 50),
      p99: percentile(lat, 99),
      non2xx,
      errors: lost,
      total: lat.length,
      statuses,
      cpuUsPerRequest: (cpu * 1e6) / Math.max(1, sent.size),
      unexpected: Math.abs(lost) + non2xx + c.failed, // duplicates too
    };
    ctx.log(
      `  ${side.label} latency: ${c.connected} subscribers on node B (${c.failed} failed), ${sent.size} messages published on node A: ` +
        `${lat.length} of ${expected} deliveries, p50 ${m.p50.toFixed(1)} ms p99 ${m.p99.toFixed(1)} ms; ` +
        `statuses ${JSON.stringify(statuses)}; load ${loadavg()[0]!.toFixed(1)}`,
    );
    return m;
  } finally {
    agent.destroy();
    await swarm.close();
  }
}

/** Sockets on three nodes, one channel; a burst drained: deliveries per second. */
async function throughputRun(ctx: BenchContext, side: Side, label: string): Promise<Measurement> {
  const subscribers = num("BENCH_CHANNELS_SUBSCRIBERS", 1000);
  const messages = num("BENCH_CHANNELS_MESSAGES", 500);
  const batch = Math.min(100, num("BENCH_CHANNELS_BATCH", 10));
  const rate = num("BENCH_CHANNELS_RATE", 100);
  const channel = "throughput";
  const swarm = await startSwarm(num("BENCH_SOCKET_CLIENTS", 2));
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  try {
    let connected = 0;
    let failed = 0;
    for (const [i, n] of side.nodes.entries()) {
      const count = Math.floor(subscribers / 3) + (i < subscribers % 3 ? 1 : 0);
      const r = await swarm.connect(n.url, side.token, count, 100, false, label, [channel]);
      connected += r.connected;
      failed += r.failed;
    }
    const count = async () => (await swarm.counts())[label] ?? 0;
    /** Publishes `n` messages in batches, round robin on the nodes, at `rate` requests/s. */
    const burst = async (n: number, prefix: string) => {
      const statuses: Record<number, number> = {};
      const inflight: Array<Promise<void>> = [];
      const start = performance.now();
      for (let i = 0, r = 0; i < n; i += batch, r++) {
        const wait = start + (r / rate) * 1000 - performance.now();
        if (wait > 0) await sleep(wait);
        const msgs = Array.from({ length: Math.min(batch, n - i) }, (_, j) => ({
          channel,
          data: { k: `${prefix}${i + j}` },
        }));
        inflight.push(
          publish(agent, side, r % side.nodes.length, msgs).then((s) => {
            statuses[s] = (statuses[s] ?? 0) + 1;
          }),
        );
      }
      await Promise.all(inflight);
      return statuses;
    };
    /** Polls the count until it reaches `target` or stops moving for 3 s; the time it last moved. */
    const drain = async (target: number) => {
      let last = await count();
      let lastAt = performance.now();
      while (last < target && performance.now() - lastAt < 3000) {
        await sleep(50);
        const c = await count();
        if (c !== last) {
          last = c;
          lastAt = performance.now();
        }
      }
      return { delivered: last, at: lastAt };
    };
    // Warm-up: a tenth of the burst, drained.
    const warm = Math.max(batch, Math.round(messages / 10));
    const warmStatuses = await burst(warm, "w");
    const c0 = (await drain(warm * connected)).delivered;
    const warmLost = warm * connected - c0; // none may be lost (or doubled) in the warm-up either
    const cpu0 = cpuOf(side.nodes);
    const t0 = performance.now();
    const statuses = await burst(messages, "t");
    const expected = c0 + messages * connected;
    const { delivered, at } = await drain(expected);
    const cpu = cpuSince(side.nodes, cpu0);
    const seconds = (at - t0) / 1000;
    const got = delivered - c0;
    const requests = Math.ceil(messages / batch);
    const non2xx = requests - (statuses[200] ?? 0) + Math.ceil(warm / batch) - (warmStatuses[200] ?? 0);
    const lost = expected - delivered + warmLost;
    const m: Measurement = {
      ...empty(),
      rps: got / seconds,
      non2xx,
      errors: lost,
      total: got,
      statuses,
      cpuUsPerRequest: (cpu * 1e6) / Math.max(1, got),
      unexpected: Math.abs(lost) + non2xx + failed, // duplicates too
    };
    ctx.log(
      `  ${side.label} throughput: ${connected} subscribers on 3 nodes (${failed} failed), ${messages} messages in batches of ${batch}: ` +
        `${got} of ${messages * connected} deliveries in ${seconds.toFixed(2)} s = ${m.rps.toFixed(0)}/s, ` +
        `CPU ${m.cpuUsPerRequest!.toFixed(1)} µs per delivery (nodes); statuses ${JSON.stringify(statuses)}; load ${loadavg()[0]!.toFixed(1)}`,
    );
    return m;
  } finally {
    agent.destroy();
    await swarm.close();
  }
}

/** Asks memory-agent.mjs in `p` for process.memoryUsage() after a full GC. */
async function memoryOf(p: ServerProcess, dir: string, n: number): Promise<NodeJS.MemoryUsage> {
  const f = join(dir, `${p.pid}-${n}.json`);
  p.kill("SIGUSR2");
  for (const until = Date.now() + 60_000; !existsSync(f); await sleep(50))
    if (Date.now() > until) throw new Error(`${p.name}: no memory report`);
  return JSON.parse(readFileSync(f, "utf8")) as NodeJS.MemoryUsage;
}

interface MemoryResult {
  rss: number;
  heap: number;
  connected: number;
  failed: number;
}

/** N sockets × K channels on one node: RSS and heap per socket. */
async function memoryRun(ctx: BenchContext, side: Side, node: ServerProcess, dir: string): Promise<MemoryResult> {
  const sockets = num("BENCH_CHANNELS_MEMORY_SOCKETS", 10_000);
  const perSocket = Math.min(100, num("BENCH_CHANNELS_PER_SOCKET", 10));
  const channels = Array.from({ length: perSocket }, (_, i) => `room-${i}`);
  const swarm = await startSwarm(Math.max(2, Math.ceil(sockets / 15_000)));
  try {
    await sleep(1000);
    const m0 = await memoryOf(node, dir, 0);
    const rss0 = rss(node.pid);
    const t0 = performance.now();
    const r = await swarm.connect(node.url, side.token, sockets, 250, false, undefined, channels);
    const connectSeconds = (performance.now() - t0) / 1000;
    await sleep(5000); // idle
    const m1 = await memoryOf(node, dir, 1);
    const rss1 = rss(node.pid);
    const res: MemoryResult = {
      rss: (rss1 - rss0) / Math.max(1, r.connected),
      heap: (m1.heapUsed - m0.heapUsed) / Math.max(1, r.connected),
      connected: r.connected,
      failed: r.failed,
    };
    ctx.log(
      `  ${side.label} memory: ${r.connected} sockets × ${perSocket} channels (${r.failed} failed) in ${connectSeconds.toFixed(1)} s; ` +
        `RSS ${(rss0 / 1024 / KiB).toFixed(0)} → ${(rss1 / 1024 / KiB).toFixed(0)} MiB, ${(res.rss / KiB).toFixed(2)} KiB/socket; ` +
        `heap ${(m0.heapUsed / 1024 / KiB).toFixed(0)} → ${(m1.heapUsed / 1024 / KiB).toFixed(0)} MiB, ${(res.heap / KiB).toFixed(2)} KiB/socket; ` +
        `load ${loadavg()[0]!.toFixed(1)}`,
    );
    return res;
  } finally {
    await swarm.close();
  }
}

export const channelsBench: BenchModule = {
  name: "channels",
  description:
    "channels: publish → deliver latency across nodes, deliveries/s to 1,000 subscribers on 3 nodes, memory per subscribed socket, beside bare Socket.IO + @socket.io/redis-adapter rooms",
  async run(ctx) {
    const { settings } = ctx;
    const redisUrl = ctx.redis.url;
    const latencyName = "channels: publish on node A → a subscriber on node B";
    const subscribers = num("BENCH_CHANNELS_SUBSCRIBERS", 1000);
    const throughputName = `channels: publish to ${subscribers} subscribers on 3 nodes`;
    const memSockets = num("BENCH_CHANNELS_MEMORY_SOCKETS", 10_000);
    const perSocket = Math.min(100, num("BENCH_CHANNELS_PER_SOCKET", 10));
    const memName = `channels: ${memSockets} sockets × ${perSocket} channels on one node`;
    const want = {
      latency: selected(settings, latencyName),
      throughput: selected(settings, throughputName),
      memory: selected(settings, memName),
    };
    if (!want.latency && !want.throughput && !want.memory) return [];
    const dir = mkdtempSync(join(tmpdir(), "sigil-bench-memory-"));
    // Node C of each side answers SIGUSR2 with its memory after a full GC (memory-agent.mjs).
    const agent = ["--expose-gc", "--import", join(ROOT, "test/bench/memory-agent.mjs")];
    const procs: ServerProcess[] = [];
    try {
      const prof = profileArgs(settings);
      const sigil = await Promise.all(
        ["A", "B", "C"].map((n) =>
          startBenchSigil(redisUrl, {
            name: `sigil ${n}`,
            nodeArgs: n === "C" ? [...prof, ...agent] : prof,
            env: n === "C" ? { MEMORY_DIR: dir } : {},
          }),
        ),
      );
      procs.push(...sigil);
      const floor = await Promise.all(
        ["A", "B", "C"].map((n) =>
          startProcess({
            name: `floor ${n}`,
            entry: "test/bench/baseline-channels.ts",
            env: { REDIS_URL: redisUrl, ...(n === "C" ? { MEMORY_DIR: dir } : {}) },
            nodeArgs: n === "C" ? agent : [],
          }),
        ),
      );
      procs.push(...floor);
      const cliEnv = sigilEnv(0, redisUrl);
      const { app, token } = appWithToken(cliEnv);
      const { token: publishToken } = cli(
        cliEnv,
        "tokens",
        "create",
        "--app",
        app,
        "--name",
        "publisher",
        "--publish",
      ) as {
        token: string;
      };
      ctx.log(`  app ${app}: a CUSTOM TOKEN for the sockets, one made with --publish for the publisher`);
      const s: Side = { label: "Sigil", nodes: sigil, token, headers: { authorization: `Bearer ${publishToken}` } };
      const f: Side = { label: "floor", nodes: floor, headers: {} };
      const rows: Row[] = [];
      // Memory first, on nodes that have held no socket yet.
      let mem: [MemoryResult, MemoryResult] | undefined;
      if (want.memory) mem = [await memoryRun(ctx, s, sigil[2]!, dir), await memoryRun(ctx, f, floor[2]!, dir)];
      if (want.latency) {
        const sl = await latencyRun(ctx, s);
        const fl = await latencyRun(ctx, f);
        rows.push({
          name: latencyName,
          subject: sl,
          baseline: fl,
          labels: ["Sigil", FLOOR],
          figure: { unit: "ms p99", subject: sl.p99, baseline: fl.p99, digits: 1 },
          check: { goal: "p99 ≤ 2× the floor's", met: sl.p99 <= 2 * fl.p99 },
          note:
            "req/s = deliveries/s; p50/p99 = POST /realtime/publish sent → message at the socket; errors = deliveries that never arrived; " +
            "CPU µs/req = nodes A and B per message published",
        });
      }
      if (want.throughput) {
        const st = await throughputRun(ctx, s, "sigil");
        const ft = await throughputRun(ctx, f, "floor");
        rows.push({
          name: throughputName,
          subject: st,
          baseline: ft,
          labels: ["Sigil", FLOOR],
          goal: 0.8,
          note:
            "req/s = deliveries/s (a burst, from the first publish to the last delivery); errors = deliveries that never arrived; " +
            "CPU µs/req = the three nodes' CPU per delivery",
        });
      }
      if (mem) {
        const [sm, fm] = mem;
        const row = (what: "rss" | "heap", label: string): Row => ({
          name: `${memName}: ${label} per socket`,
          subject: { ...empty(), total: sm.connected, errors: sm.failed, unexpected: sm.failed },
          baseline: { ...empty(), total: fm.connected, errors: fm.failed, unexpected: fm.failed },
          labels: ["Sigil", FLOOR],
          figure: { unit: "KiB", subject: sm[what] / KiB, baseline: fm[what] / KiB, digits: 2 },
          check: { goal: "≤ 130% of the floor's", met: sm[what] <= 1.3 * fm[what] },
          note:
            label === "RSS"
              ? "node C's RSS before the sockets → 5 s after the last subscribe, per socket; errors = sockets whose connect or subscribe failed"
              : "V8 heapUsed after a full GC, before → after, per socket",
        });
        rows.push(row("rss", "RSS"), row("heap", "heap"));
      }
      return rows;
    } finally {
      await stopAll(ctx, procs, [0, "SIGTERM"]);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
