// npm run soak — two Sigil nodes (child processes) on a private redis-server under SOAK_MINUTES (20)
// of mixed, moderate load, checking every event every socket receives and sampling the nodes every
// SOAK_SAMPLE_SECONDS (10). At the end: a table over time, the slope of each node's RSS after the
// warm-up (least squares), and verdict lines; the exit code is 1 when an event was lost, doubled or
// out of order, or when anything answered other than a user would expect.
//
// The load, all of it spread over both nodes (defaults; each rate a setting):
// - solves over HTTP (SOAK_SOLVE_RATE, 20/s) on challenges owned by two apps: three in four right
//   answers (a fixed pool per app), one in four wrong (each challenge takes 5 wrong answers, then a
//   new one is made with POST /challenge/new, so no limit is ever reached); every answer must be 200
//   with the right `correct`. Solves over sockets too (SOAK_SOCKET_SOLVE_RATE, 1/s, right answers),
//   and a challenge:new on a socket every 5 s.
// - sign-ins on the pages (SOAK_SIGNIN_RATE, 0.5/s): GET /signin, POST /signin with its CSRF token
//   (one in ten with a wrong password: 401), then GET /account and POST /signout (303), from eight
//   loopback addresses so no per-address limit is reached.
// - token trades (SOAK_TRADE_RATE, 1/s), by signed-in page clients, each step on a node picked at
//   random: GET /authorize → code → POST /token → GET /auth/user; one in three with OpenID Connect
//   (`openid profile offline_access`): /userinfo, a refresh (POST /token grant_type=refresh_token),
//   /userinfo with the new token, then POST /revoke of the refresh token.
// - sockets: SOAK_RESUMERS (16, half per app) stay for the whole run with `auth.since` (the id of
//   the last event they got) and reconnect every 15–45 s, half through a transport close
//   (socket.io-client's own reconnection), half by a new connection to a node picked at random;
//   every resume must say `recovered: true`. Fresh sockets (SOAK_CHURN_RATE, 1/s) connect without
//   `since`, stay 2–10 s and disconnect.
// Truth: the apps' histories (the Redis Streams), read every second from this process (before
// Sigil trims them), and the count of solves the nodes acknowledged. Each socket's events are
// checked against them as they come: a resumer must get every event after its first `since`, in
// order, once; a fresh socket every event from the first it gets. The last check waits for the
// resumers to have the final event.
// Samples: RSS (from /proc), CPU, JS heap and event-loop delay (p50/p99/max over the window, from
// prom-client's `nodejs_eventloop_lag_*_seconds` on GET /metrics, which reset at each scrape: only
// this process scrapes) of each node; operations, errors by kind and events lost in the window.
// Settings: SOAK_MINUTES (20), SOAK_WARMUP_MINUTES (5, or a quarter of shorter runs),
// SOAK_SAMPLE_SECONDS (10), the rates above, SOAK_FLAT_PCT_PER_HOUR (5: an RSS slope within ± this
// share of RSS per hour is called flat; a verdict line, not the exit code), SOAK_MARKDOWN=1 (also a Markdown table, one row per
// SOAK_MARKDOWN_EVERY samples, default 12).
import { theilSen } from "./lib/stats.js";
import { Agent, request } from "node:http";
import { loadavg } from "node:os";
import { Redis } from "ioredis";
import { io, type Socket } from "socket.io-client";
import { compareEventIds } from "../../src/store/port.js";
import { PageClient, authorize, basic, csrfOf, pkce, registerApp } from "../support/pages.js";
import { sigilEnv, type ServerProcess } from "../support/processes.js";
import { hasRedisServer, TestRedis } from "../support/redis.js";
import { cpuSeconds } from "./lib/load.js";
import { appWithToken, num, ownedChallenges, rss, sleep, startBenchSigil } from "./lib/sockets.js";

const REDIRECT = "https://app.example/callback";
const PASSWORD = "correct horse battery staple";
/** prom-client samples the event loop with a 10 ms timer and reports the time between its ticks. */
const ELD_RESOLUTION_S = 0.01;

const minutes = Number(process.env.SOAK_MINUTES ?? 20);
const settings = {
  minutes: Number.isFinite(minutes) && minutes > 0 ? minutes : 20,
  sampleSeconds: num("SOAK_SAMPLE_SECONDS", 10),
  solveRate: num("SOAK_SOLVE_RATE", 20),
  socketSolveRate: num("SOAK_SOCKET_SOLVE_RATE", 1),
  signinRate: num("SOAK_SIGNIN_RATE", 0.5),
  tradeRate: num("SOAK_TRADE_RATE", 1),
  resumers: num("SOAK_RESUMERS", 16),
  churnRate: num("SOAK_CHURN_RATE", 1),
};
const warmupMinutes = Number(process.env.SOAK_WARMUP_MINUTES ?? Math.min(5, settings.minutes / 4));

const log = (l: string) => process.stderr.write(l + "\n");
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);

// ---------------------------------------------------------------------------------------------
// Counters: operations done and errors by kind, in total and since the last sample.

