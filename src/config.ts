// One schema with documented defaults. loadConfig(env) is the only reader of the environment;
// everything else receives the frozen Config it returns.
import { randomBytes } from "node:crypto";
import { z } from "zod";

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
    this.name = "ConfigError";
  }
}

const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const httpUrl = z
  .string()
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "http:" || u.protocol === "https:") && !u.search && !u.hash;
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL without query or fragment")
  .transform((s) => s.replace(/\/+$/, ""));

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

// Each entry: env name → schema of the raw string (undefined when unset) and its default.
const schema = z.object({
  NODE_ENV: z.enum(["production", "development", "test"]).default("development"),
  PORT: intIn(0, 65535).default(3000),
  HOST: z.string().min(1).optional(),
  BASE_URL: httpUrl.optional(),
  AUTH_URL: httpUrl.optional(),
  REDIS_URL: redisUrl.optional(),
  REDIS_ADAPTER: z.enum(["classic", "sharded"]).optional(),
  REDIS_WAIT_REPLICAS: intIn(0, 16).default(0),
  REDIS_WAIT_TIMEOUT_MS: intIn(10, 10000).default(500),
  KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,32}$/, "must be 1-32 of A-Z a-z 0-9 _ . : -")
    .default("sigil"),
  SECRET: z.string().optional(),
  TRUST_PROXY: z.string().optional(),
  CORS_ORIGINS: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  CODE_TTL: intIn(1, 600).default(60),
  ACCESS_TOKEN_TTL: intIn(60, 86400).default(3600),
  PASSWORD_HASH_COST: intIn(10, 20).default(14),
  REFRESH_TOKEN_TTL: intIn(1, 31536000).default(2592000),
  SECRET_GRACE_PERIOD: intIn(0, 2592000).default(86400),
  KEY_ACTIVATION_DELAY: intIn(0, 604800).default(3600),
  KEY_CACHE_TTL: intIn(0, 300).default(30),
  ID_TOKEN_SIGNING_ALG: z.enum(["RS256", "ES256", "EdDSA"], "must be RS256, ES256 or EdDSA").default("RS256"),
  HISTORY_MAX_EVENTS: intIn(1000, 1000000).default(1000),
  HISTORY_TTL: intIn(86400, 2592000).default(86400),
  SOLVE_LIMIT_PER_ADDRESS: intIn(1, 1000000).default(10),
  SOLVE_LIMIT_PER_ADDRESS_WINDOW: intIn(1, 86400).default(600),
  SOLVE_LIMIT_PER_KEY: intIn(1, 1000000).default(100),
  SOLVE_LIMIT_PER_KEY_WINDOW: intIn(1, 86400).default(3600),
  SHUTDOWN_TIMEOUT: intIn(1, 60).default(10),
  KEEP_ALIVE_TIMEOUT: intIn(1, 600).default(72),
  CHANNEL_MAX_QUEUE: intIn(10, 100000).default(1000),
  CHANNEL_RATE_LIMIT: intIn(1, 10000).default(20),
  HOT_ROUTES: z.enum(["on", "off"], "must be on or off").default("on"),
  SIGNING_KEY_AT_START: z.enum(["on", "off"], "must be on or off").default("on"),
  SERVICE_NAME: z
    .string()
    .transform((s) => s.trim())
    .refine((s) => s.length >= 1 && [...s].length <= 40 && !/[\x00-\x1f\x7f]/.test(s), "must be 1-40 characters")
    .default("Sigil"),
  SMTP_URL: z
    .string()
    .refine((s) => {
      try {
        const u = new URL(s);
        return (u.protocol === "smtp:" || u.protocol === "smtps:") && u.hostname !== "";
      } catch {
        return false;
      }
    }, "must be smtp://[user:password@]host[:port] or smtps://…")
    .optional(),
  MAIL_FROM: z
    .string()
    .refine(
      (s) => s.length <= 320 && !/[\r\n]/.test(s) && /@[^\s@>]+\.[^\s@>]+>?$/.test(s.trim()),
      "must be an address, or Name <address>",
    )
    .optional(),
  EMAIL_CONFIRM_TTL: intIn(1, 604800).default(86400),
  PASSWORD_RESET_TTL: intIn(1, 86400).default(1800),
  REAUTH_MAX_AGE: intIn(1, 86400).default(300),
  SERVICE_LOGO_URL: z
    .string()
    .refine((s) => {
      try {
        const u = new URL(s);
        return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password && s.length <= 2000;
      } catch {
        return false;
      }
    }, "must be an absolute http(s) URL")
    .optional(),
});

