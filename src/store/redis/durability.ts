// Redis as a system of record (docs/operations.md#redis-as-a-system-of-record): at start a node
// asks every master how it keeps data. Accounts, apps and keys live only in Redis, so a Redis
// that may evict keys under memory pressure can silently drop them: refused unless
// REDIS_ALLOW_EVICTION says this Redis is a disposable cache. A Redis that persists nothing loses
// everything on a restart: a warning. Managed Redis often disables CONFIG: then a warning that
// nothing could be checked, and no refusal.
import { Redis, type Cluster } from "ioredis";
import type { Logger } from "../../log.js";
import { StoreRefusedError } from "../refused.js";
import type { RedisClient } from "./redis-client.js";

export interface RedisSettings {
  /** The master's address, for the messages ("127.0.0.1:7001"). */
  at: string;
  appendonly: string;
  save: string;
  maxmemoryPolicy: string;
}

const CONFIG_TIMEOUT_MS = 2000;

async function configGet(r: Redis, name: string): Promise<string> {
  const reply = (await r.config("GET", name)) as unknown;
  if (!Array.isArray(reply) || reply.length < 2) throw new Error(`CONFIG GET ${name} answered nothing`);
  return String(reply[1]);
}

async function readSettings(r: Redis, at: string): Promise<RedisSettings> {
  const [appendonly, save, maxmemoryPolicy] = await Promise.all(
    ["appendonly", "save", "maxmemory-policy"].map((n) => configGet(r, n)),
  );
  return { at, appendonly: appendonly!, save: save!, maxmemoryPolicy: maxmemoryPolicy! };
}

/**
 * Each master's settings. On a Cluster, one short-lived connection per master (the cluster
 * client's own connections to them may not be up yet, and fail fast by design).
 */
export async function readMasterSettings(redis: RedisClient): Promise<RedisSettings[]> {
  if (!redis.isCluster) {
    const r = redis as Redis;
    return [await readSettings(r, `${r.options.host ?? "localhost"}:${r.options.port ?? 6379}`)];
  }
  const masters = (redis as Cluster).nodes("master");
  if (masters.length === 0) throw new Error("the Cluster client knows no master yet");
  return Promise.all(
    masters.map(async (m) => {
      const { host, port } = m.options;
      const one = new Redis({
        ...m.options,
        lazyConnect: true,
        enableOfflineQueue: true,
        maxRetriesPerRequest: 0,
        commandTimeout: CONFIG_TIMEOUT_MS,
        retryStrategy: () => null,
      });
      one.on("error", () => {}); // the command's rejection says it
      try {
        await one.connect();
        return await readSettings(one, `${host}:${port}`);
      } finally {
        one.disconnect();
      }
    }),
  );
}

/** What the settings mean: the warnings to log, and the refusal (when eviction is not allowed). */
export function judgeSettings(all: RedisSettings[], allowEviction: boolean): { warnings: string[]; refusal?: string } {
  const warnings: string[] = [];
  const which = (s: RedisSettings) => (all.length > 1 ? `Redis at ${s.at}` : "Redis");
  for (const s of all) {
    if (s.appendonly !== "yes" && s.save.trim() === "") {
      warnings.push(
        `${which(s)} persists nothing (appendonly no, save ""): a restart of Redis loses every account, app and key. Set appendonly yes (and appendfsync everysec or always), or RDB snapshots with save`,
      );
    }
  }
  const evicting = all.filter((s) => s.maxmemoryPolicy !== "noeviction");
  if (evicting.length) {
    const policies = [...new Set(evicting.map((s) => s.maxmemoryPolicy))].join(", ");
    const where = all.length > 1 ? `Redis at ${evicting.map((s) => s.at).join(", ")}` : "Redis";
    const text = `${where} has maxmemory-policy ${policies}, which may evict keys when memory runs short (volatile-* policies too: sessions, codes and tokens have TTLs), silently dropping data. Set maxmemory-policy noeviction`;
    if (allowEviction) warnings.push(`${text}; going on because REDIS_ALLOW_EVICTION=true`);
    else return { warnings, refusal: `${text}, or REDIS_ALLOW_EVICTION=true for a Redis whose data may be lost` };
  }
  return { warnings };
}

/** Reads and judges every master's settings: logs the warnings, throws StoreRefusedError on a refusal. */
export async function checkRedisDurability(redis: RedisClient, allowEviction: boolean, logger: Logger): Promise<void> {
  let settings: RedisSettings[];
  try {
    settings = await readMasterSettings(redis);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    logger.warn(
      { reason: reason.slice(0, 200) },
      "could not read Redis's settings (CONFIG GET is disabled or renamed, as on many managed Redis services): check yourself that it persists data (appendonly yes) and never evicts keys (maxmemory-policy noeviction)",
    );
    return;
  }
  const { warnings, refusal } = judgeSettings(settings, allowEviction);
  for (const w of warnings) logger.warn(w);
  if (refusal) throw new StoreRefusedError(refusal);
}
