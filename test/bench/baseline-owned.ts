// The floor for solves of an app's challenges (owned.ts): raw node:http + ioredis + a bare
// Socket.IO server, doing the writes a solve of an owned challenge cannot do without, in one Lua
// script, and pushing the result to every socket of every floor process. Two of these play two
// nodes. Run as `node --import tsx test/bench/baseline-owned.ts` with PORT, REDIS_URL, SECRET.
//   POST /challenge/new    Bearer CUSTOM TOKEN verified (HS256, Sigil's key) + uuid + HMAC +
//                          SET key value EX ttl NX                                     (1 round trip)
//   POST /challenge/solve  HMAC; the first time a process meets a key, GET its record (its app);
//                          then one script over the app's keys: the answer (copied beside the app
//                          on first use, as Sigil does), both limits, compare, INCR a wrong answer,
//                          XADD to the app's capped stream, PUBLISH                    (1 round trip)
//   every process          SUBSCRIBE → io.emit("challenge:result") to its sockets
// Limits are Sigil's defaults, with the same 429, so both sides meet them alike.
import { createHmac, createSecretKey, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Redis } from "ioredis";
import jwt from "jsonwebtoken";
import { Server } from "socket.io";
import { keyedHash } from "../../src/domain/secrets.js";

// KEYS: answer copy, wrong per key, wrong per (key, address), stream. ARGV: answer hash,
// perAddress, perAddressWindowMs, perKey, perKeyWindowMs, hash to copy ('' when known), its PTTL,
// key, at, channel. {-1} unknown, {-2 - wait} limited, {1|0, id} right or wrong with the event id.
const SOLVE = `
local h = redis.call('GET', KEYS[1])
if not h then
  if ARGV[6] == '' then return {-1} end
  h = ARGV[6]
  redis.call('SET', KEYS[1], h, 'PX', ARGV[7])
end
for i, c in ipairs({{KEYS[3], 2}, {KEYS[2], 4}}) do
  if tonumber(redis.call('GET', c[1]) or '0') >= tonumber(ARGV[c[2]]) then
    return {-2 - math.max(2, redis.call('PTTL', c[1]))}
  end
end
local correct = 1
if h ~= ARGV[1] then
  correct = 0
  if redis.call('INCR', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[3]) end
  if redis.call('INCR', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
end
local id = redis.call('XADD', KEYS[4], 'MAXLEN', '~', 1000, '*', 'k', ARGV[8], 'c', correct, 't', ARGV[9])
redis.call('PUBLISH', ARGV[10], cjson.encode({id=id, key=ARGV[8], correct=(correct == 1), at=ARGV[9]}))
return {correct, id}`;

const env = process.env;
const prefix = env.KEY_PREFIX ?? "sigil";
const secret = env.SECRET ?? "";
const CHANNEL = "bench-floor:owned";
const limits = [10, 600_000, 100, 3_600_000];
const tokenKey = createSecretKey(Buffer.from(keyedHash(secret, "custom-token-signing"), "utf8"));

const redis = new Redis(env.REDIS_URL ?? "redis://127.0.0.1:6379", {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 1000,
  enableAutoPipelining: true,
});
const sub = redis.duplicate({ enableOfflineQueue: true });
redis.on("error", () => {});
sub.on("error", () => {});
redis.defineCommand("solveOwned", { numberOfKeys: 4, lua: SOLVE });
const r = redis as Redis & { solveOwned(...args: Array<string | number>): Promise<[number, string?]> };

/** key → app, learnt on the first solve of a key (an owner never changes), as Sigil does. */
const owners = new Map<string, string>();

const hash = (key: string, answer: string) =>
  createHmac("sha256", secret)
    .update(["challenge-answer", key, answer.normalize("NFC")].join("\0"))
    .digest("hex");

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const s = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(s),
    ...headers,
  });
  res.end(s);
}

async function solve(key: string, a: string, address: string): Promise<[number, string?]> {
  const k = (app: string) => [
    `${prefix}:sv:{${app}}:${key}:h`,
    `${prefix}:sv:{${app}}:${key}:n`,
    `${prefix}:sv:{${app}}:${key}:a:${address}`,
    `bench-floor:ev:{${app}}`,
  ];
  const given = hash(key, a);
  const at = new Date().toISOString();
  const app = owners.get(key);
  if (app !== undefined) {
    const v = await r.solveOwned(...k(app), given, ...limits, "", 0, key, at, CHANNEL);
    if (v[0] !== -1) return v;
  }
  const raw = await redis.get(`${prefix}:ch:{${key}}`);
  if (raw === null) return [-1];
  const rec = JSON.parse(raw) as { h: string; o?: string };
  if (rec.o === undefined) return [-1]; // this floor serves owned challenges only
  owners.set(key, rec.o);
  const pttl = await redis.pttl(`${prefix}:ch:{${key}}`);
  return r.solveOwned(...k(rec.o), given, ...limits, rec.h, Math.max(1, pttl), key, at, CHANNEL);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? "/";
  if (url === "/healthz") return send(res, 200, { status: "ok" });
  if (req.method === "POST" && url === "/challenge/new") {
    const { question, answer, authorization } = req.headers;
    if (typeof question !== "string" || typeof answer !== "string") return send(res, 400, { error: "invalid_request" });
    let app: string;
    try {
      const claims = jwt.verify((authorization ?? "").replace(/^Bearer /, ""), tokenKey, {
        algorithms: ["HS256"],
        audience: "sigil:custom-token",
      }) as { sub: string };
      app = claims.sub;
    } catch {
      return send(res, 401, { error: "invalid_token" });
    }
    const key = randomUUID();
    const doc = JSON.stringify({ q: question, h: hash(key, answer), c: Date.now(), o: app });
    await redis.set(`${prefix}:ch:{${key}}`, doc, "EX", Number(req.headers.ttl ?? 86400), "NX");
    return send(res, 201, { key });
  }
  if (req.method === "POST" && url === "/challenge/solve") {
    const { key, a } = req.headers;
    if (typeof key !== "string" || typeof a !== "string") return send(res, 400, { error: "invalid_request" });
    const [v] = await solve(key, a, req.socket.remoteAddress ?? "");
    if (v === -1) return send(res, 404, { error: "not_found" });
    if (v < -1) {
      const body = {
        error: "rate_limited",
        error_description: "Too many wrong answers for this challenge; try again later.",
      };
      return send(res, 429, body, { "retry-after": String(Math.max(1, Math.ceil((-v - 2) / 1000))) });
    }
    return send(res, 200, { correct: v === 1 });
  }
  send(res, 404, { error: "not_found" });
}

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    handle(req, res).catch(() => send(res, 503, { error: "unavailable" }));
  });
});
server.keepAliveTimeout = 65_000;
const io = new Server(server, { path: "/socket.io/", serveClient: false });
sub.on("message", (_channel: string, message: string) => io.emit("challenge:result", JSON.parse(message)));
sub.subscribe(CHANNEL).then(() => server.listen(Number(env.PORT ?? 3001), "127.0.0.1"));

const stop = () => {
  io.close();
  redis.disconnect();
  sub.disconnect();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