class Counts {
  readonly total = new Map<string, number>();
  window = new Map<string, number>();
  add(kind: string, n = 1): void {
    if (n === 0) return;
    this.total.set(kind, (this.total.get(kind) ?? 0) + n);
    this.window.set(kind, (this.window.get(kind) ?? 0) + n);
  }
  take(): Map<string, number> {
    const w = this.window;
    this.window = new Map();
    return w;
  }
  sum(m: Map<string, number> = this.total): number {
    let s = 0;
    for (const v of m.values()) s += v;
    return s;
  }
}

const ops = new Counts();
const errors = new Counts();
/** Examples of each error kind (first few), for the report. */
const examples = new Map<string, string[]>();
function error(kind: string, detail = ""): void {
  errors.add(kind);
  const ex = examples.get(kind) ?? [];
  if (ex.length < 3 && detail) ex.push(detail.slice(0, 300));
  examples.set(kind, ex);
}

// ---------------------------------------------------------------------------------------------
// HTTP on keep-alive agents (an app's backend), and the page client (a browser).

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

interface Answer {
  status: number;
  body: string;
  json: any;
}

function call(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string },
  retried = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: opts.method ?? "GET", agent, headers: opts.headers ?? {}, timeout: 10_000 },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body, json });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer within 10 s")));
    req.on("error", (err: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed as idle just as this request went out on it (the
      // HTTP/1.1 race node's docs describe): the server read nothing, so send it again, once, as
      // those docs advise. Counted, so the report shows how often.
      if (req.reusedSocket && err.code === "ECONNRESET" && !retried) {
        ops.add("HTTP requests resent (kept-alive connection closed by the server as idle)");
        resolve(call(url, opts, true));
      } else reject(err);
    });
    req.end(opts.body);
  });
}

// ---------------------------------------------------------------------------------------------
// Truth: each app's events, as its history holds them, read every second.

class AppTruth {
  readonly ids: string[] = [];
  readonly keys: string[] = [];
  readonly index = new Map<string, number>();
  /** Solves a node acknowledged (200 or an ack with `correct`): each must be one event. */
  acknowledged = 0;
  constructor(
    readonly app: string,
    readonly token: string,
    /** The newest id before the run: events after it are the run's. */
    readonly mark: string,
    readonly rightKeys: string[],
    readonly answers: Map<string, string>,
  ) {}
  get last(): string {
    return this.ids[this.ids.length - 1] ?? this.mark;
  }
  async harvest(redis: Redis): Promise<void> {
    for (;;) {
      const entries = await redis.xrange(`sigil:ev:{${this.app}}`, `(${this.last}`, "+", "COUNT", 1000);
      if (entries.length === 0) break;
      // Anything trimmed past what was read is lost to the check, not to the clients: say so.
      const cut = await redis.get(`sigil:ev:{${this.app}}:cut`);
      if (cut && compareEventIds(cut, this.last) > 0 && compareEventIds(entries[0]![0], cut) > 0 && this.ids.length)
        error("harness: history trimmed before it was read", `${this.app} cut ${cut}, read up to ${this.last}`);
      for (const [id, fields] of entries) {
        this.index.set(id, this.ids.length);
        this.ids.push(id);
        this.keys.push(fields[fields.indexOf("k") + 1] ?? "");
      }
      if (entries.length < 1000) break;
    }
  }
}

/**
 * What one socket client got, checked against its app's truth in arrival order: the next event
 * must be the one after the last; a later one means the ones between were lost, an earlier one
 * was doubled or out of order, an id the history never had is unknown.
 */
class Track {
  private readonly pending: Array<{ id: string; key: string }> = [];
  private readonly seen = new Set<string>();
  /** Index in truth of the last event checked; undefined: not started (a fresh socket). */
  pos: number | undefined;
  received = 0;
  lost = 0;
  doubled = 0;
  outOfOrder = 0;
  unknown = 0;
  mismatched = 0;
  constructor(
    readonly truth: AppTruth,
    from: "mark" | "first",
  ) {
    this.pos = from === "mark" ? -1 : undefined;
  }
  push(e: { id: string; key: string }): void {
    this.received++;
    this.pending.push(e);
  }
  /** Checks what the truth already holds; returns the events found lost by this call. */
  verify(): number {
    const before = this.lost;
    while (this.pending.length) {
      const e = this.pending[0]!;
      const idx = this.truth.index.get(e.id);
      if (idx === undefined) {
        if (compareEventIds(e.id, this.truth.last) > 0) break; // not read from the history yet
        this.unknown++;
        error("events: unknown (never in the app's history)", e.id);
      } else {
        if (this.pos === undefined) this.pos = idx - 1;
        if (this.truth.keys[idx] !== e.key) {
          this.mismatched++;
          error("events: key differs from the history", e.id);
        }
        if (idx === this.pos + 1) this.pos = idx;
        else if (idx > this.pos + 1) {
          this.lost += idx - this.pos - 1;
          this.pos = idx;
        } else if (this.seen.has(e.id)) {
          this.doubled++;
          error("events: doubled", e.id);
        } else {
          this.outOfOrder++;
          error("events: out of order", e.id);
        }
        this.seen.add(e.id);
      }
      this.pending.shift();
    }
    return this.lost - before;
  }
  /** At the end: what should have come and did not (resumers only). */
  tail(): number {
    if (this.pos === undefined) return 0;
    const missing = this.truth.ids.length - 1 - this.pos;
    this.lost += missing;
    return missing;
  }
}

