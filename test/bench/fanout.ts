// Fan-out: one app, many sockets over three nodes, every event of the app to every socket; Sigil
// beside a floor that does the same with bare Socket.IO and @socket.io/redis-adapter
// (baseline-recovery.ts with ADAPTER=redis: POST /publish broadcasts to the room every socket
// joined), in one run. BENCH_FANOUT_SOCKETS (1500; a comma-separated list measures each size in
// turn, e.g. "2500,5000,10000" — the size is 10000 at 10 events/s) sockets, a third on each
// node, held by BENCH_SOCKET_CLIENTS (2; more when a process would hold over 15,000) socket-swarm.ts
// processes; BENCH_FANOUT_RATE (5) events/s for the app, published over HTTP round robin on the three
// nodes (Sigil: right answers to owned challenges, each challenge once; the floor: POST /publish),
// BENCH_WARMUP seconds of warm-up, then BENCH_SECONDS measured. Latency: from the request's send
// (this process) to the event's arrival at each socket (the client processes; one machine clock,
// epoch ms from performance.timeOrigin + performance.now()), collected every second during the run
// and then until every delivery has arrived or none has for 3 s. CPU per delivery over that window:
// the three nodes', and the client processes' (they share the machine's cores with the nodes), with
// how busy the whole machine was (/proc/stat: other work included). "Keeps up": every delivery
// arrived, p99 ≤ 1 s, and the median time for an event to reach every socket in the last fifth of
// the events is at most twice (+50 ms) that of the first fifth (a backlog that grows does not).
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg } from "node:os";
import { sigilEnv, type ServerProcess } from "../support/processes.js";
import { cpuSeconds, selected, type Measurement } from "./lib/load.js";
import type { BenchContext, BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";
import {
  appWithToken,
  num,
  ownedChallenges,
  percentile,
  sleep,
  startBenchSigil,
  startFloorNodes,
  startSwarm,
} from "./lib/sockets.js";
import { empty } from "./realtime.js";

const now = () => performance.timeOrigin + performance.now();

/** Busy and total CPU ticks of the whole machine since boot (/proc/stat): every process, ours or not. */
function machineTicks(): { busy: number; total: number } {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - f[4]!, total }; // less idle and iowait
}

interface FanoutSide {
  label: string;
  nodes: ServerProcess[];
  token?: string;
  /** Sends event i (its key) to node i % 3; resolves with the status. */
  send(i: number, key: string, agent: Agent): Promise<number>;
  keys: string[];
}

export interface FanoutResult {
  m: Measurement;
  /** The client processes' CPU per delivery (µs), over the same window as the nodes'. */
  clientUs: number;
  /** How busy the whole machine was over the window (0–1 of all cores; other work included). */
  machineBusy: number;
  /** Median time until an event had reached every socket, first and last fifth of the events (ms). */
  firstFifth: number;
  lastFifth: number;
  /** Every delivery arrived, p99 ≤ 1 s, and the lag did not grow over the run. */
  keepsUp: boolean;
}

