// What a store must pass before a node serves on it (or the CLI writes to it): on Redis, that
// Redis keeps data (redis/durability.ts); on every store, that its data is in this code's format
// (migrations.ts: stamped, migrated, or refused), and that SECRET is the one it was made with
// (checkSecret: the CLI refuses another; a node takes it as a change of SECRET). A node that
// cannot reach Redis at start goes on (it serves 503 until Redis answers, as before) and runs the
// checks once Redis answers; until they pass, its store answers as a Redis that is away (gated),
// so nothing is served on data of an unchecked version.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import { migrateStore, type MigrateOptions } from "./migrations.js";
import { StoreUnavailableError } from "../errors.js";
import type { AttemptLimiter, LimiterSpec, OpenedStore, Store } from "./port.js";
import { checkRedisDurability } from "./redis/durability.js";
import { StoreRefusedError } from "./refused.js";

export { StoreRefusedError };

export interface PrepareOptions {
  /** Check Redis's persistence and eviction settings (a node: yes; the CLI: no). */
  redisSettings?: boolean;
  migrate?: MigrateOptions;
  /**
   * A store made with another SECRET: "refuse" (the CLI: StoreRefusedError before anything is
   * written) or "restamp" (a node, the default: a change of SECRET, recorded with a warning).
   */
  otherSecret?: "refuse" | "restamp";
}

/** What the store records of the SECRET it was made with: an HMAC of a fixed text under it, never the secret. */
export function secretCheckOf(secret: string): string {
  return createHmac("sha256", secret).update("sigil store: the SECRET this store was made with").digest("base64url");
}

function sameCheck(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const OTHER_SECRET =
  "this SECRET is not the one the store was made with: give the command the SECRET of the service that uses this store (nothing was written)";

/**
 * The SECRET's check, after the other checks passed: recorded when the store has none; another
 * one is refused or re-recorded. (The CLI reads it before anything else, so that a refusal writes
 * nothing; this stamp refuses too when another process stamped another in between.)
 */
async function checkSecret(opened: OpenedStore, secret: string, logger: Logger, otherSecret: "refuse" | "restamp") {
  const meta = opened.store.meta;
  const mine = secretCheckOf(secret);
  const recorded = await meta.stampSecretCheck(mine);
  if (sameCheck(recorded, mine)) return;
  if (otherSecret === "refuse") throw new StoreRefusedError(OTHER_SECRET);
  await meta.setSecretCheck(mine);
  logger.warn(
    "the store was made with another SECRET: this node records its own as the store's SECRET (a change of SECRET: people sign in again, apps need new client secrets, the CLI needs this SECRET); if this node's SECRET is a mistake, stop it and start it with the other nodes' SECRET",
  );
}

/** Runs the checks once; throws StoreRefusedError, or StoreUnavailableError when the store is away. */
export async function prepareStore(
  opened: OpenedStore,
  config: Config,
  logger: Logger,
  opts: PrepareOptions = {},
): Promise<void> {
  await opened.store.ping();
  const otherSecret = opts.otherSecret ?? "restamp";
  if (otherSecret === "refuse") {
    // Read before the data version is stamped or migrated: a refused SECRET writes nothing.
    const recorded = await opened.store.meta.secretCheck();
    if (recorded !== null && !sameCheck(recorded, secretCheckOf(config.secret)))
      throw new StoreRefusedError(OTHER_SECRET);
  }
  if (opened.redis && opts.redisSettings !== false) {
    await checkRedisDurability(opened.redis, config.redisAllowEviction, logger);
  }
  const { found, version } = await migrateStore(opened.store, logger, opts.migrate);
  if (found === null && opened.store.kind === "redis") {
    logger.info({ dataVersion: version }, `the store recorded no data version: it is version ${version} now`);
  }
  await checkSecret(opened, config.secret, logger, otherSecret);
}

const RETRY_MS = 1000;

/**
 * The store as a node sees it while its checks have not passed: every call fails as when Redis is
 * away (StoreUnavailableError: 503, /readyz not ready). Once open() is true, calls go through.
 */
function gated(store: Store, open: () => boolean): Store {
  const away = () => Promise.reject(new StoreUnavailableError());
  const parts = new Map<PropertyKey, object>();
  const guard = <T extends object>(part: T): T =>
    new Proxy(part, {
      get(target, prop, receiver) {
        const v: unknown = Reflect.get(target, prop, receiver);
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => (open() ? (v as (...a: unknown[]) => unknown).apply(target, args) : away());
      },
    });
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (prop === "meta" || prop === "close" || prop === "kind") return v;
      if (prop === "ping") return () => (open() ? target.ping() : away());
      if (prop === "limiter") return (spec: LimiterSpec): AttemptLimiter => guard(target.limiter(spec));
      if (typeof v !== "object" || v === null) return v;
      let part = parts.get(prop);
      if (!part) parts.set(prop, (part = guard(v)));
      return part;
    },
  });
}

/**
 * At a node's start: the checks now, or, when the store is away, once it answers (in the
 * background; a refusal then goes to onRefused). `store` is the store to serve on: the given one,
 * or, while the checks wait for the store, a gated one. stop() ends the background checks.
 */
export async function checkStoreAtStart(
  opened: OpenedStore,
  config: Config,
  logger: Logger,
  onRefused: (err: StoreRefusedError) => void,
  opts: PrepareOptions = {},
): Promise<{ store: Store; stop(): void }> {
  const isAway = (err: unknown) => err instanceof Error && err.name === "StoreUnavailableError";
  try {
    await prepareStore(opened, config, logger, opts);
    return { store: opened.store, stop() {} };
  } catch (err) {
    if (!isAway(err)) throw err;
  }
  logger.warn(
    "the store is not reachable: its data version and settings are checked once it answers, and nothing is served before",
  );
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let checked = false;
  const again = () => {
    timer = setTimeout(() => {
      prepareStore(opened, config, logger, opts).then(
        () => {
          checked = true;
          logger.info("the store answers: its data version and settings are checked");
        },
        (err: unknown) => {
          if (stopped) return;
          if (isAway(err)) again();
          else if (err instanceof StoreRefusedError) onRefused(err);
          else {
            logger.error({ err: { message: String((err as Error)?.message ?? err) } }, "checking the store failed");
            again();
          }
        },
      );
    }, RETRY_MS);
    timer.unref();
  };
  again();
  return {
    store: gated(opened.store, () => checked),
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
