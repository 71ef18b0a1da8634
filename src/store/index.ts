// Opening the store named by the configuration: Redis when REDIS_URL is set, else the embedded
// in-process store. Used by main.ts, the CLI, the test support and the benches, so all wire it
// the same way. Each backend (memory/, redis/) builds its own realtime clients.
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import { openMemory } from "./memory/index.js";
import type { OpenedBackend, OpenedNode, OpenedStore } from "./port.js";
import { openRedis } from "./redis/index.js";

export type { OpenedNode, OpenedStore } from "./port.js";

export interface OpenOptions {
  /** How long to wait for Redis before serving 503s regardless (default 5000). */
  waitMs?: number;
  /** The request-path client's command timeout. */
  commandTimeoutMs?: number;
  /** false: the store alone, without the realtime channel's clients (the CLI). */
  realtime?: boolean;
}

/** The store and the realtime channel's clients (feed, adapter), or with realtime: false the store alone. */
export async function openStore(
  config: Config,
  logger: Logger,
  opts: OpenOptions & { realtime: false },
): Promise<OpenedStore>;
export async function openStore(config: Config, logger: Logger, opts?: OpenOptions): Promise<OpenedNode>;
export async function openStore(
  config: Config,
  logger: Logger,
  opts: OpenOptions = {},
): Promise<OpenedStore | OpenedNode> {
  const { redisUrl } = config;
  const backend: OpenedBackend =
    redisUrl === undefined ? openMemory() : await openRedis({ ...config, redisUrl }, logger, opts);
  const { store, redis } = backend;
  const opened: OpenedStore = { store, ...(redis ? { redis } : {}), close: () => backend.close() };
  if (opts.realtime === false) return opened;
  const realtime = backend.openRealtime();
  return {
    ...opened,
    realtime,
    async close() {
      await realtime.close();
      await backend.close();
    },
  };
}