// ---------------------------------------------------------------------------------------------
// Socket clients.

interface Node {
  name: string;
  proc: ServerProcess;
}

let nodes: Node[] = [];
const tracks: Track[] = [];
let connections = 0;

function connect(
  url: string,
  truth: AppTruth,
  track: Track,
  since: () => string | undefined,
  onReady: (recovered: boolean) => void,
  reconnection: boolean,
): Socket {
  const socket = io(url, {
    path: "/socket.io/",
    transports: ["websocket"],
    forceNew: true,
    reconnection,
    reconnectionDelay: 200,
    auth: (cb) => {
      const s = since();
      cb({ token: truth.token, ...(s ? { since: s } : {}) });
    },
  });
  socket.on("challenge:result", (e: { id: string; key: string }) => track.push(e));
  socket.on("ready", (r: { app: string; recovered: boolean }) => {
    connections++;
    if (r.app !== truth.app) error("socket: ready names another app", r.app);
    onReady(r.recovered);
  });
  socket.on("connect_error", (err: Error & { data?: unknown }) =>
    error(`socket: connect_error ${err.message}`, JSON.stringify(err.data ?? null)),
  );
  return socket;
}

/** A client for the whole run: resumes with the id of the last event it got. */
class Resumer {
  socket: Socket | undefined;
  since: string;
  readonly track: Track;
  /** A disconnect this client asked for (or a transport close it caused) is no error. */
  private expectDrop = false;
  private lastReady = 0;
  private timer: NodeJS.Timeout | undefined;
  stopped = false;
  constructor(readonly truth: AppTruth) {
    this.since = truth.mark;
    this.track = new Track(truth, "mark");
    tracks.push(this.track);
  }
  start(url: string): void {
    const socket = connect(
      url,
      this.truth,
      this.track,
      () => this.since,
      (recovered) => {
        this.expectDrop = false;
        this.lastReady = Date.now();
        ops.add("socket resumes");
        if (!recovered) error("socket: resume not recovered", `since ${this.since}`);
      },
      true,
    );
    socket.on("challenge:result", (e: { id: string }) => {
      if (compareEventIds(e.id, this.since) > 0) this.since = e.id;
    });
    socket.on("disconnect", (reason) => {
      if (!this.expectDrop && !this.stopped) error(`socket: dropped (${reason})`);
    });
    this.socket = socket;
    this.schedule();
  }
  private schedule(): void {
    this.timer = setTimeout(() => this.reconnect(), between(15_000, 45_000));
  }
  private reconnect(): void {
    // None once the load stops: the last check wants every resumer connected.
    if (this.stopped || stopping || !this.socket) return;
    // Not while a connection is being opened: an engine closed then is not noticed by
    // socket.io-client's manager until its 20 s connect timeout (a stall of the harness's making).
    if (!this.socket.connected) return this.schedule();
    this.expectDrop = true;
    if (Math.random() < 0.5) {
      // A transport close: socket.io-client reconnects by itself, with the latest since.
      ops.add("socket transport closes");
      this.socket.io.engine.close();
      this.schedule();
    } else {
      // Gone a moment, then back on a node picked at random.
      ops.add("socket disconnects");
      this.socket.removeAllListeners();
      this.socket.disconnect();
      this.socket = undefined;
      setTimeout(() => !this.stopped && this.start(pick(nodes).proc.url), between(100, 3000));
    }
  }
  async solve(): Promise<void> {
    const s = this.socket;
    if (!s?.connected) return;
    const key = pick(this.truth.rightKeys);
    try {
      const r = (await s.timeout(10_000).emitWithAck("challenge:solve", { key, a: this.truth.answers.get(key) })) as {
        correct?: boolean;
      };
      if (r.correct === true) {
        this.truth.acknowledged++;
        ops.add("socket solves");
      } else error("socket: challenge:solve ack", JSON.stringify(r));
    } catch (e) {
      // The connection went away with the ack pending: the solve may or may not have counted.
      if (this.expectDrop) ops.add("socket solves unanswered (reconnecting)");
      else error("socket: challenge:solve no ack", String(e));
      unsureSolves.add(this.truth.app);
    }
  }
  async create(): Promise<void> {
    const s = this.socket;
    if (!s?.connected) return;
    try {
      const r = (await s
        .timeout(10_000)
        .emitWithAck("challenge:new", { question: "soak?", answer: "yes", ttl: 3600 })) as { key?: string };
      if (typeof r.key === "string") ops.add("socket creates");
      else error("socket: challenge:new ack", JSON.stringify(r));
    } catch (e) {
      if (!this.expectDrop) error("socket: challenge:new no ack", String(e));
    }
  }
  /** Where the client stands, for a report that it is not connected. */
  state(): string {
    const s = this.socket;
    if (!s) return "between connections";
    const m = s.io as unknown as { _readyState?: string; engine?: { readyState?: string } };
    return `manager ${m._readyState}, engine ${m.engine?.readyState}, active ${s.active}, last ready ${this.lastReady ? `${((Date.now() - this.lastReady) / 1000).toFixed(1)} s ago` : "never"}`;
  }
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.socket?.disconnect();
  }
}