export interface Config {
  readonly env: "production" | "development" | "test";
  readonly port: number;
  readonly host: string | undefined;
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly redisUrl: string | undefined;
  readonly redisAdapter: "classic" | "sharded";
  /**
   * REDIS_WAIT_REPLICAS / REDIS_WAIT_TIMEOUT_MS: an acknowledged write (store/redis/replica-wait.ts)
   * answers only once this many replicas have it (Redis WAIT); undefined: it answers as soon as the
   * master has it.
   */
  readonly redisWait: { readonly replicas: number; readonly timeoutMs: number } | undefined;
  readonly keyPrefix: string;
  readonly secret: string;
  /** Which proxies to believe for the client address (http/client-address.ts): false, true, a hop count, or a list of addresses/subnets. */
  readonly trustProxy: boolean | number | string;
  /** undefined: any origin may call the CORS endpoints. */
  readonly corsOrigins: readonly string[] | undefined;
  readonly logLevel: string;
  readonly codeTtl: number;
  readonly accessTokenTtl: number;
  /** log2 of scrypt's N for new password hashes (PASSWORD_HASH_COST). */
  readonly passwordHashCost: number;
  /** Seconds a grant's refresh tokens work, counted from the sign-in (rotation does not extend it). */
  readonly refreshTokenTtl: number;
  readonly secretGracePeriod: number;
  /** Seconds between `sigil keys rotate` publishing a signing key and nodes signing with it. */
  readonly keyActivationDelay: number;
  /** Seconds a node keeps the signing keys it read from the store before reading them again. */
  readonly keyCacheTtl: number;
  /** The algorithm of the signing keys this node makes (the first one, `sigil keys rotate`). */
  readonly idTokenSigningAlg: "RS256" | "ES256" | "EdDSA";
  readonly historyMaxEvents: number;
  readonly historyTtl: number;
  readonly solveLimits: {
    readonly perAddress: number;
    readonly perAddressWindow: number;
    readonly perKey: number;
    readonly perKeyWindow: number;
  };
  readonly shutdownTimeout: number;
  /**
   * KEEP_ALIVE_TIMEOUT: seconds an idle keep-alive connection stays open. Longer than the idle
   * timeout of the usual load balancers (60 s), so that a balancer never sends a request on a
   * connection the node is closing at that moment (which the balancer answers with a 502).
   */
  readonly keepAliveTimeout: number;
  /** Packets a socket may have waiting to be sent before it counts as a slow reader and is dropped. */
  readonly channelMaxQueue: number;
  /** Client → server events per second per socket (token bucket, burst of the same size). */
  readonly channelRateLimit: number;
  /**
   * Whether the JSON routes declared for it (http/route.ts) are served on the fast path as well as
   * through express (off: everything goes through express; the answers are the same either way).
   */
  readonly hotRoutes: boolean;
  /**
   * Whether a node makes the ID token signing key at start when the store has none (the first node
   * to start makes it); off: the first ID token or /jwks request makes it.
   */
  readonly signingKeyAtStart: boolean;
  /** The name the pages show in their header and titles. */
  readonly serviceName: string;
  /** An image shown beside the name in the pages' header (the pages' CSP allows its origin). */
  readonly serviceLogoUrl: string | undefined;
  /** Outgoing mail (smtp:// or smtps://, credentials in the URL); undefined: the email features are off. */
  readonly smtpUrl: string | undefined;
  /** The From of every mail: MAIL_FROM, else "<SERVICE_NAME> <no-reply@host of BASE_URL>". */
  readonly mailFrom: string;
  /** Seconds an email confirmation link works. */
  readonly emailConfirmTtl: number;
  /** Seconds a "Confirm it's you" proof lasts for the sensitive account actions (docs/http-api.md#confirming-its-you). */
  readonly reauthMaxAge: number;
  /** Seconds a password reset link works. */
  readonly passwordResetTtl: number;
}

export interface LoadedConfig {
  config: Config;
  /** Things an operator should hear about at start (generated secret, embedded store). */
  warnings: string[];
}

function parseTrustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw; // addresses / subnets / "loopback", as proxy-addr reads them (http/client-address.ts)
}

function parseOrigins(raw: string | undefined): string[] | undefined {
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
    if (!ok) throw new ConfigError("CORS_ORIGINS", `"${o}" is not an origin like https://app.example`);
  }
  return list;
}

