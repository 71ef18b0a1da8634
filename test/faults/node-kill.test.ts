// One of two nodes killed with SIGKILL under load (issue 6, docs/realtime.md#several-nodes "no event lost across a
// reconnect"): two Sigil processes on one Redis (AOF on), an app with a CUSTOM TOKEN, socket
// clients spread over both nodes, HTTP clients posting solves to both nodes at a steady bounded
// rate and retrying on the other node only when a request failed at the connection level (a
// request that got an answer is never retried). Node 1 is killed mid-run; its socket clients
// resume on node 2 with `since`. Every acknowledged solve (every 200) must reach every socket
// client exactly once, in order; nothing is lost, duplicated or invented.
import { expect } from "chai";
import { io as connect, type Socket } from "socket.io-client";
import type { ChallengeResultEvent, ReadyEvent } from "../../src/protocol.js";
import { startNode } from "../support/nodes.js";
import { PageClient, registerApp } from "../support/pages.js";
import { startProcessNode, type ServerProcess } from "../support/processes.js";
import { requireRedis, TestRedis } from "../support/redis.js";
import { createRequest, send, sleep, solveRequest } from "./client.js";

/** A socket client that follows its app across nodes: on a lost connection it opens a new one on
 *  the next node with `since` = the last event id it saw. Everything it got, in arrival order. */
class ResumingClient {
  events: ChallengeResultEvent[] = [];
  readies: Array<ReadyEvent & { since: string | undefined; node: string }> = [];
  drops: string[] = [];
  socket: Socket | undefined;
  private closed = false;
  private resumes = 0;

  constructor(
    readonly name: string,
    private readonly token: string,
    private nodes: string[],
  ) {
    this.open(undefined);
  }

  get node(): string {
    return this.nodes[0]!;
  }

  private open(since: string | undefined): void {
    const url = this.nodes[0]!;
    const s = connect(url, {
      path: "/socket.io/",
      transports: ["websocket"],
      forceNew: true,
      reconnection: false,
      timeout: 3000,
      auth: { token: this.token, ...(since !== undefined ? { since } : {}) },
    });
    this.socket = s;
    s.on("challenge:result", (e: ChallengeResultEvent) => this.events.push(e));
    s.on("ready", (r: ReadyEvent) => this.readies.push({ ...r, since, node: url }));
    const retry = (why: string) => {
      this.drops.push(`${url}: ${why}`);
      s.removeAllListeners();
      s.disconnect();
      if (this.closed || this.resumes++ >= 10) return;
      // The node is gone: move to the next one (as a balancer would), resuming after the last id.
      this.nodes = [...this.nodes.slice(1), this.nodes[0]!];
      setTimeout(() => this.open(this.events[this.events.length - 1]?.id), 50);
    };
    s.on("disconnect", (reason) => retry(reason));
    s.on("connect_error", (err) => retry(`connect_error ${err.message}`));
  }

  close(): void {
    this.closed = true;
    this.socket?.removeAllListeners();
    this.socket?.disconnect();
  }
}

