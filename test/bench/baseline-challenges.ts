// The baseline for the challenge benchmarks: raw node:http + ioredis doing the least a solve with
// shared state can for the same request, and the same unavoidable work (keyed hash), with nothing
// else. It reads and writes Sigil's own keys with Sigil's secret, so both serve the same
// challenges. Run as its own process: `node --import tsx test/bench/baseline-challenges.ts`.
//   POST /challenge/new    uuid + HMAC + SET key value EX ttl NX                      (1 round trip)
//   POST /challenge/solve  HMAC; one Lua script: read the record, check both limits (and, when
//                          one is reached, its wait for Retry-After), compare, and count a wrong
//                          answer; right answers never count                         (1 round trip)
// Its limits are Sigil's defaults unless SOLVE_LIMIT_* say otherwise, and a limited attempt gets
// the same 429 (rate_limited, Retry-After), so both sides meet the limits alike under load.
import { createHmac, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import { floorRedis, serveUntilTerm } from "./lib/floor-redis.js";

// KEYS: challenge, wrong per key, wrong per (key, address). ARGV: answer hash, perAddress,
// perAddressWindowMs, perKey, perKeyWindowMs. -1 unknown, 1 right, 0 wrong, else limited: minus
// the wait in ms, minus 2 at least (a counter always has its TTL; set when INCR made it).
const SOLVE = `
local raw = redis.call('GET', KEYS[1])
if not raw then return -1 end
if tonumber(redis.call('GET', KEYS[3]) or '0') >= tonumber(ARGV[2]) then return -math.max(2, redis.call('PTTL', KEYS[3])) end
if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[4]) then return -math.max(2, redis.call('PTTL', KEYS[2])) end
if cjson.decode(raw).h == ARGV[1] then return 1 end
if redis.call('INCR', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[3]) end
if redis.call('INCR', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
return 0`;

const env = process.env;
const prefix = env.KEY_PREFIX ?? "sigil";
const secret = env.SECRET ?? "";
const limits = [
  Number(env.SOLVE_LIMIT_PER_ADDRESS ?? 10),
  Number(env.SOLVE_LIMIT_PER_ADDRESS_WINDOW ?? 600) * 1000,
  Number(env.SOLVE_LIMIT_PER_KEY ?? 100),
  Number(env.SOLVE_LIMIT_PER_KEY_WINDOW ?? 3600) * 1000,
];

const redis = floorRedis();
redis.defineCommand("solve", { numberOfKeys: 3, lua: SOLVE });
const r = redis as Redis & { solve(...args: Array<string | number>): Promise<number> };

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
    // Sigil's key names (src/store/redis/keys.ts), so that the Redis work is the same.
    const counters = [`${prefix}:sv:{${key}}:${key}:n`, `${prefix}:sv:{${key}}:${key}:a:${req.socket.remoteAddress}`];
    const v = await r.solve(`${prefix}:ch:{${key}}`, ...counters, hash(key, a), ...limits);
    if (v === -1) return send(res, 404, { error: "not_found" });
    if (v < -1) {
      // Sigil's 429 (src/errors.ts rateLimited): the same body and Retry-After in whole seconds.
      const body = {
        error: "rate_limited",
        error_description: "Too many wrong answers for this challenge; try again later.",
      };
      return send(res, 429, body, { "retry-after": String(Math.max(1, Math.ceil(-v / 1000))) });
    }
    return send(res, 200, { correct: v === 1 });
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
serveUntilTerm(server, redis);
