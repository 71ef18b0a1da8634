// Opening the store named by the configuration: Redis when REDIS_URL is set, else the embedded
// in-process store. Used by main.ts, the CLI and the test support, so all wire it the same way.
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import { MemoryStore } from "./memory.js";
import type { Store } from "./port.js";
import { createRedisClient, waitReady, type RedisClient } from "./redis-client.js";
import { RedisStore } from "./redis.js";

export interface OpenedStore {
  store: Store;
  /** The request-path Redis client (fail-fast), when on Redis. */
  redis?: RedisClient;
  close(): Promise<void>;
}

/** Logs Redis connection errors at most once every few seconds, so an outage does not flood. */
function throttledErrorLog(logger: Logger, what: string) {
  let last = 0;
  return (err: Error) => {
    const now = Date.now();
    if (now - last < 5000) return;
    last = now;
    logger.error({ err: { message: err.message } }, `${what}: connection error`);
  };
}

export async function openStore(
  config: Config,
  logger: Logger,
  opts: { waitMs?: number; commandTimeoutMs?: number } = {},
): Promise<OpenedStore> {
  if (config.redisUrl === undefined) {
    const store = new MemoryStore();
    return { store, close: () => store.close() };
  }
  const redis = createRedisClient(config.redisUrl, {
    onError: throttledErrorLog(logger, "redis"),
    ...(opts.commandTimeoutMs !== undefined ? { commandTimeoutMs: opts.commandTimeoutMs } : {}),
  });
  try {
    await waitReady(redis, opts.waitMs ?? 5000);
  } catch {
    // Keep going: requests answer 503 and /readyz says so until Redis answers; the client
    // keeps reconnecting in the background.
    logger.error("Redis is not reachable yet; serving 503 until it is");
  }
  const store = new RedisStore(redis, config.keyPrefix);
  return {
    store,
    redis,
    async close() {
      await store.close();
      redis.disconnect();
    },
  };
}