export function loadConfig(env: Record<string, string | undefined>): LoadedConfig {
  const raw: Record<string, string | undefined> = {};
  for (const k of Object.keys(schema.shape)) {
    const v = env[k];
    raw[k] = v === "" ? undefined : v;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!; // a failed parse has at least one issue
    throw new ConfigError(String(issue.path[0] ?? "config"), issue.message);
  }
  const e = parsed.data;
  const warnings: string[] = [];

  let secret = e.SECRET;
  if (secret !== undefined && Buffer.byteLength(secret) < 32) {
    throw new ConfigError("SECRET", "must be at least 32 bytes");
  }
  if (secret === undefined) {
    if (e.NODE_ENV === "production") throw new ConfigError("SECRET", "is required when NODE_ENV=production");
    secret = randomBytes(32).toString("base64url");
    warnings.push(
      "SECRET is not set: generated one for this process; tokens and challenges will not survive a restart",
    );
  }
  if (e.REDIS_URL === undefined) {
    warnings.push(
      "REDIS_URL is not set: using the embedded in-process store (one node only, all data is lost on exit)",
    );
  }
  if (e.REDIS_WAIT_REPLICAS > 0 && e.REDIS_URL === undefined) {
    throw new ConfigError("REDIS_WAIT_REPLICAS", "needs REDIS_URL: the embedded store has no replicas to wait for");
  }
  const port = e.PORT;
  const baseUrl = e.BASE_URL ?? `http://localhost:${port}`;
  const redisAdapter = e.REDIS_ADAPTER ?? (e.REDIS_URL?.startsWith("redis+cluster://") ? "sharded" : "classic");

  const config: Config = {
    env: e.NODE_ENV,
    port,
    host: e.HOST,
    baseUrl,
    authUrl: e.AUTH_URL ?? baseUrl,
    redisUrl: e.REDIS_URL,
    redisAdapter,
    redisWait:
      e.REDIS_WAIT_REPLICAS > 0 ? { replicas: e.REDIS_WAIT_REPLICAS, timeoutMs: e.REDIS_WAIT_TIMEOUT_MS } : undefined,
    keyPrefix: e.KEY_PREFIX,
    secret,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    corsOrigins: parseOrigins(e.CORS_ORIGINS),
    logLevel: e.LOG_LEVEL,
    codeTtl: e.CODE_TTL,
    accessTokenTtl: e.ACCESS_TOKEN_TTL,
    passwordHashCost: e.PASSWORD_HASH_COST,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL,
    secretGracePeriod: e.SECRET_GRACE_PERIOD,
    keyActivationDelay: e.KEY_ACTIVATION_DELAY,
    keyCacheTtl: e.KEY_CACHE_TTL,
    idTokenSigningAlg: e.ID_TOKEN_SIGNING_ALG,
    historyMaxEvents: e.HISTORY_MAX_EVENTS,
    historyTtl: e.HISTORY_TTL,
    solveLimits: {
      perAddress: e.SOLVE_LIMIT_PER_ADDRESS,
      perAddressWindow: e.SOLVE_LIMIT_PER_ADDRESS_WINDOW,
      perKey: e.SOLVE_LIMIT_PER_KEY,
      perKeyWindow: e.SOLVE_LIMIT_PER_KEY_WINDOW,
    },
    shutdownTimeout: e.SHUTDOWN_TIMEOUT,
    keepAliveTimeout: e.KEEP_ALIVE_TIMEOUT,
    channelMaxQueue: e.CHANNEL_MAX_QUEUE,
    channelRateLimit: e.CHANNEL_RATE_LIMIT,
    hotRoutes: e.HOT_ROUTES === "on",
    signingKeyAtStart: e.SIGNING_KEY_AT_START === "on",
    serviceName: e.SERVICE_NAME,
    serviceLogoUrl: e.SERVICE_LOGO_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom:
      e.MAIL_FROM?.trim() ?? `"${e.SERVICE_NAME.replace(/["\\]/g, "")}" <no-reply@${new URL(baseUrl).hostname}>`,
    emailConfirmTtl: e.EMAIL_CONFIRM_TTL,
    passwordResetTtl: e.PASSWORD_RESET_TTL,
    reauthMaxAge: e.REAUTH_MAX_AGE,
  };
  return { config: deepFreeze(config), warnings };
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === "object") {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/**
 * The configuration of a node that listens at `port`: BASE_URL and AUTH_URL with port 0 (PORT=0
 * and no BASE_URL gives http://localhost:0) stand for the port the node was given, so a node on
 * any free port still knows its own address.
 */
export function listeningOn(config: Config, port: number): Config {
  const at = (url: string) => {
    const u = new URL(url);
    if (u.port !== "0") return url;
    u.port = String(port);
    return u.href.replace(/\/+$/, "");
  };
  const baseUrl = at(config.baseUrl);
  const authUrl = at(config.authUrl);
  if (baseUrl === config.baseUrl && authUrl === config.authUrl) return config;
  return deepFreeze({ ...config, baseUrl, authUrl });
}
