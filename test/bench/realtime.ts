// Realtime, Sigil on Redis (child processes), beside a bare floor (baseline-realtime.ts) in one run:
// - solve → event latency across two nodes at a steady rate: POST /challenge/solve on node B, the
//   app's socket on node A receives challenge:result; timed in this process from the request's send
//   to the event's arrival (one clock). Floor: HTTP → Redis PUBLISH on floor B → SUBSCRIBE on floor
//   A → Socket.IO emit to one socket, timed the same way.
// - connections accepted per second: a burst of BENCH_SOCKETS websocket handshakes (authenticated
//   with a CUSTOM TOKEN on Sigil, none on the bare server) from BENCH_SOCKET_CLIENTS client
//   processes, at most BENCH_SOCKET_CONCURRENCY in flight per process; sockets / wall time. Both
//   sides alike: the same client code and settings, fresh client processes for every burst, at
//   least 3 rounds with the side going first alternated; each side's median round is reported,
//   with the spread, and the CPU per connection of the node and of the client processes.
// - resident memory per idle socket: RSS of the node (from /proc) before the burst and once the
//   sockets have sat idle a few seconds, divided by the count.
// Settings: BENCH_SOLVE_RATE (200), BENCH_SECONDS / BENCH_WARMUP / BENCH_ROUNDS as elsewhere,
// BENCH_SOCKETS (10000), BENCH_SOCKET_CLIENTS (2), BENCH_SOCKET_CONCURRENCY (250).
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { io } from "socket.io-client";
import { freePort } from "../support/ports.js";
import { sigilEnv, startProcess, type ServerProcess } from "../support/processes.js";
import { cpuSeconds, selected, type Measurement } from "./lib/load.js";
import type { BenchContext, BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";
import {
  appWithToken,
  num,
  ownedChallenges,
  percentile,
  rss,
  sleep,
  startBenchSigil,
  startSwarm,
} from "./lib/sockets.js";

export const empty = (): Measurement => ({ rps: NaN, p50: NaN, p99: NaN, non2xx: 0, errors: 0, timeouts: 0, total: 0 });

export interface LatencyTarget {
  /** Where solves are sent (node B). */
  httpUrl: string;
  path: string;
  headers(key: string): Record<string, string>;
  /** Where the socket listens (node A). */
  socketUrl: string;
  token?: string;
  /** Event names to wait for before sending (Sigil sends `ready` after its replay). */
  readyEvent: string;
  keys: string[];
  pids: number[];
}

type BenchNode = { url: string; pid: number };

/**
 * The two sides of a solve→event latency row: Sigil (right answers to owned challenges sent to node
 * B, the socket on node A) and a Socket.IO server pair publishing the same keys (`/publish` on B).
 */
export function latencyTargets(o: {
  sigil: [a: BenchNode, b: BenchNode];
  other: [a: BenchNode, b: BenchNode];
  token: string;
  keys: string[];
  answers: Map<string, string>;
}): { sigil: LatencyTarget; other: LatencyTarget } {
  const [a, b] = o.sigil;
  const [oa, ob] = o.other;
  return {
    sigil: {
      httpUrl: b.url,
      path: "/challenge/solve",
      // Right answers: counted attempts (one event each) that no limit ever throttles.
      headers: (key) => ({ "content-type": "application/json", key, a: o.answers.get(key) ?? "" }),
      socketUrl: a.url,
      token: o.token,
      readyEvent: "ready",
      keys: o.keys,
      pids: [a.pid, b.pid],
    },
    other: {
      httpUrl: ob.url,
      path: "/publish",
      headers: (key) => ({ key }),
      socketUrl: oa.url,
      readyEvent: "connect",
      keys: o.keys,
      pids: [oa.pid, ob.pid],
    },
  };
}

/**
 * Solves at a steady `rate` for warm-up + `seconds`; each key is used once per keys.length/rate
 * seconds, so an event is matched to its request by key. Events of warm-up solves are not counted.
 */
export async function latencyRun(
  t: LatencyTarget,
  rate: number,
  seconds: number,
  warmup: number,
): Promise<Measurement> {
  const socket = io(t.socketUrl, {
    path: "/socket.io/",
    transports: ["websocket"],
    forceNew: true,
    reconnection: false,
    ...(t.token ? { auth: { token: t.token } } : {}),
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const pending = new Map<string, { t0: number; counted: boolean }>();
  const lat: number[] = [];
  let non2xx = 0;
  let httpErrors = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${t.readyEvent} from ${t.socketUrl}`)), 10_000);
      socket.once(t.readyEvent, () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once("connect_error", (e) => reject(e));
    });
    socket.on("challenge:result", (e: { key: string }) => {
      const now = performance.now();
      const p = pending.get(e.key);
      if (!p) return;
      pending.delete(e.key);
      if (p.counted) lat.push(now - p.t0);
    });
    const warmCount = Math.round(rate * warmup);
    const total = warmCount + Math.round(rate * seconds);
    const send = (i: number) => {
      const key = t.keys[i % t.keys.length]!;
      pending.set(key, { t0: performance.now(), counted: i >= warmCount });
      const req = request(t.httpUrl + t.path, { method: "POST", agent, headers: t.headers(key) }, (res) => {
        if (res.statusCode !== 200) non2xx++;
        res.resume();
      });
      req.on("error", () => httpErrors++);
      req.end();
    };
    const cpu0 = t.pids.map(cpuSeconds);
    let sent = 0;
    let measuredFrom = 0;
    const start = performance.now();
    await new Promise<void>((resolve) => {
      const tick = () => {
        const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
        while (sent < due) {
          if (sent === warmCount) measuredFrom = performance.now();
          send(sent++);
        }
        if (sent >= total) return resolve();
        setTimeout(tick, 1);
      };
      tick();
    });
    const elapsed = (performance.now() - measuredFrom) / 1000;
    const until = Date.now() + 3000;
    while ([...pending.values()].some((p) => p.counted) && Date.now() < until) await sleep(10);
    const cpu1 = t.pids.map(cpuSeconds);
    const lost = [...pending.values()].filter((p) => p.counted).length;
    const cpu =
      cpu0.every((c) => c !== undefined) && cpu1.every((c) => c !== undefined)
        ? cpu1.reduce((a, c, i) => a! + c! - cpu0[i]!, 0)!
        : undefined;
    lat.sort((a, b) => a - b);
    const measured = total - warmCount;
    return {
      rps: measured / elapsed,
      p50: percentile(lat, 50),
      p99: percentile(lat, 99),
      non2xx,
      errors: lost + httpErrors,
      timeouts: 0,
      total: measured,
      ...(cpu !== undefined ? { cpuUsPerRequest: (cpu * 1e6) / measured } : {}),
    };
  } finally {
    socket.disconnect();
    agent.destroy();
  }
}

export interface BurstResult {
  rate: number;
  connected: number;
  failed: number;
  p50: number;
  p99: number;
  cpuUsPerConnection?: number;
  /** CPU of the client processes per connection (socket.io-client's side of the handshake). */
  clientCpuUsPerConnection: number;
  bytesPerSocket: number;
}

/** The median of a list (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Connects `count` sockets to one node from the client processes, then measures its RSS idle. */
export async function burst(
  ctx: BenchContext,
  who: string,
  url: string,
  pid: number,
  token: string | undefined,
  count: number,
): Promise<BurstResult> {
  const clients = num("BENCH_SOCKET_CLIENTS", 2);
  const concurrency = num("BENCH_SOCKET_CONCURRENCY", 250);
  const swarm = await startSwarm(clients);
  try {
    await sleep(1000);
    const before = rss(pid);
    const cpu0 = cpuSeconds(pid);
    const clientCpu = () => swarm.procs.reduce((a, p) => a + (cpuSeconds(p.pid) ?? NaN), 0);
    const ccpu0 = clientCpu();
    const t0 = performance.now();
    const { connected, failed, times } = await swarm.connect(url, token, count, concurrency);
    const wall = (performance.now() - t0) / 1000;
    const cpu1 = cpuSeconds(pid);
    const ccpu1 = clientCpu();
    // Idle: let handshake garbage and buffers settle before reading the resident memory.
    await sleep(5000);
    const after = rss(pid);
    const r: BurstResult = {
      rate: connected / wall,
      connected,
      failed,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      ...(cpu0 !== undefined && cpu1 !== undefined && connected > 0
        ? { cpuUsPerConnection: ((cpu1 - cpu0) * 1e6) / connected }
        : {}),
      clientCpuUsPerConnection: ((ccpu1 - ccpu0) * 1e6) / connected,
      bytesPerSocket: connected > 0 ? (after - before) / connected : NaN,
    };
    ctx.log(
      `  ${who}: ${connected} sockets (${failed} refused/failed) in ${wall.toFixed(2)} s = ${r.rate.toFixed(0)}/s, handshake p50 ${r.p50.toFixed(1)} ms p99 ${r.p99.toFixed(1)} ms; ` +
        `CPU per connection: node ${r.cpuUsPerConnection?.toFixed(0)} µs, clients ${r.clientCpuUsPerConnection.toFixed(0)} µs; ` +
        `RSS ${(before / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MiB = ${(r.bytesPerSocket / 1024).toFixed(1)} KiB/socket`,
    );
    return r;
  } finally {
    await swarm.close();
  }
}

export const realtimeBench: BenchModule = {
  name: "realtime",
  description:
    "solve→event latency across two nodes, memory per idle socket, connections/s vs a bare Redis pub/sub + Socket.IO floor",
  async run(ctx) {
    const { settings } = ctx;
    const redisUrl = ctx.redis.url;
    const sockets = num("BENCH_SOCKETS", 10_000);
    const rate = num("BENCH_SOLVE_RATE", 200);
    const procs: ServerProcess[] = [];
    try {
      const ports = await Promise.all([freePort(), freePort()]);
      const prof = profileArgs(settings);
      const [a, b] = await Promise.all(
        ["A", "B"].map((n) => startBenchSigil(redisUrl, { name: `sigil ${n}`, nodeArgs: prof })),
      );
      procs.push(a!, b!);
      const [fa, fb] = await Promise.all(
        ["A", "B"].map((n, i) =>
          startProcess({
            name: `floor ${n}`,
            entry: "test/bench/baseline-realtime.ts",
            port: ports[i]!,
            env: { PORT: String(ports[i]!), REDIS_URL: redisUrl },
          }),
        ),
      );
      procs.push(fa!, fb!);

      // An app with a CUSTOM TOKEN, made with the real CLI; challenges owned by it, made on node B.
      const { app, token } = appWithToken(sigilEnv(0, redisUrl));
      const keys = await ownedChallenges(b!.url, token, Math.max(100, Math.ceil(rate * 2)));
      ctx.log(`  app ${app} with a CUSTOM TOKEN, ${keys.length} owned challenges`);
      const answers = new Map(keys.map((k, i) => [k, `answer-${i}`]));

      const rows: Row[] = [];
      const lname = `solve→event latency, 2 nodes, ${rate}/s`;
      if (selected(settings, lname)) {
        const { sigil: sigilT, other: floorT } = latencyTargets({
          sigil: [a!, b!],
          other: [fa!, fb!],
          token,
          keys,
          answers,
        });
        let s: Measurement | undefined;
        let f: Measurement | undefined;
        for (let round = 1; round <= Math.max(1, settings.rounds); round++) {
          const ms = await latencyRun(sigilT, rate, settings.seconds, settings.warmupSeconds);
          const mf = await latencyRun(floorT, rate, settings.seconds, settings.warmupSeconds);
          ctx.log(
            `  ${lname} round ${round}: Sigil p50 ${ms.p50.toFixed(2)} p99 ${ms.p99.toFixed(2)} ms (${ms.rps.toFixed(0)}/s, ${ms.errors} lost, ${ms.non2xx} non-200), ` +
              `floor p50 ${mf.p50.toFixed(2)} p99 ${mf.p99.toFixed(2)} ms (${mf.errors} lost)`,
          );
          if (!s || ms.p99 < s.p99) s = ms;
          if (!f || mf.p99 < f.p99) f = mf;
        }
        rows.push({
          name: lname,
          subject: s!,
          baseline: f!,
          labels: ["Sigil", "floor"],
          figure: { unit: "ms p99", subject: s!.p99, baseline: f!.p99, digits: 2 },
          check: { goal: "p99 ≤ 10 ms", met: s!.p99 <= 10 && s!.errors === 0 },
          note: "req/s = solves/s achieved; errors = events never received; CPU µs/req = both nodes' CPU per solve",
        });
      }

      const mname = `memory per idle socket, ${sockets} sockets`;
      const cname = `connections accepted/s, burst of ${sockets}`;
      if (selected(settings, mname) || selected(settings, cname)) {
        const sRounds: BurstResult[] = [];
        const fRounds: BurstResult[] = [];
        // At least three rounds (a median), the side that goes first alternated: neither always
        // meets the machine as the other left it.
        const rounds = Math.max(3, settings.rounds);
        for (let round = 1; round <= rounds; round++) {
          const sides = [
            async () => sRounds.push(await burst(ctx, `Sigil round ${round}`, a!.url, a!.pid, token, sockets)),
            async () =>
              fRounds.push(await burst(ctx, `bare Socket.IO round ${round}`, fa!.url, fa!.pid, undefined, sockets)),
          ];
          for (const side of round % 2 ? sides : sides.reverse()) {
            await side();
            await sleep(2000);
          }
          ctx.log(
            `  round ${round}: Sigil/bare ${((sRounds.at(-1)!.rate / fRounds.at(-1)!.rate) * 100).toFixed(0)}% of the rate; ` +
              `CPU per connection ${sRounds.at(-1)!.cpuUsPerConnection?.toFixed(0)}/${fRounds.at(-1)!.cpuUsPerConnection?.toFixed(0)} µs on the node, ` +
              `${sRounds.at(-1)!.clientCpuUsPerConnection.toFixed(0)}/${fRounds.at(-1)!.clientCpuUsPerConnection.toFixed(0)} µs in the clients`,
          );
        }
        // Memory from the first round: its "before" is the node's own, not a heap grown by a burst.
        const [sMem, fMem] = [sRounds[0]!.bytesPerSocket, fRounds[0]!.bytesPerSocket];
        /** The side's median round by rate, with the medians of its CPU figures. */
        const typical = (rs: BurstResult[]): BurstResult => {
          const byRate = [...rs].sort((x, y) => x.rate - y.rate);
          const mid = byRate[(byRate.length - 1) >> 1]!;
          const cpu = rs.map((r) => r.cpuUsPerConnection).filter((c): c is number => c !== undefined);
          return {
            ...mid,
            rate: median(rs.map((r) => r.rate)),
            failed: rs.reduce((n, r) => n + r.failed, 0),
            ...(cpu.length ? { cpuUsPerConnection: median(cpu) } : {}),
            clientCpuUsPerConnection: median(rs.map((r) => r.clientCpuUsPerConnection)),
          };
        };
        const sb = typical(sRounds);
        const fbst = typical(fRounds);
        const spread = (rs: BurstResult[], f: (r: BurstResult) => number | undefined) => {
          const v = rs.map(f).filter((x): x is number => x !== undefined);
          return `${Math.min(...v).toFixed(0)}–${Math.max(...v).toFixed(0)}`;
        };
        const asM = (r: BurstResult): Measurement => ({
          ...empty(),
          rps: r.rate,
          p50: r.p50,
          p99: r.p99,
          errors: r.failed,
          total: r.connected,
          ...(r.cpuUsPerConnection !== undefined ? { cpuUsPerRequest: r.cpuUsPerConnection } : {}),
        });
        if (selected(settings, mname)) {
          rows.push({
            name: mname,
            subject: { ...empty(), total: sb.connected },
            baseline: { ...empty(), total: fbst.connected },
            labels: ["Sigil", "bare Socket.IO"],
            figure: { unit: "KiB/socket", subject: sMem / 1024, baseline: fMem / 1024, digits: 1 },
            check: { goal: "≤ 20 KiB", met: sMem / 1024 <= 20 },
            note: "(RSS idle after the burst − RSS before) / sockets, first round, one node",
          });
        }
        if (selected(settings, cname)) {
          const q = sb.rate / fbst.rate;
          rows.push({
            name: `${cname} (median of ${rounds} rounds)`,
            subject: asM(sb),
            baseline: asM(fbst),
            labels: ["Sigil", "bare Socket.IO"],
            figure: { unit: "conn/s", subject: sb.rate, baseline: fbst.rate },
            check: { goal: "≥ 95% of bare Socket.IO", met: q >= 0.95 && sb.failed === 0 },
            note:
              `req/s = handshakes completed per second (websocket, Sigil with a CUSTOM TOKEN), median of ${rounds} alternated rounds ` +
              `(Sigil ${spread(sRounds, (r) => r.rate)}/s, bare ${spread(fRounds, (r) => r.rate)}/s); p50/p99 = handshake time; ` +
              `CPU µs/req = the node's CPU per connection (median; Sigil ${spread(sRounds, (r) => r.cpuUsPerConnection)}, bare ${spread(fRounds, (r) => r.cpuUsPerConnection)}); ` +
              `client processes' CPU per connection, median: Sigil ${sb.clientCpuUsPerConnection.toFixed(0)} µs, bare ${fbst.clientCpuUsPerConnection.toFixed(0)} µs`,
          });
        }
      }
      return rows;
    } finally {
      await stopAll(ctx, procs, [0, "SIGTERM"]);
    }
  },
};
