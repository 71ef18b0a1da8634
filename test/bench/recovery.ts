// Sigil beside the peer a team would pick instead: Socket.IO's `connectionStateRecovery` on
// `@socket.io/redis-streams-adapter` (baseline-recovery.ts), both as two nodes on the bench Redis,
// in one run:
// - events missed or doubled when one of the two nodes is SIGKILLed under load: BENCH_KILL_CLIENTS
//   (20) clients connect through a TCP proxy in this process (a load balancer: node A while it
//   accepts connections, else node B), with socket.io-client's default reconnection; events are
//   published on node B at BENCH_SOLVE_RATE (200/s) for BENCH_KILL_SECONDS (4), node A is
//   SIGKILLed after a third of it, and the clients reconnect (through the proxy) to node B. Sigil's
//   clients resume with `auth.since` (docs/realtime.md); the peer's clients resume as Socket.IO's
//   do (session id and offset, by themselves). Once every client is back, markers are published
//   until each has one. Then every event id is checked per client against what was published:
//   Sigil — the app's history (the Redis Stream) after a mark taken before the load; the peer —
//   every publish node B acknowledged. Missed, doubled, out of order, and the clients that said
//   they recovered, are counted.
// - solve→event latency across the two nodes (as realtime.ts: HTTP on node B, the socket on A).
// - memory per idle socket (as realtime.ts, first round only): BENCH_SOCKETS sockets on node A.
// "Published the same way": Sigil's events are right answers to owned challenges over HTTP on
// node B; the peer's, POST /publish on node B, which broadcasts to the room of the app's sockets.
import { createConnection, createServer, type Server, type Socket as NetSocket } from "node:net";
import { Agent, request } from "node:http";
import { Redis } from "ioredis";
import { io, type Socket } from "socket.io-client";
import { orderEventIds } from "../../src/event-ids.js";
import { freePort } from "../support/ports.js";
import { sigilEnv, startProcess, type ServerProcess } from "../support/processes.js";
import { selected, type Measurement } from "./lib/load.js";
import type { BenchContext, BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";
import { appWithToken, num, ownedChallenges, sleep, startBenchSigil } from "./lib/sockets.js";
import { burst, empty, latencyRun, latencyTargets, type BurstResult } from "./realtime.js";

const PEER = "Socket.IO recovery";

/** A TCP proxy: each connection goes to the first of `ports` that accepts it. */
async function startProxy(ports: number[]): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const open = new Set<NetSocket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on("close", () => open.delete(client));
    client.on("error", () => client.destroy());
    client.pause();
    const attempt = (i: number) => {
      if (i >= ports.length) return void client.destroy();
      const up = createConnection({ port: ports[i]!, host: "127.0.0.1" });
      let connected = false;
      up.on("error", () => {
        if (connected) up.destroy();
        else attempt(i + 1); // refused: the next node
      });
      up.once("connect", () => {
        connected = true;
        open.add(up);
        up.on("close", () => {
          open.delete(up);
          client.destroy();
        });
        client.on("close", () => up.destroy());
        client.pipe(up);
        up.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${port}`,
    /** Drops every connection in flight (the nodes stay up). */
    cut: () => {
      for (const c of open) c.destroy();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}

interface KillClient {
  socket: Socket;
  /** Event ids as received, in order. */
  got: string[];
  /** How many (re)connections said they recovered, and how many did not. */
  recovered: number;
  fresh: number;
  /** Connections since the kill. */
  reconnects: number;
}

interface KillSide {
  label: string;
  a: ServerProcess;
  b: ServerProcess;
  /** A client through `url`, recording events whose id passes `counts`. */
  client(url: string, counts: (id: string) => boolean): KillClient;
  /** Publishes one event on node B: its id when node B says it (the peer), true when only acknowledged (Sigil), false when refused. */
  publish(i: number): Promise<string | boolean>;
  /** A mark before the load: events after it are this run's. */
  mark(): Promise<string>;
  /** What a store still holds of this run's events, oldest first (Sigil: the app's history, trimmed to its bound). */
  history(mark: string): Promise<string[]>;
}

export interface KillResult {
  published: number;
  clients: number;
  missed: number;
  doubled: number;
  outOfOrder: number;
  /** Clients that missed at least one event. */
  clientsMissing: number;
  recovered: number;
  fresh: number;
  /** Events that arrived and were never published (must be 0). */
  unknown: number;
}

/** kill: node A is SIGKILLed; cut: every connection is dropped at the proxy, both nodes stay up. */
type Fault = "kill" | "cut";

async function killRun(
  ctx: BenchContext,
  side: KillSide,
  fault: Fault,
  rate: number,
  seconds: number,
  nClients: number,
) {
  const proxy = await startProxy([side.a.port, side.b.port]);
  const clients: KillClient[] = [];
  let killed = false;
  try {
    const mark = await side.mark();
    const counts = (id: string) => (orderEventIds(id, mark) ?? 0) > 0;
    for (let i = 0; i < nClients; i++) clients.push(side.client(proxy.url, counts));
    const until = Date.now() + 20_000;
    while (clients.some((c) => c.recovered + c.fresh === 0)) {
      if (Date.now() > until) throw new Error(`${side.label}: clients did not connect`);
      await sleep(20);
    }
    for (const c of clients) c.reconnects = 0;
    const total = Math.round(rate * seconds);
    const acked: string[] = [];
    let ackedCount = 0;
    let failedPublishes = 0;
    const publish = async (i: number) => {
      const r = await side.publish(i);
      if (r === false) failedPublishes++;
      else ackedCount++;
      if (typeof r === "string") acked.push(r);
      return r !== false;
    };
    const inflight: Array<Promise<boolean>> = [];
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + (i / rate) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (!killed && i >= total / 3) {
        if (fault === "kill") side.a.kill("SIGKILL");
        else proxy.cut();
        killed = true;
      }
      inflight.push(publish(i));
    }
    await Promise.all(inflight);
    // Every client back (on node B), then markers until each has one after the load.
    const back = Date.now() + 20_000;
    while (clients.some((c) => c.reconnects === 0 || !c.socket.connected)) {
      if (Date.now() > back) throw new Error(`${side.label}: clients did not reconnect`);
      await sleep(20);
    }
    const lastCounts = clients.map((c) => c.got.length);
    const markersUntil = Date.now() + 10_000;
    for (let m = total; clients.some((c, i) => c.got.length <= lastCounts[i]!); m++) {
      if (Date.now() > markersUntil) throw new Error(`${side.label}: the markers did not arrive`);
      await publish(m);
      await sleep(100);
    }
    await sleep(200);
    // The ids to check: those node B named (the peer), or those the history still holds (Sigil;
    // events it already trimmed are checked by count: as many as node B acknowledged).
    const named = acked.length > 0 ? [...acked].sort((x, y) => orderEventIds(x, y) ?? 0) : await side.history(mark);
    const want = new Set(named);
    const oldest = named[0];
    const r: KillResult = {
      published: ackedCount,
      clients: nClients,
      missed: 0,
      doubled: 0,
      outOfOrder: 0,
      clientsMissing: 0,
      recovered: 0,
      fresh: 0,
      unknown: 0,
    };
    for (const c of clients) {
      const seen = new Set(c.got);
      // Named ids not received, and (for what only the count checks) acknowledged events not received.
      let missed = named.filter((id) => !seen.has(id)).length;
      const older = [...seen].filter((id) => oldest === undefined || (orderEventIds(id, oldest) ?? 0) < 0).length;
      const byCount = ackedCount - named.length - older;
      if (byCount > 0) missed += byCount;
      else r.unknown -= byCount;
      r.missed += missed;
      if (missed > 0) r.clientsMissing++;
      r.doubled += c.got.length - seen.size;
      r.unknown += [...seen].filter(
        (id) => !want.has(id) && oldest !== undefined && (orderEventIds(id, oldest) ?? 0) >= 0,
      ).length;
      for (let i = 1; i < c.got.length; i++) if ((orderEventIds(c.got[i - 1]!, c.got[i]!) ?? 0) > 0) r.outOfOrder++;
      r.recovered += c.recovered;
      r.fresh += c.fresh;
    }
    ctx.log(
      `  ${side.label}: ${fault === "kill" ? "node A SIGKILLed" : "connections cut"}; ${ackedCount} events acknowledged (${failedPublishes} publishes refused; ${named.length} ids checked one by one, the rest by count), ${nClients} clients: ` +
        `${r.missed} missed (${r.clientsMissing} clients missed some), ${r.doubled} doubled, ${r.outOfOrder} out of order, ${r.unknown} unknown; ` +
        `connections that said they recovered: ${r.recovered}, fresh: ${r.fresh}`,
    );
    return r;
  } finally {
    for (const c of clients) c.socket.disconnect();
    await proxy.close();
  }
}

/** POST on a keep-alive agent; resolves with the status (0 when the request failed) and the body. */
function post(agent: Agent, url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(url, { method: "POST", agent, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", () => resolve({ status: 0, body: "" }));
    req.end();
  });
}

export const recoveryBench: BenchModule = {
  name: "recovery",
  description: `Sigil beside ${PEER} (connectionStateRecovery on @socket.io/redis-streams-adapter): a node SIGKILLed under load, solve→event latency, memory per idle socket`,
  async run(ctx) {
    const { settings } = ctx;
    const redisUrl = ctx.redis.url;
    const rate = num("BENCH_SOLVE_RATE", 200);
    const sockets = num("BENCH_SOCKETS", 10_000);
    const killSeconds = num("BENCH_KILL_SECONDS", 4);
    const killClients = num("BENCH_KILL_CLIENTS", 20);
    const procs: ServerProcess[] = [];
    const redis = new Redis(redisUrl);
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    try {
      const prof = profileArgs(settings);
      const [a, b] = await Promise.all(
        ["A", "B"].map((n) => startBenchSigil(redisUrl, { name: `sigil ${n}`, nodeArgs: prof })),
      );
      procs.push(a!, b!);
      const [pa, pb] = await Promise.all(
        ["A", "B"].map((n) =>
          startProcess({ name: `peer ${n}`, entry: "test/bench/baseline-recovery.ts", env: { REDIS_URL: redisUrl } }),
        ),
      );
      procs.push(pa!, pb!);
      const { app, token } = appWithToken(sigilEnv(0, redisUrl));
      const keys = await ownedChallenges(b!.url, token, Math.max(100, Math.ceil(rate * 2)));
      const answers = new Map(keys.map((k, i) => [k, `answer-${i}`]));
      ctx.log(`  app ${app} with a CUSTOM TOKEN, ${keys.length} owned challenges`);
      const rows: Row[] = [];

      const lname = `solve→event latency, 2 nodes, ${rate}/s, beside ${PEER}`;
      if (selected(settings, lname)) {
        const { sigil: sigilT, other: peerT } = latencyTargets({
          sigil: [a!, b!],
          other: [pa!, pb!],
          token,
          keys,
          answers,
        });
        let s: Measurement | undefined;
        let p: Measurement | undefined;
        for (let round = 1; round <= Math.max(1, settings.rounds); round++) {
          const ms = await latencyRun(sigilT, rate, settings.seconds, settings.warmupSeconds);
          const mp = await latencyRun(peerT, rate, settings.seconds, settings.warmupSeconds);
          ctx.log(
            `  ${lname} round ${round}: Sigil p50 ${ms.p50.toFixed(2)} p99 ${ms.p99.toFixed(2)} ms (${ms.errors} lost), ` +
              `${PEER} p50 ${mp.p50.toFixed(2)} p99 ${mp.p99.toFixed(2)} ms (${mp.errors} lost)`,
          );
          if (!s || ms.p99 < s.p99) s = ms;
          if (!p || mp.p99 < p.p99) p = mp;
        }
        rows.push({
          name: lname,
          subject: s!,
          baseline: p!,
          labels: ["Sigil", PEER],
          figure: { unit: "ms p99", subject: s!.p99, baseline: p!.p99, digits: 2 },
          note: "Sigil: a right answer to an owned challenge (its limits, history append and feed); the peer: a bare broadcast to the room; errors = events never received; CPU µs/req = both nodes' CPU per event",
        });
      }

      const mname = `memory per idle socket, ${sockets} sockets, beside ${PEER}`;
      if (selected(settings, mname)) {
        const rs: BurstResult = await burst(ctx, "Sigil", a!.url, a!.pid, token, sockets);
        await sleep(2000);
        const rp: BurstResult = await burst(ctx, PEER, pa!.url, pa!.pid, undefined, sockets);
        await sleep(2000);
        rows.push({
          name: mname,
          subject: { ...empty(), total: rs.connected, errors: rs.failed },
          baseline: { ...empty(), total: rp.connected, errors: rp.failed },
          labels: ["Sigil", PEER],
          figure: {
            unit: "KiB/socket",
            subject: rs.bytesPerSocket / 1024,
            baseline: rp.bytesPerSocket / 1024,
            digits: 1,
          },
          note: "(RSS idle after the burst − RSS before) / sockets, one node; the peer's sockets each join the app's room",
        });
      }

      const cname = `connections cut, nodes up: events missed, ${killClients} clients, ${rate}/s`;
      const kname = `node SIGKILLed under load: events missed, ${killClients} clients, ${rate}/s`;
      if (selected(settings, kname) || selected(settings, cname)) {
        const sigilSide: KillSide = {
          label: "Sigil",
          a: a!,
          b: b!,
          client(url, counts) {
            let since: string | undefined;
            let after = false;
            const c: KillClient = {
              socket: io(url, {
                path: "/socket.io/",
                transports: ["websocket"],
                forceNew: true,
                auth: (cb) => cb({ token, ...(since ? { since } : {}) }),
              }),
              got: [],
              recovered: 0,
              fresh: 0,
              reconnects: 0,
            };
            c.socket.on("challenge:result", (e: { id: string }) => {
              since = e.id;
              if (counts(e.id)) c.got.push(e.id);
            });
            c.socket.on("ready", (r: { recovered: boolean }) => {
              if (after) c.reconnects++;
              after = true;
              if (r.recovered) c.recovered++;
              else c.fresh++;
            });
            return c;
          },
          publish: async (i) => {
            const key = keys[i % keys.length]!;
            const headers = { "content-type": "application/json", key, a: answers.get(key)! };
            return (await post(agent, `${b!.url}/challenge/solve`, headers)).status === 200;
          },
          async mark() {
            const last = (await redis.xrevrange(`sigil:ev:{${app}}`, "+", "-", "COUNT", 1))[0];
            return last ? last[0] : "0-0";
          },
          async history(mark) {
            const entries = await redis.xrange(`sigil:ev:{${app}}`, `(${mark}`, "+");
            return entries.map(([id]) => id);
          },
        };
        const peerSide: KillSide = {
          label: PEER,
          a: pa!,
          b: pb!,
          client(url, counts) {
            let first = true;
            const c: KillClient = {
              socket: io(url, { path: "/socket.io/", transports: ["websocket"], forceNew: true }),
              got: [],
              recovered: 0,
              fresh: 0,
              reconnects: 0,
            };
            c.socket.on("challenge:result", (e: { id: string }) => {
              if (counts(e.id)) c.got.push(e.id);
            });
            c.socket.on("connect", () => {
              if (!first) c.reconnects++;
              first = false;
              if (c.socket.recovered) c.recovered++;
              else c.fresh++;
            });
            return c;
          },
          publish: async (i) => {
            const r = await post(agent, `${pb!.url}/publish`, { key: `m${i}` });
            return r.status === 200 ? (JSON.parse(r.body) as { id: string }).id : false;
          },
          // The peer's ids are "<ms>-<seq>" of node B's clock: this run's come after now.
          mark: async () => `${Date.now()}-0`,
          history: async () => [],
        };
        const asM = (r: KillResult): Measurement => ({ ...empty(), total: r.published, errors: r.missed + r.doubled });
        const describe = (r: KillResult) =>
          `${r.published} events × ${r.clients} clients: ${r.missed} missed (${r.clientsMissing} clients), ${r.doubled} doubled, ${r.outOfOrder} out of order, ${r.unknown} never published; resumes that said recovered ${r.recovered}, not ${r.fresh} (first connections included)`;
        // The cut first (it needs node A), as the control: both sides should lose nothing there.
        for (const [fault, name] of [
          ["cut", cname],
          ["kill", kname],
        ] as Array<[Fault, string]>) {
          if (!selected(settings, name)) continue;
          const rs = await killRun(ctx, sigilSide, fault, rate, killSeconds, killClients);
          const rp = await killRun(ctx, peerSide, fault, rate, killSeconds, killClients);
          rows.push({
            name,
            subject: asM(rs),
            baseline: asM(rp),
            labels: ["Sigil", PEER],
            figure: { unit: "missed", subject: rs.missed, baseline: rp.missed },
            check: {
              goal: "none missed, doubled or out of order",
              met: rs.missed === 0 && rs.doubled === 0 && rs.outOfOrder === 0 && rs.unknown === 0,
            },
            note: `errors = missed + doubled. Sigil: ${describe(rs)}. ${PEER}: ${describe(rp)}`,
          });
        }
      }
      return rows;
    } finally {
      agent.destroy();
      redis.disconnect();
      await stopAll(ctx, procs, [0, "SIGTERM", "SIGKILL"]);
    }
  },
};