/** Apps whose count of acknowledged solves is uncertain (an ack lost with its connection). */
const unsureSolves = new Set<string>();

/** A fresh socket: no since, a few seconds, then gone. */
async function churn(truth: AppTruth): Promise<void> {
  const track = new Track(truth, "first");
  tracks.push(track);
  let ready = false;
  const socket = connect(
    pick(nodes).proc.url,
    truth,
    track,
    () => undefined,
    (recovered) => {
      ready = true;
      ops.add("socket connects");
      if (recovered) error("socket: fresh connection said recovered");
    },
    false,
  );
  let dropped = "";
  socket.on("disconnect", (reason) => (dropped = reason));
  await sleep(between(2000, 10_000));
  if (!ready) error("socket: fresh connection never ready");
  if (dropped) error(`socket: dropped (${dropped})`);
  socket.disconnect();
}

// ---------------------------------------------------------------------------------------------
// HTTP load.

/** Challenges for wrong answers: each takes five (the limit is 10 per address per 10 minutes), then the next. */
interface WrongPool {
  queue: string[];
  key: string | undefined;
  used: number;
  refilling: boolean;
}

async function newOwned(truth: AppTruth, answer: string): Promise<string | undefined> {
  const node = pick(nodes);
  try {
    const r = await call(`${node.proc.url}/challenge/new`, {
      method: "POST",
      headers: { authorization: `Bearer ${truth.token}`, question: "soak?", answer, ttl: "3600" },
    });
    if (r.status === 201 && typeof r.json?.key === "string") {
      ops.add("creates");
      return r.json.key as string;
    }
    error(`create: ${r.status}`, r.body);
  } catch (e) {
    error("create: no answer", String(e));
  }
  return undefined;
}

async function refill(truth: AppTruth, pool: WrongPool, to = 20): Promise<void> {
  if (pool.refilling) return;
  pool.refilling = true;
  try {
    while (pool.queue.length < to) {
      const key = await newOwned(truth, "the right one");
      if (!key) break;
      pool.queue.push(key);
    }
  } finally {
    pool.refilling = false;
  }
}

async function solve(truth: AppTruth, pool: WrongPool, right: boolean): Promise<void> {
  let key: string;
  let a: string;
  if (right) {
    key = pick(truth.rightKeys);
    a = truth.answers.get(key)!;
  } else {
    if (!pool.key || pool.used >= 5) {
      pool.key = pool.queue.shift();
      pool.used = 0;
      if (pool.queue.length < 10) void refill(truth, pool);
      if (!pool.key) return error("harness: no challenge left for wrong answers");
    }
    pool.used++;
    key = pool.key;
    a = `wrong ${pool.used}`;
  }
  const node = pick(nodes);
  try {
    const r = await call(`${node.proc.url}/challenge/solve`, {
      method: "POST",
      headers: { "content-type": "application/json", key, a },
    });
    if (r.status === 200 && r.json?.correct === right) {
      truth.acknowledged++;
      ops.add(right ? "solves right" : "solves wrong");
    } else error(`solve ${right ? "right" : "wrong"}: ${r.status}`, r.body);
  } catch (e) {
    unsureSolves.add(truth.app);
    error("solve: no answer", String(e));
  }
}

interface User {
  username: string;
  /** A signed-in browser (cookies), for token trades. */
  browser: PageClient;
}

/** The same browser (cookies) on another node: sessions live in the store, not in a node. */
function on(browser: PageClient, node: Node, from?: string): PageClient {
  const c = new PageClient(node.proc.url, from);
  for (const [k, v] of browser.cookies) c.cookies.set(k, v);
  return c;
}

let signinCount = 0;
async function signin(users: User[]): Promise<void> {
  const i = signinCount++;
  const user = users[i % users.length]!;
  // Eight addresses: failures stay far below 10 per username and address, 100 per address.
  const from = `127.0.0.${10 + (i % 8)}`;
  const wrong = i % 10 === 9;
  const c = new PageClient(pick(nodes).proc.url, from);
  try {
    const page = await c.get("/signin");
    if (page.status !== 200) return error(`signin: GET /signin ${page.status}`);
    const r = await c.post("/signin", {
      _csrf: csrfOf(page.text),
      username: user.username,
      password: wrong ? "not it" : PASSWORD,
    });
    if (wrong) {
      if (r.status === 401) ops.add("sign-ins refused (wrong password)");
      else error(`signin: wrong password answered ${r.status}`);
      return;
    }
    if (r.status !== 303) return error(`signin: POST /signin ${r.status}`, r.text.slice(0, 200));
    const b = on(c, pick(nodes), from);
    const acct = await b.get("/account");
    if (acct.status !== 200) return error(`signin: GET /account ${acct.status}`);
    const out = await on(b, pick(nodes), from).post("/signout", { _csrf: csrfOf(acct.text) });
    if (out.status !== 303) return error(`signin: POST /signout ${out.status}`);
    ops.add("sign-ins (in, account, out)");
  } catch (e) {
    error("signin: failed", String(e));
  }
}