describe("Faults: one of two nodes killed with SIGKILL under load", function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let p1: ServerProcess, p2: ServerProcess;
  const clients: ResumingClient[] = [];

  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start({ appendonly: true });
    const env = {
      REDIS_URL: redis.url,
      LOG_LEVEL: "warn",
      SOLVE_LIMIT_PER_ADDRESS: "1000000",
      SOLVE_LIMIT_PER_KEY: "1000000",
      HISTORY_MAX_EVENTS: "100000",
    };
    [p1, p2] = await Promise.all([startProcessNode(env), startProcessNode(env)]);
  });
  after(async () => {
    for (const c of clients) c.close();
    await Promise.all([p1?.stop("SIGKILL"), p2?.stop("SIGKILL")]);
    await redis?.destroy();
  });

  it("When node 1 is SIGKILLed mid-run, then every acknowledged solve reaches every socket client exactly once, in order", async () => {
    // An app registered on /developers, and a CUSTOM TOKEN issued for it.
    const dev = new PageClient(p1.url);
    await dev.signUp("killtest");
    const app = await registerApp(dev, ["https://app.example/callback"], "Kill Test");
    const helper = await startNode({ redisUrl: redis.url });
    const { token } = await helper.server.customTokens.create({ app: app.clientId, name: "fault test" });
    await helper.close();

    // Challenges of the app, each with a known answer.
    const pool: Array<{ key: string; answer: string }> = [];
    for (let i = 0; i < 12; i++) {
      const answer = `answer ${i}`;
      const r = await send(
        i % 2 ? p2.url : p1.url,
        createRequest(`question ${i}`, answer, { authorization: `Bearer ${token}` }),
      );
      expect(r.status, JSON.stringify(r.json)).to.equal(201);
      pool.push({ key: r.json.key, answer });
    }

    // Six socket clients, three on each node.
    const nodes = [p1.url, p2.url];
    for (let i = 0; i < 6; i++)
      clients.push(new ResumingClient(`c${i}`, token, i % 2 ? [p2.url, p1.url] : [p1.url, p2.url]));
    const until = Date.now() + 10_000;
    while (clients.some((c) => c.readies.length === 0) && Date.now() < until) await sleep(20);
    for (const c of clients) expect(c.readies, `${c.name} ready`).to.have.length(1);

    // Solvers: 4 workers, each one solve then a 25 ms pause, alternating nodes; a request that
    // failed at the connection level is retried (same request) on the other node, up to 4 tries.
    interface Attempt {
      key: string;
      right: boolean;
      node: string;
      status?: number;
      correct?: boolean;
      error?: string;
      sent: number;
    }
    const attempts: Attempt[] = [];
    const t0 = Date.now();
    let stop = false;
    let seq = 0;
    const workers = Array.from({ length: 4 }, async (_, w) => {
      for (let n = 0; !stop && n < 2000 && Date.now() - t0 < 20_000; n++) {
        const c = pool[(seq++ * 7 + w) % pool.length]!;
        const right = (n + w) % 3 === 0;
        const first = (n + w) % 2;
        for (let tryNo = 0; tryNo < 4; tryNo++) {
          const node = nodes[(first + tryNo) % 2]!;
          const r = await send(node, solveRequest(c.key, right ? c.answer : `wrong ${n}`), { timeoutMs: 3000 });
          const a: Attempt = {
            key: c.key,
            right,
            node,
            sent: Date.now() - t0,
            ...(r.error !== undefined ? { error: r.error } : { status: r.status, correct: r.json?.correct }),
          };
          attempts.push(a);
          if (r.error === undefined) break; // an answer, whatever it is, is never retried
          await sleep(10);
        }
        await sleep(25);
      }
    });

    await sleep(3000);
    const killedAt = Date.now() - t0;
    const idsBeforeKill = clients.map((c) => c.events.length);
    await p1.stop("SIGKILL");
    await sleep(4000);
    stop = true;
    await Promise.all(workers);

    // The truth: the app's whole history, read on the survivor from the start.
    const acked = attempts.filter((a) => a.status === 200);
    // A refused connection was never accepted; a reset or a timeout may have been applied.
    const refused = attempts.filter((a) => a.error === "ECONNREFUSED");
    const doubt = attempts.filter((a) => a.error !== undefined && a.error !== "ECONNREFUSED");
    const answeredOther = attempts.filter((a) => a.status !== undefined && a.status !== 200);
    expect(
      answeredOther.map((a) => `${a.status} on ${a.node}`),
      "answers other than 200",
    ).to.deep.equal([]);
    for (const a of acked) expect(a.correct, "the solve's answer").to.equal(a.right);
    const expectedMin = acked.length;
    const waitUntil = Date.now() + 10_000;
    while (clients.some((c) => c.events.length < expectedMin) && Date.now() < waitUntil) await sleep(50);
    await sleep(300);
    const history = await readHistory(p2.url, token, "0-0");

    // Every acknowledged solve is in the history exactly once: per challenge and outcome, the
    // events number the acknowledged solves, plus at most the solves whose answer never came.
    const count = (xs: Array<{ key: string; correct: boolean }>) => {
      const m = new Map<string, number>();
      for (const x of xs) m.set(`${x.key}|${x.correct}`, (m.get(`${x.key}|${x.correct}`) ?? 0) + 1);
      return m;
    };
    const ackedBy = count(acked.map((a) => ({ key: a.key, correct: a.right })));
    const doubtBy = count(doubt.map((a) => ({ key: a.key, correct: a.right })));
    const histBy = count(history);
    const attempted = new Set(attempts.map((a) => `${a.key}|${a.right}`));
    for (const k of histBy.keys()) expect(attempted.has(k), `an event nobody caused: ${k}`).to.equal(true);
    for (const k of attempted) {
      const h = histBy.get(k) ?? 0;
      expect(h, `events for ${k}`).to.be.at.least(ackedBy.get(k) ?? 0);
      expect(h, `events for ${k}`).to.be.at.most((ackedBy.get(k) ?? 0) + (doubtBy.get(k) ?? 0));
    }
    expect(history.length).to.be.at.most(acked.length + doubt.length);
    const ids = history.map((e) => e.id);
    expect(new Set(ids).size, "history ids unique").to.equal(ids.length);

    // Every socket client saw exactly the history: same events, same order, nothing twice.
    for (const c of clients) {
      expect(
        c.events.map((e) => e.id),
        `${c.name} (first on ${nodes.indexOf(c.readies[0]!.node) + 1}; drops ${c.drops.join("; ")})`,
      ).to.deep.equal(ids);
      expect(c.events).to.deep.equal(history);
    }
    // The clients of node 1 resumed on node 2 with since, and everything after it was replayed.
    const resumed = clients.filter((c) => c.readies.length > 1);
    expect(resumed.length, "clients that resumed").to.equal(3);
    for (const c of resumed) {
      expect(c.readies).to.have.length(2);
      const r = c.readies[1]!;
      expect(r.node).to.equal(p2.url);
      expect(r.since, `${c.name} resumed with since`).to.be.a("string");
      expect(r.recovered, `${c.name} ready.recovered`).to.equal(true);
      expect(r.app).to.equal(app.clientId);
    }
    for (const c of clients.filter((x) => x.readies.length === 1))
      expect(c.drops, `${c.name} on the survivor`).to.deep.equal([]);

    const after = attempts.filter((a) => a.sent > killedAt);
    expect(acked.length).to.be.greaterThan(100);
    expect(refused.length, "requests to the dead node, retried on the survivor").to.be.greaterThan(0);
    expect(after.filter((a) => a.status === 200).length, "solves acknowledged after the kill").to.be.greaterThan(50);
    expect(Math.min(...idsBeforeKill), "events every client saw before the kill").to.be.greaterThan(0);
    expect(p2.proc.exitCode, "the survivor is alive").to.equal(null);
    console.log(
      `      ${attempts.length} attempts, ${acked.length} acknowledged, ${refused.length} refused, ` +
        `${doubt.length} in doubt (${doubt.map((a) => a.error).join(", ") || "none"}), ${history.length} events; ` +
        `${resumed.length} clients resumed on node 2`,
    );
  });
});

/** The app's history after `since`, as a fresh client with `since` receives it (before `ready`). */
async function readHistory(url: string, token: string, since: string): Promise<ChallengeResultEvent[]> {
  const s = connect(url, {
    path: "/socket.io/",
    transports: ["websocket"],
    forceNew: true,
    reconnection: false,
    auth: { token, since },
  });
  const got: ChallengeResultEvent[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error("no ready from the audit client")), 10_000);
      s.on("challenge:result", (e: ChallengeResultEvent) => got.push(e));
      s.on("ready", () => {
        clearTimeout(t);
        resolve();
      });
      s.on("connect_error", (e) => reject(e));
    });
  } finally {
    s.disconnect();
  }
  return got;
}
