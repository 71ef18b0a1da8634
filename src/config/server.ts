// The settings of the server itself: its addresses and store, secrets and proxies, shutdown and
// serving. Each is written once here; docs/settings.md's tables are generated from these
// (`npm run docs:settings`), config.ts reads them.
import { z } from "zod";
import { area, httpUrl, oneOf, onOff, setting, wholeNumber } from "./setting.js";

const redisUrl = z.string().refine((s) => {
  if (s.startsWith("redis+cluster://")) {
    return s
      .slice("redis+cluster://".length)
      .split(",")
      .every((hp) => /^[^\s:/,]+:\d{1,5}$/.test(hp));
  }
  try {
    const u = new URL(s);
    return u.protocol === "redis:" || u.protocol === "rediss:";
  } catch {
    return false;
  }
}, "must be redis://, rediss:// or redis+cluster://host:port,host:port");

/** false, true, a hop count, or addresses / subnets / "loopback", as proxy-addr reads them (http/client-address.ts). */
function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === "false") return false;
  if (raw === "true") return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/** undefined: any origin. */
const origins = z
  .string()
  .optional()
  .transform((raw, ctx): readonly string[] | undefined => {
    if (raw === undefined || raw.trim() === "" || raw.trim() === "*") return undefined;
    const list = raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    for (const o of list) {
      let ok: boolean;
      try {
        const u = new URL(o);
        ok = (u.protocol === "http:" || u.protocol === "https:") && u.origin === o;
      } catch {
        ok = false;
      }
      if (!ok) {
        ctx.addIssue({ code: "custom", message: `"${o}" is not an origin like https://app.example` });
        return z.NEVER;
      }
    }
    return list;
  });

export const addresses = area("addresses", "accepted values", {
  PORT: wholeNumber("port", 0, 65535, 3000, {
    meaning: "listening port",
    valuesNote: "(`0`: any free port; the address is logged in the `sigil is listening on …` line)",
  }),
  HOST: setting("host", z.string().min(1).optional(), {
    meaning: "listening address",
    default: "all interfaces (logged as `[::]` or `0.0.0.0`)",
    values: "any non-empty host or address node can listen on",
  }),
  BASE_URL: setting("baseUrl", httpUrl.optional(), {
    meaning: "public address of the API (`{base_url}`): issuer, token endpoint, picture URLs, OpenAPI server",
    default: "`http://localhost:$PORT`",
    values: "absolute `http(s)` URL without query or fragment; trailing `/` removed",
  }),
  AUTH_URL: setting("authUrl", httpUrl.optional(), {
    meaning: "public address of the user-facing pages (`{auth_url}`): `/authorize`, `/signin`, …",
    default: "`BASE_URL`",
    values: "as `BASE_URL`",
  }),
  REDIS_URL: setting("redisUrl", redisUrl.optional(), {
    meaning: "the store",
    default: "none: the embedded store in `DATA_DIR`",
    values: "`redis://…`, `rediss://…`, or `redis+cluster://host:port,host:port,…`",
  }),
  DATA_DIR: setting("dataDir", z.string().min(1).default("./data"), {
    meaning:
      "without `REDIS_URL`: the folder of the embedded store (LMDB; one server process owns it, the CLI opens it beside)",
    default: "`./data`",
    values: "a folder path (made when missing), or `:memory:` for an in-process store that forgets everything at exit",
  }),
  REDIS_ADAPTER: setting("redisAdapter", z.enum(["classic", "sharded"]).optional(), {
    meaning: "Socket.IO adapter linking the nodes",
    default: "`sharded` for a `redis+cluster://` URL, else `classic`",
    values: "`classic` (PUBLISH/SUBSCRIBE) or `sharded` (Redis 7 SPUBLISH/SSUBSCRIBE)",
  }),
  KEY_PREFIX: setting(
    "keyPrefix",
    z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,32}$/, "must be 1-32 of A-Z a-z 0-9 _ . : -")
      .default("sigil"),
    { meaning: "prefix of every Redis key and channel", values: "1–32 of `A-Z a-z 0-9 _ . : -`" },
  ),
  REDIS_WAIT_REPLICAS: wholeNumber("redisWait.replicas", 0, 16, 0, {
    meaning:
      "how many Redis replicas must have an acknowledged write before the node answers (Redis `WAIT`); see below",
    defaultNote: "(answer as soon as the master has it)",
    valuesNote:
      "; above `0` needs `REDIS_URL` (the embedded store has no replicas: the process stops at start naming this setting)",
  }),
  REDIS_WAIT_TIMEOUT_MS: wholeNumber("redisWait.timeoutMs", 10, 10000, 500, {
    meaning: "how long such a write waits for the replicas before the node gives up on it",
  }),
  REDIS_ALLOW_EVICTION: setting(
    "redisAllowEviction",
    z
      .enum(["true", "false"], "must be true or false")
      .default("false")
      .transform((v) => v === "true"),
    {
      meaning:
        "start on a Redis whose `maxmemory-policy` may evict keys (anything but `noeviction`), with a warning instead of refusing: only for a Redis whose data may be lost (tests, demos); see [operations.md](operations.md#redis-as-a-system-of-record)",
      values: "`true`, `false` (refuse to start, naming the setting)",
    },
  ),
});

