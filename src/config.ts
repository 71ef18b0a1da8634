// loadConfig(env) is the only reader of the environment: it checks it against the settings table
// (config/settings.ts: each setting once, with its field, check, default and documentation), then
// derives the few values that depend on several settings. Everything else receives the frozen
// Config it returns.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Fields, schema, settings, type Values } from "./config/settings.js";
import { readUpstreams, type Upstream, UpstreamSettingError } from "./config/upstreams.js";

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
    this.name = "ConfigError";
  }
}

/** The file, in DATA_DIR, of the secret made for a data folder when SECRET is not set. */
export const KEPT_SECRET_FILE = "secret";

/**
 * The secret kept with the embedded store's data (DATA_DIR/secret, mode 0600): read when there,
 * else made and written (exclusively: of two processes starting at once, both end up with the
 * first one's). Data that lasts needs a secret that lasts with it: apps' secrets, CUSTOM TOKENs,
 * two-factor secrets and the signing keys are keyed or sealed with it.
 */
function keptSecret(dataDir: string): string {
  const file = join(dataDir, KEPT_SECRET_FILE);
  const read = () => {
    const s = readFileSync(file, "utf8").trim();
    if (Buffer.byteLength(s) < 32) throw new ConfigError("SECRET", `${file} holds less than 32 bytes`);
    return s;
  };
  try {
    return read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${randomBytes(32).toString("base64url")}\n`, { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return read();
}

/** The values made from several settings: defaults that follow others, the groups, the secret. */
function derive(v: Values, warnings: string[], opts: LoadOptions) {
  let secret = v.SECRET;
  if (secret === undefined) {
    if (v.NODE_ENV === "production") throw new ConfigError("SECRET", "is required when NODE_ENV=production");
    if (opts.keepSecret && v.REDIS_URL === undefined && v.DATA_DIR !== ":memory:") {
      secret = keptSecret(v.DATA_DIR);
      warnings.push(
        `SECRET is not set: using the one kept with the data (${join(v.DATA_DIR, KEPT_SECRET_FILE)}); back it up with the data, and set SECRET to run more than this one node`,
      );
    } else {
      secret = randomBytes(32).toString("base64url");
      warnings.push(
        "SECRET is not set: generated one for this process; tokens and challenges will not survive a restart",
      );
    }
  }
  if (v.REDIS_URL === undefined && v.DATA_DIR === ":memory:") {
    warnings.push(
      "REDIS_URL is not set and DATA_DIR=:memory:: using the embedded in-process store (one node only, all data is lost on exit)",
    );
  }
  if (v.REDIS_WAIT_REPLICAS > 0 && v.REDIS_URL === undefined) {
    throw new ConfigError("REDIS_WAIT_REPLICAS", "needs REDIS_URL: the embedded store has no replicas to wait for");
  }
  if (v.SIGNUP_EMAIL_DOMAINS.length > 0 && v.SMTP_URL === undefined) {
    throw new ConfigError(
      "SIGNUP_EMAIL_DOMAINS",
      "needs SMTP_URL: the addresses it asks for are confirmed by mail, and without mail they never could be",
    );
  }
  const baseUrl = v.BASE_URL ?? `http://localhost:${v.PORT}`;
  const clustered = v.REDIS_URL?.startsWith("redis+cluster://") === true;
  return {
    secret,
    baseUrl,
    authUrl: v.AUTH_URL ?? baseUrl,
    redisAdapter: v.REDIS_ADAPTER ?? (clustered ? ("sharded" as const) : ("classic" as const)),
    /**
     * An acknowledged write (store/redis/replica-wait.ts) answers only once this many replicas have
     * it (Redis WAIT); undefined: it answers as soon as the master has it.
     */
    redisWait:
      v.REDIS_WAIT_REPLICAS > 0 ? { replicas: v.REDIS_WAIT_REPLICAS, timeoutMs: v.REDIS_WAIT_TIMEOUT_MS } : undefined,
    solveLimits: {
      perAddress: v.SOLVE_LIMIT_PER_ADDRESS,
      perAddressWindow: v.SOLVE_LIMIT_PER_ADDRESS_WINDOW,
      perKey: v.SOLVE_LIMIT_PER_KEY,
      perKeyWindow: v.SOLVE_LIMIT_PER_KEY_WINDOW,
    },
    mailFrom: v.MAIL_FROM ?? `"${v.SERVICE_NAME.replace(/["\\]/g, "")}" <no-reply@${new URL(baseUrl).hostname}>`,
  };
}

type Frozen<T> = T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;

/**
 * What a node is configured with: each setting's field (config/settings.ts: the field it fills,
 * its value's type) and the values derive() makes from several settings. Frozen.
 */
export type Config = Frozen<
  Omit<Fields, keyof ReturnType<typeof derive>> & ReturnType<typeof derive> & { upstreams: Upstream[] }
>;

export interface LoadedConfig {
  config: Config;
  /** Things an operator should hear about at start (generated secret, embedded store). */
  warnings: string[];
}

export interface LoadOptions {
  /**
   * Without SECRET (and outside production), on the embedded store in a DATA_DIR: use the secret
   * kept there, making it at first (the server and the CLI); otherwise a random one per process.
   */
  keepSecret?: boolean;
}

export function loadConfig(env: Record<string, string | undefined>, opts: LoadOptions = {}): LoadedConfig {
  const raw: Record<string, string | undefined> = {};
  for (const name of Object.keys(settings)) {
    const v = env[name];
    raw[name] = v === "" ? undefined : v;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!; // a failed parse has at least one issue
    throw new ConfigError(String(issue.path[0] ?? "config"), issue.message);
  }
  const values = parsed.data as Values;
  const warnings: string[] = [];
  const fields: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(settings)) {
    if (!s.field.includes(".")) fields[s.field] = values[name as keyof Values];
  }
  let upstreams: Upstream[];
  try {
    upstreams = readUpstreams(env);
  } catch (e) {
    if (e instanceof UpstreamSettingError) throw new ConfigError(e.setting, e.message);
    throw e;
  }
  const config = { ...fields, ...derive(values, warnings, opts), upstreams } as unknown as Config;
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
