// Fan-out: one app, many sockets over three nodes, every event of the app to every socket; Sigil
// beside a floor that does the same with bare Socket.IO and @socket.io/redis-adapter
// (baseline-recovery.ts with ADAPTER=redis: POST /publish broadcasts to the room every socket
// joined), in one run. Scaled to the 2-core machine: BENCH_FANOUT_SOCKETS (1500) sockets, a third on
// each node, held by BENCH_SOCKET_CLIENTS (2) socket-swarm.ts processes; BENCH_FANOUT_RATE (5)
// events/s for the app, published over HTTP round robin on the three nodes (Sigil: right answers
// to owned challenges, each challenge once; the floor: POST /publish), BENCH_WARMUP seconds of
// warm-up, then BENCH_SECONDS measured. Latency: from the request's send (this process) to the
// event's arrival at each socket (the client processes; one machine clock, epoch ms from
// performance.timeOrigin + performance.now()). CPU per delivery: the three nodes' CPU from the first
// measured event until every arrival was collected (2 s after the last send), over the deliveries.
import { Agent, request } from "node:http";
import { sigilEnv, startProcess, type ServerProcess } from "../support/processes.js";
import { cpuSeconds, selected, type Measurement } from "./lib/load.js";
import type { BenchContext, BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";
import { appWithToken, num, ownedChallenges, percentile, sleep, startBenchSigil, startSwarm } from "./lib/sockets.js";
import { empty } from "./realtime.js";

const now = () => performance.timeOrigin + performance.now();

interface FanoutSide {
  label: string;
  nodes: ServerProcess[];
  token?: string;
  /** Sends event i (its key) to node i % 3; resolves with the status. */
  send(i: number, key: string, agent: Agent): Promise<number>;
  keys: string[];
}

async function fanoutRun(ctx: BenchContext, side: FanoutSide, sockets: number, rate: number): Promise<Measurement> {
  const { settings } = ctx;
  const swarm = await startSwarm(num("BENCH_SOCKET_CLIENTS", 2));
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
    let cpu0: number[] = [];
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const wait = start + (i / rate) * 1000 - performance.now();
      if (wait > 0) await sleep(wait);
      if (i === warm) {
        await swarm.arrivals(); // drop the warm-up's
        cpu0 = side.nodes.map((n) => cpuSeconds(n.pid) ?? NaN);
      }
      const key = side.keys[i]!;
      if (i >= warm) sent.set(key, now());
      inflight.push(
        side.send(i, key, agent).then((status) => {
          if (status !== 200) non2xx++;
          statuses[status] = (statuses[status] ?? 0) + 1;
        }),
      );
    }
    await Promise.all(inflight);
    await sleep(2000);
    const arrivals = await swarm.arrivals();
    const cpu = side.nodes.reduce((a, n, i) => a + (cpuSeconds(n.pid) ?? NaN) - cpu0[i]!, 0);
    const lat: number[] = [];
    for (const [key, t0] of sent) for (const t of arrivals.get(key) ?? []) lat.push(t - t0);
    lat.sort((a, b) => a - b);
    const expected = sent.size * connected;
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
    ctx.log(
      `  ${side.label}: ${connected} sockets on 3 nodes, ${sent.size} events measured: ${lat.length} of ${expected} deliveries, ` +
        `p50 ${m.p50.toFixed(1)} ms p99 ${m.p99.toFixed(1)} ms, ${m.cpuUsPerRequest!.toFixed(1)} µs of node CPU per delivery; statuses ${JSON.stringify(statuses)}`,
    );
    return m;
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

export const fanoutBench: BenchModule = {
  name: "fanout",
  description:
    "one app, many sockets over three nodes: delivery latency and CPU per delivery, beside bare Socket.IO + @socket.io/redis-adapter broadcasting to a room",
  async run(ctx) {
    const { settings } = ctx;
    const redisUrl = ctx.redis.url;
    const sockets = num("BENCH_FANOUT_SOCKETS", 1500);
    const rate = num("BENCH_FANOUT_RATE", 5);
    const name = `fan-out: one app, ${sockets} sockets on 3 nodes, ${rate} events/s`;
    if (!selected(settings, name)) return [];
    const procs: ServerProcess[] = [];
    try {
      const prof = profileArgs(settings);
      const sigil = await Promise.all(
        ["A", "B", "C"].map((n) => startBenchSigil(redisUrl, { name: `sigil ${n}`, nodeArgs: prof })),
      );
      procs.push(...sigil);
      const floor = await Promise.all(
        ["A", "B", "C"].map((n) =>
          startProcess({
            name: `floor ${n}`,
            entry: "test/bench/baseline-recovery.ts",
            env: { REDIS_URL: redisUrl, ADAPTER: "redis" },
          }),
        ),
      );
      procs.push(...floor);
      const { app, token } = appWithToken(sigilEnv(0, redisUrl));
      const total = Math.round(rate * (settings.warmupSeconds + settings.seconds)) + 10;
      const keys = await ownedChallenges(sigil[0]!.url, token, total);
      const answers = new Map(keys.map((k, i) => [k, `answer-${i}`]));
      ctx.log(`  app ${app} with a CUSTOM TOKEN, ${keys.length} owned challenges`);
      const s = await fanoutRun(
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
      const f = await fanoutRun(
        ctx,
        {
          label: "floor",
          nodes: floor,
          keys: keys.map((_, i) => `f${i}`),
          send: (i, key, agent) => post(agent, `${floor[i % 3]!.url}/publish`, { key }),
        },
        sockets,
        rate,
      );
      const rows: Row[] = [
        {
          name,
          subject: s,
          baseline: f,
          labels: ["Sigil", "Socket.IO + redis-adapter"],
          figure: { unit: "ms p99", subject: s.p99, baseline: f.p99, digits: 1 },
          note: "req/s = deliveries/s; p50/p99 = publish → arrival at each socket; errors = deliveries that never arrived; CPU µs/req = the three nodes' CPU per delivery",
        },
      ];
      return rows;
    } finally {
      await stopAll(ctx, procs, [0, "SIGTERM"]);
    }
  },
};
