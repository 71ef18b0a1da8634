// Opening the store named by the configuration: Redis when REDIS_URL is set, else the embedded
// store in DATA_DIR (LMDB), or in process memory with DATA_DIR=:memory:. Used by main.ts, the CLI,
// the test support and the benches, so all wire it the same way. Each backend (embedded/, redis/)
// builds its own realtime clients.
import { mkdirSync } from "node:fs";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { Engine } from "./embedded/engine.js";
import { openEmbedded } from "./embedded/index.js";
import { LmdbEngine } from "./embedded/lmdb-engine.js";
import { lockDataDir } from "./embedded/lock.js";
import { MapEngine } from "./embedded/map-engine.js";
import type { OpenedBackend, OpenedNode, OpenedStore } from "./port.js";
import { openRedis } from "./redis/index.js";

export type { OpenedNode, OpenedStore } from "./port.js";

/** DATA_DIR's value for the in-process store. */
export const IN_MEMORY = ":memory:";

export interface OpenOptions {
  /** How long to wait for Redis before serving 503s regardless (default 5000). */
  waitMs?: number;
  /** The request-path client's command timeout. */
  commandTimeoutMs?: number;
  /**
   * false: the store alone, without the realtime channel's clients (the CLI). On the embedded
   * store such a process does not take DATA_DIR's lock, and what it publishes reaches the server.
   */
  realtime?: boolean;
  /** With realtime: false, on the embedded store: take DATA_DIR's lock all the same (sigil restore). */
  exclusive?: boolean;
  /**
   * false, on the embedded store in DATA_DIR: commits are not flushed to the disk one by one (see
   * LmdbEngine). Not a setting: for stores nobody keeps (the tests' in-process nodes).
   */
  flush?: boolean;
}

/** The embedded store: the server takes DATA_DIR's lock; the CLI opens the data beside it. */
function openEmbeddedStore(config: Config, opts: OpenOptions): OpenedBackend {
  const server = opts.realtime !== false;
  if (config.dataDir === IN_MEMORY) return openEmbedded(new MapEngine());
  let engine: Engine;
  const release = server || opts.exclusive === true ? lockDataDir(ensureDir(config.dataDir)) : () => {};
  try {
    engine = new LmdbEngine(config.dataDir, undefined, opts.flush === false ? { flush: false } : {});
  } catch (err) {
    release();
    throw err;
  }
  const backend = openEmbedded(engine, { toOthers: !server });
  return {
    ...backend,
    async close() {
      await backend.close();
      release();
    },
  };
}

function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
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
    redisUrl === undefined ? openEmbeddedStore(config, opts) : await openRedis({ ...config, redisUrl }, logger, opts);
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