let tradeCount = 0;
async function trade(users: User[], app: { clientId: string; clientSecret: string }): Promise<void> {
  const i = tradeCount++;
  const user = users[i % users.length]!;
  const oidc = i % 3 === 2;
  const { verifier, challenge } = pkce();
  const auth = basic(app.clientId, app.clientSecret);
  const form = (fields: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: auth },
    body: new URLSearchParams(fields).toString(),
  });
  const step = oidc ? "oidc" : "oauth";
  try {
    const back = await authorize(on(user.browser, pick(nodes)), {
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      state: "s",
      code_challenge: challenge,
      code_challenge_method: "S256",
      ...(oidc ? { scope: "openid profile offline_access", nonce: `n${i}` } : {}),
    });
    const code = back.searchParams.get("code");
    if (!code) return error(`${step}: no code`, back.search);
    const t = await call(
      `${pick(nodes).proc.url}/token`,
      form({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier }),
    );
    if (t.status !== 200 || typeof t.json?.access_token !== "string")
      return error(`${step}: /token ${t.status}`, t.body);
    if (oidc && (typeof t.json.id_token !== "string" || typeof t.json.refresh_token !== "string"))
      return error("oidc: /token without id_token or refresh_token", Object.keys(t.json).join(","));
    const me = (at: string) =>
      call(`${pick(nodes).proc.url}${oidc ? "/userinfo" : "/auth/user"}`, {
        headers: { authorization: `Bearer ${at}`, ...(oidc ? {} : { client_id: app.clientId }) },
      });
    const u = await me(t.json.access_token as string);
    if (u.status !== 200) return error(`${step}: user ${u.status}`, u.body);
    if (!oidc) return void ops.add("trades (authorize, token, /auth/user)");
    const r = await call(
      `${pick(nodes).proc.url}/token`,
      form({ grant_type: "refresh_token", refresh_token: t.json.refresh_token as string }),
    );
    if (r.status !== 200 || typeof r.json?.access_token !== "string") return error(`oidc: refresh ${r.status}`, r.body);
    const u2 = await me(r.json.access_token as string);
    if (u2.status !== 200) return error(`oidc: /userinfo after refresh ${u2.status}`, u2.body);
    const rv = await call(`${pick(nodes).proc.url}/revoke`, form({ token: r.json.refresh_token as string }));
    if (rv.status !== 200) return error(`oidc: /revoke ${rv.status}`, rv.body);
    ops.add("trades (OIDC: token, userinfo, refresh, userinfo, revoke)");
  } catch (e) {
    error(`${step}: failed`, String(e));
  }
}

// ---------------------------------------------------------------------------------------------
// Scheduling: fn at `rate` per second, not awaited, with at most `cap` in flight (then skipped and
// counted: the load generator fell behind, which would make the rates a lie).

const inflight = new Set<Promise<void>>();
let stopping = false;

function every(name: string, rate: number, cap: number, fn: () => Promise<void>): void {
  let running = 0;
  const start = performance.now();
  let n = 0;
  const tick = () => {
    if (stopping) return;
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    while (n < due) {
      n++;
      if (running >= cap) {
        error(`harness: ${name} behind (${cap} in flight)`);
        continue;
      }
      running++;
      const p = fn().finally(() => {
        running--;
        inflight.delete(p);
      });
      inflight.add(p);
    }
    setTimeout(tick, Math.max(5, Math.min(1000, 1000 / rate / 2)));
  };
  tick();
}

// ---------------------------------------------------------------------------------------------
// Sampling.

interface NodeSample {
  rssKiB: number;
  heapMiB: number;
  cpuPct: number;
  eld: { p50: number; p99: number; max: number };
  sockets: number;
}

interface Sample {
  t: number;
  nodes: NodeSample[];
  ops: number;
  errors: number;
  lost: number;
  load: number;
}

function metric(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, "m").exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Event-loop delay in ms: the time between the 10 ms timer's ticks, less the 10 ms. */
const eldMs = (s: number) => Math.max(0, (s - ELD_RESOLUTION_S) * 1000);

async function sampleNode(node: Node, cpu0: number, dt: number): Promise<{ s: NodeSample; cpu: number }> {
  const r = await call(`${node.proc.url}/metrics`, {});
  const cpu = cpuSeconds(node.proc.pid) ?? NaN;
  return {
    cpu,
    s: {
      rssKiB: rss(node.proc.pid) / 1024,
      heapMiB: metric(r.body, "nodejs_heap_size_used_bytes") / 2 ** 20,
      cpuPct: ((cpu - cpu0) / dt) * 100,
      eld: {
        p50: eldMs(metric(r.body, "nodejs_eventloop_lag_p50_seconds")),
        p99: eldMs(metric(r.body, "nodejs_eventloop_lag_p99_seconds")),
        max: eldMs(metric(r.body, "nodejs_eventloop_lag_max_seconds")),
      },
      sockets: metric(r.body, "sigil_channel_sockets"),
    },
  };
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
  }
  return sxx === 0 ? NaN : sxy / sxx;
}