async function fanoutRun(ctx: BenchContext, side: FanoutSide, sockets: number, rate: number): Promise<FanoutResult> {
  const { settings } = ctx;
  // At most ~15,000 sockets per client process (file descriptors), two processes at least.
  const swarm = await startSwarm(Math.max(num("BENCH_SOCKET_CLIENTS", 2), Math.ceil(sockets / 15_000)));
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  try {
    let connected = 0;
    for (const [i, n] of side.nodes.entries()) {
      const count = Math.floor(sockets / 3) + (i < sockets % 3 ? 1 : 0);
      const r = await swarm.connect(n.url, side.token, count, 250, true);
      if (r.failed > 0) throw new Error(`${side.label}: ${r.failed} sockets failed to connect`);
      connected += r.connected;
    }
    await sleep(1000);
    const warm = Math.round(rate * settings.warmupSeconds);
    const total = warm + Math.round(rate * settings.seconds);
    if (side.keys.length < total) throw new Error(`${side.label}: ${side.keys.length} keys for ${total} events`);
    const sent = new Map<string, number>();
    let non2xx = 0;
    const statuses: Record<number, number> = {};
    const inflight: Array<Promise<void>> = [];
    const clients = swarm.procs.map((p) => p.pid!);
    let cpu0: number[] = [];
    let client0: number[] = [];
    let machine0 = machineTicks();
    const arrivals = new Map<string, number[]>();
    let arrived = 0;
    // One collection at a time, in the background: the sends keep their schedule.
    let collecting = Promise.resolve();
    const collect = () =>
      (collecting = collecting.then(async () => {
        for (const [k, ts] of await swarm.arrivals()) {
          if (!sent.has(k)) continue; // the warm-up's
          const list = arrivals.get(k);
          if (list) list.push(...ts);
          else arrivals.set(k, ts);
          arrived += ts.length;
        }
      }));
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const wait = start + (i / rate) * 1000 - performance.now();
      if (wait > 0) await sleep(wait);
      if (i === warm) {
        await collect(); // drops the warm-up's
        cpu0 = side.nodes.map((n) => cpuSeconds(n.pid) ?? NaN);
        client0 = clients.map((pid) => cpuSeconds(pid) ?? NaN);
        machine0 = machineTicks();
      }
      const key = side.keys[i]!;
      if (i >= warm) sent.set(key, now());
      inflight.push(
        side.send(i, key, agent).then((status) => {
          if (status !== 200) non2xx++;
          statuses[status] = (statuses[status] ?? 0) + 1;
        }),
      );
      // Take the arrivals in as the run goes (one large message at the end would stall a client).
      if (i > warm && (i - warm) % Math.max(1, Math.round(rate)) === 0) void collect();
    }
    await Promise.all(inflight);
    await collect();
    // Until every delivery has arrived, or none has for 3 s (60 s at most).
    const expected = sent.size * connected;
    for (let idle = 0, waited = 0; arrived < expected && idle < 3 && waited < 60; waited++) {
      await sleep(1000);
      const before = arrived;
      await collect();
      idle = arrived === before ? idle + 1 : 0;
    }
    const cpu = side.nodes.reduce((a, n, i) => a + (cpuSeconds(n.pid) ?? NaN) - cpu0[i]!, 0);
    const clientCpu = clients.reduce((a, pid, i) => a + (cpuSeconds(pid) ?? NaN) - client0[i]!, 0);
    const machine1 = machineTicks();
    const lat: number[] = [];
    const reachedAll: number[] = []; // per event, in send order: until the last socket had it
    for (const [key, t0] of sent) {
      let last = -Infinity;
      for (const t of arrivals.get(key) ?? []) {
        lat.push(t - t0);
        last = Math.max(last, t - t0);
      }
      reachedAll.push(last);
    }
    lat.sort((a, b) => a - b);
    const fifth = Math.max(1, Math.floor(reachedAll.length / 5));
    const median = (xs: number[]) =>
      percentile(
        [...xs].sort((a, b) => a - b),
        50,
      );
    const firstFifth = median(reachedAll.slice(0, fifth));
    const lastFifth = median(reachedAll.slice(-fifth));
    const m: Measurement = {
      ...empty(),
      rps: lat.length / settings.seconds,
      p50: percentile(lat, 50),
      p99: percentile(lat, 99),
      non2xx,
      errors: expected - lat.length,
      total: lat.length,
      cpuUsPerRequest: (cpu * 1e6) / Math.max(1, lat.length),
    };
    const r: FanoutResult = {
      m,
      clientUs: (clientCpu * 1e6) / Math.max(1, lat.length),
      machineBusy: (machine1.busy - machine0.busy) / Math.max(1, machine1.total - machine0.total),
      firstFifth,
      lastFifth,
      keepsUp: m.errors === 0 && m.p99 <= 1000 && lastFifth <= 2 * firstFifth + 50,
    };
    ctx.log(
      `  ${side.label}: ${connected} sockets on 3 nodes (${swarm.procs.length} client processes), ${sent.size} events measured: ` +
        `${lat.length} of ${expected} deliveries, p50 ${m.p50.toFixed(1)} ms p99 ${m.p99.toFixed(1)} ms; ` +
        `CPU per delivery ${m.cpuUsPerRequest!.toFixed(1)} µs nodes, ${r.clientUs.toFixed(1)} µs clients; ` +
        `machine ${(r.machineBusy * 100).toFixed(0)}% busy; an event reached all sockets in ${firstFifth.toFixed(0)} ms ` +
        `(median, first fifth) → ${lastFifth.toFixed(0)} ms (last fifth): ${r.keepsUp ? "keeps up" : "FALLS BEHIND"}; ` +
        `statuses ${JSON.stringify(statuses)}; load ${loadavg()[0]!.toFixed(1)}`,
    );
    return r;
  } finally {
    agent.destroy();
    await swarm.close();
  }
}

