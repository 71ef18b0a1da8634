// The baseline for the challenge benchmarks: raw node:http + ioredis doing the same Redis round
// trips as Sigil for the same request, and the same unavoidable work (keyed hash, constant-time
// compare), with nothing else. It reads and writes Sigil's own keys with Sigil's secret, so both
// serve the same challenges. Run as its own process: `node --import tsx test/bench/baseline-challenges.ts`.
//   POST /challenge/new    uuid + HMAC + SET key value EX ttl NX                      (1 round trip)
//   POST /challenge/solve  GET; then the limiter's Lua script twice in parallel (per address+key,
//                          per key); HMAC + timingSafeEqual; when right, the script twice more
//                          with -1 (the refund)                                  (2 or 3 round trips)
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Redis } from "ioredis";

// rate-limiter-flexible's own script (RateLimiterRedis), so the Redis work is identical.
const INCR_TTL = `redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX') \
local consumed = redis.call('incrby', KEYS[1], ARGV[1]) \
local ttl = redis.call('pttl', KEYS[1]) \
if ttl == -1 then \
  redis.call('expire', KEYS[1], ARGV[2]) \
  ttl = 1000 * ARGV[2] \
end \
return {consumed, ttl} \
`;

const env = process.env;
const prefix = env.KEY_PREFIX ?? "sigil";
const secret = env.SECRET ?? "";
const perAddress = Number(env.SOLVE_LIMIT_PER_ADDRESS ?? 10);
const perAddressWindow = String(env.SOLVE_LIMIT_PER_ADDRESS_WINDOW ?? 600);
const perKey = Number(env.SOLVE_LIMIT_PER_KEY ?? 100);
const perKeyWindow = String(env.SOLVE_LIMIT_PER_KEY_WINDOW ?? 3600);

// The same client options as Sigil's request-path client (src/store/redis-client.ts).
const redis = new Redis(env.REDIS_URL ?? "redis://127.0.0.1:6379", {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 1000,
  connectTimeout: 2000,
  enableAutoPipelining: true,
});
redis.on("error", () => {});
redis.defineCommand("rlIncr", { numberOfKeys: 1, lua: INCR_TTL });
type WithIncr = Redis & { rlIncr(key: string, points: string, window: string): Promise<[number, number]> };
const r = redis as WithIncr;

const hash = (key: string, answer: string) =>
  createHmac("sha256", secret).update(["challenge-answer", key, answer.normalize("NFC")].join("\0")).digest("hex");

function send(res: ServerResponse, status: number, body: unknown) {
  const s = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(s) });
  res.end(s);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? "/";
  if (url === "/healthz") return send(res, 200, { status: "ok" });
  if (req.method === "POST" && url === "/challenge/new") {
    const question = req.headers.question;
    const answer = req.headers.answer;
    if (typeof question !== "string" || typeof answer !== "string") return send(res, 400, { error: "invalid_request" });
    const ttl = Number(req.headers.ttl ?? 86400);
    const key = randomUUID();
    const doc = JSON.stringify({ q: question, h: hash(key, answer), c: Date.now() });
    await redis.set(`${prefix}:ch:{${key}}`, doc, "EX", ttl, "NX");
    return send(res, 201, { key });
  }
  if (req.method === "POST" && url === "/challenge/solve") {
    const key = req.headers.key;
    const a = req.headers.a;
    if (typeof key !== "string" || typeof a !== "string") return send(res, 400, { error: "invalid_request" });
    const raw = await redis.get(`${prefix}:ch:{${key}}`);
    if (raw === null) return send(res, 404, { error: "not_found" });
    const rec = JSON.parse(raw) as { h: string };
    const addrKey = `${prefix}:rl:solve-addr:${key}:${req.socket.remoteAddress}`;
    const keyKey = `${prefix}:rl:solve-key:${key}`;
    const [x, y] = await Promise.all([r.rlIncr(addrKey, "1", perAddressWindow), r.rlIncr(keyKey, "1", perKeyWindow)]);
    if (Number(x[0]) > perAddress || Number(y[0]) > perKey) return send(res, 429, { error: "rate_limited" });
    const correct = timingSafeEqual(Buffer.from(hash(key, a), "hex"), Buffer.from(rec.h, "hex"));
    if (correct) await Promise.all([r.rlIncr(addrKey, "-1", perAddressWindow), r.rlIncr(keyKey, "-1", perKeyWindow)]);
    return send(res, 200, { correct });
  }
  send(res, 404, { error: "not_found" });
}

const server = createServer((req, res) => {
  // Drain whatever body there is, as Sigil's JSON parser does.
  req.resume();
  req.on("end", () => {
    handle(req, res).catch(() => send(res, 503, { error: "unavailable" }));
  });
});
server.listen(Number(env.PORT ?? 3001), "127.0.0.1");
process.on("SIGTERM", () => {
  server.close(() => {
    redis.disconnect();
    process.exit(0);
  });
  server.closeAllConnections();
});
