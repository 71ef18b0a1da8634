// The floor for the client-credentials benchmark: raw node:http + ioredis doing the least a token
// saved in a shared store can for the same request, with the same unavoidable work. It reads
// Sigil's own app record (same keys, same secret), so both serve the same client:
//   POST /token  read the form body (URLSearchParams), decode HTTP Basic, two HMACs (the secret's,
//                the token's), 32 random bytes; one Lua script that reads the app, compares the
//                secret's hash and the scope with it, and saves the token with its TTL
//                (1 round trip). No throttle, no log line, no metrics, no CORS: what Sigil does
//                beyond this is the price of those.
// Run as its own process: `node --import tsx test/bench/baseline-client-credentials.ts` with PORT,
// REDIS_URL, SECRET (Sigil's), KEY_PREFIX.
import { createHmac, randomFillSync } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import { floorRedis, serveUntilTerm } from "./lib/floor-redis.js";

// KEYS: the app, the token. ARGV: the secret's hash, the scope asked (a space-separated list, ""
// for all), the token's JSON without its scope (ends with `,"scope":`), TTL in seconds.
// Returns the granted scope (JSON array) or an error string.
const ISSUE = `
local raw = redis.call('GET', KEYS[1])
if not raw then return {err = 'invalid_client'} end
local app = cjson.decode(raw)
if app.secretHash ~= ARGV[1] or app.public == true or app.disabled == true then return {err = 'invalid_client'} end
local allowed = app.m2mScopes
if type(allowed) ~= 'table' or #allowed == 0 then return {err = 'unauthorized_client'} end
local scope = {}
if ARGV[2] == '' then scope = allowed else
  for s in string.gmatch(ARGV[2], '%S+') do
    local ok = false
    for _, a in ipairs(allowed) do if a == s then ok = true end end
    if not ok then return {err = 'invalid_scope'} end
    scope[#scope + 1] = s
  end
end
local granted = cjson.encode(scope)
redis.call('SET', KEYS[2], ARGV[3] .. granted .. '}', 'EX', ARGV[4])
return granted`;

const env = process.env;
const prefix = env.KEY_PREFIX ?? "sigil";
const secret = env.SECRET ?? "";
const ttl = Number(env.ACCESS_TOKEN_TTL ?? 3600);

const redis = floorRedis();
redis.defineCommand("issue", { numberOfKeys: 2, lua: ISSUE });
const r = redis as Redis & { issue(...args: string[]): Promise<string> };

// Sigil's keyed hash (src/domain/secrets.ts keyedHash).
const hash = (...parts: string[]) => createHmac("sha256", secret).update(parts.join("\0")).digest("hex");

// Random bytes drawn from a pool, as Sigil's randomToken does.
const pool = Buffer.alloc(4096);
let drawn = pool.length;
function randomToken(): string {
  if (drawn + 32 > pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  drawn += 32;
  return pool.toString("base64url", drawn - 32, drawn);
}

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

function send(res: ServerResponse, status: number, body: unknown) {
  const s = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(s),
    ...NO_STORE,
  });
  res.end(s);
}

async function token(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
  const form = new URLSearchParams(body);
  if (form.get("grant_type") !== "client_credentials") return send(res, 400, { error: "unsupported_grant_type" });
  const m = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(req.headers.authorization ?? "");
  const decoded = m ? Buffer.from(m[1]!, "base64").toString("utf8") : "";
  const i = decoded.indexOf(":");
  if (i < 0) return send(res, 401, { error: "invalid_client" });
  const clientId = decodeURIComponent(decoded.slice(0, i));
  const clientSecret = decodeURIComponent(decoded.slice(i + 1));
  const access = `${clientId}.${randomToken()}`;
  const issuedAt = Math.floor(Date.now() / 1000);
  // Sigil's TokenRecord fields for a client-credentials token, the scope last.
  const record =
    `{"userId":${JSON.stringify(clientId)},"clientId":${JSON.stringify(clientId)},"codeHash":"m2m",` +
    `"m2m":true,"issuedAt":${issuedAt},"expiresAt":${issuedAt + ttl},"scope":`;
  let granted: string;
  try {
    granted = await r.issue(
      `${prefix}:app:{${clientId}}`,
      `${prefix}:token:{${clientId}}:${hash("token", access)}`,
      hash("client-secret", clientId, clientSecret),
      form.get("scope") ?? "",
      record,
      String(ttl),
    );
  } catch (e) {
    const error = e instanceof Error ? e.message : "";
    if (/^(invalid_client|unauthorized_client|invalid_scope)$/.test(error))
      return send(res, error === "invalid_client" ? 401 : 400, { error });
    return send(res, 503, { error: "unavailable" });
  }
  send(res, 200, {
    access_token: access,
    token_type: "Bearer",
    expires_in: ttl,
    scope: (JSON.parse(granted) as string[]).join(" "),
  });
}

const server = createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/token") {
    req.resume();
    return send(
      res,
      req.url === "/healthz" ? 200 : 404,
      req.url === "/healthz" ? { status: "ok" } : { error: "not_found" },
    );
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    token(req, res, Buffer.concat(chunks).toString("utf8")).catch(() => send(res, 503, { error: "unavailable" }));
  });
});
serveUntilTerm(server, redis);