export const secrets = area("secrets", "accepted values", {
  NODE_ENV: oneOf("env", ["production", "development", "test"], "development", {
    meaning: "run mode; only decides whether `SECRET` is required",
  }),
  SECRET: setting(
    "secret",
    z
      .string()
      .refine((s) => Buffer.byteLength(s) >= 32, "must be at least 32 bytes")
      .optional(),
    {
      meaning:
        "keys the hashes of answers, client secrets, codes and access tokens; signs CUSTOM TOKENs and session cookies; seals the private parts of the ID token signing keys in the store",
      default:
        "required with `NODE_ENV=production`; otherwise, on the embedded store in a `DATA_DIR`, the one kept in `DATA_DIR/secret` (made at first start, mode `0600`; the CLI reads it too), else a random one per process; with a warning either way",
      values: "at least 32 bytes (UTF-8)",
    },
  ),
  TRUST_PROXY: setting("trustProxy", z.string().optional().transform(trustProxy), {
    meaning:
      "which proxies' `X-Forwarded-For` to believe for the client address (rate limits, HTTP and sockets alike; read with `proxy-addr`, as express's `trust proxy` reads it)",
    values:
      "`true`, `false`, a hop count (`1`), or comma-separated addresses / subnets / names (`loopback`, `linklocal`, `uniquelocal`, `10.0.0.0/8, 127.0.0.1`)",
  }),
  CORS_ORIGINS: setting("corsOrigins", origins, {
    meaning: "origins allowed to call the CORS endpoints and the Socket.IO channel from browsers",
    default: "any origin",
    values: "comma-separated origins such as `https://app.example,http://127.0.0.1:8080`; `*` or empty means any",
  }),
  LOG_LEVEL: oneOf("logLevel", ["fatal", "error", "warn", "info", "debug", "trace", "silent"], "info", {
    meaning: "lowest level logged (JSON lines on stdout)",
  }),
});

export const shutdown = area("shutdown", "range", {
  SHUTDOWN_TIMEOUT: wholeNumber("shutdownTimeout", 1, 60, 10, {
    meaning:
      "seconds a `SIGTERM` (or `SIGINT`) drain may take before open connections are cut and the process exits with code 1; the process is gone by then, whatever its stdout does (the last quarter second is for the last log lines)",
  }),
  KEEP_ALIVE_TIMEOUT: wholeNumber("keepAliveTimeout", 1, 600, 72, {
    meaning:
      "seconds an idle keep-alive HTTP connection stays open (node closes it about a second later). Keep it above the idle timeout of the load balancer in front (60 s on the usual ones), or the balancer may send a request on a connection the node is closing and answer it `502`; node's own default is 5 s",
  }),
});

export const serving = area("serving", "accepted values", {
  SIGNING_KEY_AT_START: onOff("signingKeyAtStart", "on", {
    meaning:
      "whether a node makes the first ID token signing key at start when the store has none (the first node to start makes it, nodes starting with it wait for it; a node that cannot reach the store makes it when first needed)",
    valuesNote: "(`off`: the first ID token or `/jwks` request makes it)",
  }),
  HOT_ROUTES: onOff("hotRoutes", "on", {
    meaning:
      "whether the busiest JSON requests (`POST /challenge/solve`, `POST /challenge/new`, `GET /auth/user`, `GET /userinfo`, exactly that path, no query string, no body; `POST /token` with its form body) are served on the fast path, without express's router",
  }),
});
