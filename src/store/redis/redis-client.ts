// Making Redis clients for Sigil. Commands fail fast instead of queueing while Redis is away
// (enableOfflineQueue: false, a command timeout), so a request answers 503 quickly; the client
// reconnects by itself in the background.
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";
import { defineScripts } from "./scripts.js";

export type RedisClient = Redis | Cluster;

export interface ClientOptions {
  /** Fail commands at once while disconnected (true for request paths; false for subscribers). */
  failFast?: boolean;
  commandTimeoutMs?: number;
  /** Called for connection errors (ioredis emits them as events; unhandled ones are noisy). */
  onError?: (err: Error) => void;
  /** Redis Cluster only: route SSUBSCRIBE to the shard of each channel (sharded pub/sub). */
  shardedSubscribers?: boolean;
}

const retryStrategy = (times: number) => Math.min(50 * 2 ** Math.min(times, 5), 1000);

export function isClusterUrl(url: string): boolean {
  return url.startsWith("redis+cluster://");
}

export function createRedisClient(url: string, opts: ClientOptions = {}): RedisClient {
  const failFast = opts.failFast ?? true;
  const base: RedisOptions = {
    enableOfflineQueue: !failFast,
    maxRetriesPerRequest: failFast ? 1 : null,
    commandTimeout: failFast ? (opts.commandTimeoutMs ?? 1000) : undefined,
    connectTimeout: 2000,
    retryStrategy,
    enableAutoPipelining: failFast,
  };
  let client: RedisClient;
  if (isClusterUrl(url)) {
    const nodes = url
      .slice("redis+cluster://".length)
      .split(",")
      .map((hp) => {
        const i = hp.lastIndexOf(":");
        return { host: hp.slice(0, i), port: Number(hp.slice(i + 1)) };
      });
    const copts: ClusterOptions = {
      redisOptions: base,
      enableOfflineQueue: !failFast,
      clusterRetryStrategy: retryStrategy,
      enableAutoPipelining: failFast,
      ...(opts.shardedSubscribers ? { shardedSubscribers: true } : {}),
    };
    client = new Cluster(nodes, copts);
  } else {
    client = new Redis(url, base);
  }
  client.on("error", (err: Error) => opts.onError?.(err));
  defineScripts(client);
  return client;
}

/** Resolves once the client is ready, or rejects after timeoutMs. */
export function waitReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off("ready", onReady);
      reject(new Error(`Redis was not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once("ready", onReady);
  });
}