const mmss = (s: number) => {
  const r = Math.round(s);
  return `${Math.floor(r / 60)}:${String(r % 60).padStart(2, "0")}`;
};
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "-");

function row(s: Sample): string[] {
  const cells = [mmss(s.t)];
  for (const n of s.nodes)
    cells.push(
      f(n.rssKiB / 1024),
      f(n.heapMiB),
      f(n.cpuPct, 0),
      `${f(n.eld.p50, 2)}/${f(n.eld.p99, 1)}/${f(n.eld.max, 0)}`,
      f(n.sockets, 0),
    );
  cells.push(String(s.ops), String(s.errors), String(s.lost), f(s.load, 2));
  return cells;
}

const HEADER = [
  "t",
  ...["A", "B"].flatMap((n) => [`RSS ${n} MiB`, `heap ${n}`, `CPU ${n} %`, `loop ${n} p50/p99/max ms`, `sockets ${n}`]),
  "ops",
  "errors",
  "lost",
  "load",
];

function table(rows: string[][]): string {
  const all = [HEADER, ...rows];
  const w = HEADER.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join("  ")).join("\n");
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  if (!hasRedisServer()) throw new Error("redis-server is not installed (apt-get install -y redis-server)");
  const startLoad = loadavg();
  log(
    `sigil soak: ${settings.minutes} min (warm-up ${warmupMinutes} min), samples every ${settings.sampleSeconds} s; ` +
      `solves ${settings.solveRate}/s over HTTP + ${settings.socketSolveRate}/s over sockets, sign-ins ${settings.signinRate}/s, ` +
      `trades ${settings.tradeRate}/s, ${settings.resumers} resuming sockets, ${settings.churnRate} fresh sockets/s; ` +
      `node ${process.version}, load ${startLoad.map((l) => l.toFixed(2)).join(" ")}`,
  );
  const redisServer = await TestRedis.start();
  const redis = new Redis(redisServer.url);
  const procs: ServerProcess[] = [];
  const resumers: Resumer[] = [];

  try {
    // One after the other, with time to spare: the machine may be shared.
    for (const n of ["A", "B"])
      procs.push(await startBenchSigil(redisServer.url, { name: `sigil ${n}`, readyTimeoutMs: 120_000 }));
    const [a, b] = procs;
    nodes = [
      { name: "A", proc: a! },
      { name: "B", proc: b! },
    ];
    // Every line a node logs at error level is an unexpected error; warnings are counted by message.
    const logLines = new Counts();
    for (const n of nodes) {
      let buf = "";
      const onData = (d: Buffer) => {
        buf += d.toString();
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          let rec: { level?: string; msg?: string } = {};
          try {
            rec = JSON.parse(line) as typeof rec;
          } catch {
            rec = { level: "error", msg: line };
          }
          if (rec.level === "error" || rec.level === "fatal")
            error(`node ${n.name} logged ${rec.level}: ${rec.msg}`, line);
          else logLines.add(`node ${n.name} logged ${rec.level}: ${rec.msg}`);
        }
      };
      n.proc.proc.stdout!.on("data", onData);
      n.proc.proc.stderr!.on("data", onData);
      void n.proc.exited.then((code) => {
        if (!stopping) error(`node ${n.name} exited (${code})`);
      });
    }

    // Two apps with a CUSTOM TOKEN each (the CLI), each with a pool of challenges for right answers
    // and a first event, so that resumers start from an id the history has.
    const cliEnv = sigilEnv(0, redisServer.url);
    const apps: AppTruth[] = [];
    for (const owner of ["soak-owner-1", "soak-owner-2"]) {
      const { app, token } = appWithToken(cliEnv, owner);
      const keys = await ownedChallenges(pick(nodes).proc.url, token, 200);
      const answers = new Map(keys.map((k, i) => [k, `answer-${i}`]));
      const first = await call(`${a!.url}/challenge/solve`, {
        method: "POST",
        headers: { "content-type": "application/json", key: keys[0]!, a: "answer-0" },
      });
      if (first.status !== 200) throw new Error(`setup: first solve ${first.status} ${first.body}`);
      const last = (await redis.xrevrange(`sigil:ev:{${app}}`, "+", "-", "COUNT", 1))[0]![0];
      apps.push(new AppTruth(app, token, last, keys, answers));
    }
    // An OAuth app registered on /developers, and users who signed up on the pages and consented.
    const dev = new PageClient(a!.url, "127.0.0.2");
    await dev.signUp("soak-dev", PASSWORD);
    const oauthApp = await registerApp(dev, [REDIRECT], "Soak App");
    const users: User[] = [];
    for (let i = 0; i < 12; i++) {
      const browser = new PageClient(pick(nodes).proc.url, "127.0.0.3");
      const r = await browser.signUp(`soak-user-${i}`, PASSWORD, `Soak User ${i}`);
      if (r.status !== 303) throw new Error(`setup: sign-up ${r.status} ${r.text.slice(0, 300)}`);
      users.push({ username: `soak-user-${i}`, browser });
    }
    log(
      `  setup: apps ${apps.map((t) => t.app).join(", ")} (CUSTOM TOKENs, 200 challenges each), ${users.length} users, OAuth app ${oauthApp.clientId}`,
    );

    // The load.
    const t0 = performance.now();
    const end = t0 + settings.minutes * 60_000;
    for (let i = 0; i < settings.resumers; i++) {
      const r = new Resumer(apps[i % apps.length]!);
      resumers.push(r);
      r.start(nodes[Math.floor(i / apps.length) % nodes.length]!.proc.url);
    }
    const pools = new Map(
      apps.map((t): [AppTruth, WrongPool] => [t, { queue: [], key: undefined, used: 0, refilling: false }]),
    );
    for (const [t, p] of pools) await refill(t, p);
    let solveN = 0;
    every("solves", settings.solveRate, 64, () => {
      const t = apps[solveN % apps.length]!;
      const right = Math.floor(solveN / apps.length) % 4 !== 3;
      solveN++;
      return solve(t, pools.get(t)!, right);
    });
    every("socket solves", settings.socketSolveRate, 16, () => pick(resumers).solve());
    every("socket creates", 0.2, 4, () => pick(resumers).create());
    every("sign-ins", settings.signinRate, 8, () => signin(users));
    every("trades", settings.tradeRate, 8, () => trade(users, oauthApp));
    let churnN = 0;
    every("fresh sockets", settings.churnRate, 32, () => churn(apps[churnN++ % apps.length]!));

    const harvest = async () => {
      for (const t of apps) await t.harvest(redis);
    };
    const verify = () => {
      let lost = 0;
      for (const tr of tracks) lost += tr.verify();
      return lost;
    };
    let lostWindow = 0;
    const checker = setInterval(() => {
      void harvest()
        .then(() => (lostWindow += verify()))
        .catch((e: unknown) => error("harness: history read failed", String(e)));
    }, 1000);

    const samples: Sample[] = [];
    let cpu = nodes.map((n) => cpuSeconds(n.proc.pid) ?? NaN);
    let last = performance.now();
    await Promise.all(nodes.map((n) => call(`${n.proc.url}/metrics`, {}))); // starts the windows
    while (performance.now() < end) {
      await sleep(Math.min(settings.sampleSeconds * 1000, end - performance.now()));
      const now = performance.now();
      const dt = (now - last) / 1000;
      last = now;
      const got = await Promise.all(nodes.map((n, i) => sampleNode(n, cpu[i]!, dt)));
      cpu = got.map((g) => g.cpu);
      const s: Sample = {
        t: (now - t0) / 1000,
        nodes: got.map((g) => g.s),
        ops: ops.sum(ops.take()),
        errors: errors.sum(errors.take()),
        lost: lostWindow,
        load: loadavg()[0]!,
      };
      lostWindow = 0;
      samples.push(s);
      log(`  ${row(s).join("  ")}`);
      if (nodes.some((n) => n.proc.proc.exitCode !== null || n.proc.proc.signalCode !== null)) {
        log("  a node exited: stopping");
        break;
      }
    }

    // Stop the load, let what is in flight finish, bring every resumer back and let the last events
    // reach them, then the last checks.
    stopping = true;
    await Promise.allSettled([...inflight]);
    const back = Date.now() + 30_000; // beyond socket.io-client's 20 s connect timeout
    while (resumers.some((r) => !r.socket?.connected) && Date.now() < back) await sleep(100);
    await sleep(2000);
    clearInterval(checker);
    await harvest();
    let lostTotal = 0;
    for (const tr of tracks) tr.verify();
    for (const r of resumers) {
      if (!r.socket?.connected) error("socket: resumer not connected at the end", r.state());
      r.track.tail();
    }
    for (const tr of tracks) lostTotal += tr.lost;
    for (const r of resumers) r.stop();

    // Report.
    const endLoad = loadavg();
    process.stdout.write(`\n${table(samples.map(row))}\n\n`);
    const warm = samples.filter((s) => s.t >= warmupMinutes * 60);
    const verdicts: string[] = [];
    const flatPct = num("SOAK_FLAT_PCT_PER_HOUR", 5);
    nodes.forEach((n, i) => {
      if (warm.length < 3) return;
      const ys = warm.map((s) => s.nodes[i]!.rssKiB);
      const xs = warm.map((s) => s.t / 60);
      const k = theilSen(xs, ys);
      const ls = slope(xs, ys);
      const mean = ys.reduce((x, y) => x + y, 0) / ys.length;
      const h = theilSen(
        xs,
        warm.map((s) => s.nodes[i]!.heapMiB * 1024),
      );
      const pct = ((k * 60) / mean) * 100;
      const lsPct = ((ls * 60) / mean) * 100;
      verdicts.push(
        `memory, node ${n.name}: ${Math.abs(pct) <= flatPct ? "flat" : pct > 0 ? "GROWING" : "shrinking"} — RSS slope after the ${warmupMinutes}-min warm-up ` +
          `(Theil–Sen) ${k >= 0 ? "+" : ""}${f(k)} KiB/min (${pct >= 0 ? "+" : ""}${f(pct, 2)}% of RSS per hour, "flat" within ±${flatPct}%; ` +
          `least squares ${lsPct >= 0 ? "+" : ""}${f(lsPct, 2)}%/h; RSS ${f(ys[0]! / 1024)} → ` +
          `${f(ys[ys.length - 1]! / 1024)} MiB over ${warm.length} samples); JS heap used ${h >= 0 ? "+" : ""}${f(h)} KiB/min`,
      );
    });
    const all = samples.flatMap((s) => s.nodes);
    const worst = (g: (n: NodeSample) => number) => Math.max(...all.map(g));
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? NaN;
    verdicts.push(
      `event-loop delay (both nodes, ${settings.sampleSeconds}-s windows): p50 median ${f(median(all.map((n) => n.eld.p50)), 2)} ms, ` +
        `p99 median ${f(median(all.map((n) => n.eld.p99)), 1)} ms, worst p99 ${f(
          worst((n) => n.eld.p99),
          1,
        )} ms, worst max ${f(
          worst((n) => n.eld.max),
          0,
        )} ms`,
    );
    verdicts.push(
      `CPU per node: median ${f(median(all.map((n) => n.cpuPct)), 0)}% of one core, highest window ${f(
        worst((n) => n.cpuPct),
        0,
      )}%`,
    );
    const received = tracks.reduce((x, t) => x + t.received, 0);
    const doubled = tracks.reduce((x, t) => x + t.doubled, 0);
    const outOfOrder = tracks.reduce((x, t) => x + t.outOfOrder, 0);
    const unknown = tracks.reduce((x, t) => x + t.unknown, 0);
    verdicts.push(
      `events: ${apps.map((t) => `${t.ids.length} in app ${t.app.slice(0, 8)}…`).join(", ")}; ${received} deliveries to ${tracks.length} clients (${connections} connections): ` +
        `${lostTotal} lost, ${doubled} doubled, ${outOfOrder} out of order, ${unknown} unknown`,
    );
    for (const t of apps) {
      if (t.ids.length !== t.acknowledged && !unsureSolves.has(t.app))
        error(
          "events: history differs from the acknowledged solves",
          `${t.app}: ${t.ids.length} events, ${t.acknowledged} acknowledged`,
        );
    }
    verdicts.push(
      `solves acknowledged = events in the history: ${apps.map((t) => `${t.acknowledged} = ${t.ids.length}${unsureSolves.has(t.app) ? " (some acks lost, not compared)" : ""}`).join("; ")}`,
    );
    const secs = samples.length ? samples[samples.length - 1]!.t : 1;
    verdicts.push(
      `operations (count, per second): ${[...ops.total].map(([k, v]) => `${k} ${v} (${f(v / secs, 2)}/s)`).join(", ")}`,
    );
    const unexpected = errors.sum();
    verdicts.push(
      unexpected === 0
        ? "errors: none"
        : `errors: ${unexpected} — ${[...errors.total].map(([k, v]) => `${k} ×${v}${examples.get(k)?.length ? ` (e.g. ${examples.get(k)![0]})` : ""}`).join("; ")}`,
    );
    if (logLines.total.size)
      verdicts.push(
        `node log lines below error level: ${[...logLines.total].map(([k, v]) => `${k} ×${v}`).join("; ")}`,
      );
    verdicts.push(
      `load average: ${startLoad.map((l) => l.toFixed(2)).join(" ")} at the start, ${endLoad.map((l) => l.toFixed(2)).join(" ")} at the end`,
    );
    const failed = lostTotal > 0 || doubled > 0 || outOfOrder > 0 || unknown > 0 || unexpected > 0;
    verdicts.push(
      failed
        ? "verdict: FAILED (events lost, doubled or out of order, or unexpected errors)"
        : "verdict: passed (no event lost, doubled or out of order; no unexpected error)",
    );
    process.stdout.write(verdicts.map((v) => `- ${v}`).join("\n") + "\n");
    if (process.env.SOAK_MARKDOWN) {
      const every = num("SOAK_MARKDOWN_EVERY", 12);
      const picked = samples.filter((_, i) => (i + 1) % every === 0 || i === samples.length - 1);
      const md = [HEADER, HEADER.map((_, i) => (i === 0 ? "---" : "---:")), ...picked.map(row)];
      process.stdout.write("\n" + md.map((r) => `| ${r.join(" | ")} |`).join("\n") + "\n");
    }
    return failed ? 1 : 0;
  } finally {
    stopping = true;
    for (const r of resumers) r.stop();
    agent.destroy();
    redis.disconnect();
    for (const p of procs.reverse()) {
      const code = await p.stop("SIGTERM");
      if (code !== 0) log(`  ${p.name} exited with ${code}\n${p.output().slice(-2000)}`);
    }
    await redisServer.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`soak failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