function post(agent: Agent, url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { method: "POST", agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}

/** BENCH_FANOUT_SOCKETS: one size or several, comma-separated (each measured on both sides). */
function sizes(): number[] {
  const list = (process.env.BENCH_FANOUT_SOCKETS ?? "1500")
    .split(",")
    .map((v) => Number(v.trim()))
    .filter((n) => Number.isInteger(n) && n >= 3);
  return list.length ? list : [1500];
}

export const fanoutBench: BenchModule = {
  name: "fanout",
  description:
    "one app, many sockets over three nodes: delivery latency and CPU per delivery, beside bare Socket.IO + @socket.io/redis-adapter broadcasting to a room",
  async run(ctx) {
    const { settings } = ctx;
    const redisUrl = ctx.redis.url;
    const rate = num("BENCH_FANOUT_RATE", 5);
    const name = (sockets: number) => `fan-out: one app, ${sockets} sockets on 3 nodes, ${rate} events/s`;
    const runs = sizes().filter((n) => selected(settings, name(n)));
    if (runs.length === 0) return [];
    const procs: ServerProcess[] = [];
    try {
      const prof = profileArgs(settings);
      const sigil = await Promise.all(
        ["A", "B", "C"].map((n) => startBenchSigil(redisUrl, { name: `sigil ${n}`, nodeArgs: prof })),
      );
      procs.push(...sigil);
      const floor = await startFloorNodes(redisUrl);
      procs.push(...floor);
      const { app, token } = appWithToken(sigilEnv(0, redisUrl));
      const perRun = Math.round(rate * (settings.warmupSeconds + settings.seconds)) + 10;
      const allKeys = await ownedChallenges(sigil[0]!.url, token, perRun * runs.length);
      const answers = new Map(allKeys.map((k, i) => [k, `answer-${i}`]));
      ctx.log(`  app ${app} with a CUSTOM TOKEN, ${allKeys.length} owned challenges`);
      const rows: Row[] = [];
      for (const [r, sockets] of runs.entries()) {
        const keys = allKeys.slice(r * perRun, (r + 1) * perRun);
        let s: FanoutResult;
        let f: FanoutResult;
        try {
          s = await fanoutRun(
            ctx,
            {
              label: "Sigil",
              nodes: sigil,
              token,
              keys,
              send: (i, key, agent) =>
                post(agent, `${sigil[i % 3]!.url}/challenge/solve`, {
                  "content-type": "application/json",
                  key,
                  a: answers.get(key)!,
                }),
            },
            sockets,
            rate,
          );
          f = await fanoutRun(
            ctx,
            {
              label: "floor",
              nodes: floor,
              keys: keys.map((_, i) => `f${r}-${i}`),
              send: (i, key, agent) => post(agent, `${floor[i % 3]!.url}/publish`, { key }),
            },
            sockets,
            rate,
          );
        } catch (err) {
          // A size the machine cannot carry (a client process too busy to answer): the smaller
          // sizes' rows stand, the larger are not tried.
          ctx.log(`  ${sockets} sockets: not measured (${(err as Error).message}); larger sizes skipped`);
          break;
        }
        const up = (x: FanoutResult) => (x.keepsUp ? "keeps up" : "falls behind");
        rows.push({
          name: name(sockets),
          subject: s.m,
          baseline: f.m,
          labels: ["Sigil", "Socket.IO + redis-adapter"],
          figure: { unit: "ms p99", subject: s.m.p99, baseline: f.m.p99, digits: 1 },
          note:
            "req/s = deliveries/s; p50/p99 = publish → arrival at each socket; errors = deliveries that never arrived; CPU µs/req = the three nodes' CPU per delivery. " +
            `Client processes' CPU per delivery: Sigil ${s.clientUs.toFixed(1)} µs, floor ${f.clientUs.toFixed(1)} µs; ` +
            `machine busy ${(s.machineBusy * 100).toFixed(0)}% / ${(f.machineBusy * 100).toFixed(0)}%; Sigil ${up(s)}, floor ${up(f)}`,
        });
      }
      return rows;
    } finally {
      await stopAll(ctx, procs, [0, "SIGTERM"]);
    }
  },
};
