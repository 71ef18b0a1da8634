// Making Redis clients for Sigil. Commands fail fast instead of queueing while Redis is away
// (enableOfflineQueue: false, a command timeout), so a request answers 503 quickly; the client
// reconnects by itself in the background.
import { Cluster, Redis, type ClusterOptions, type Command, type RedisOptions } from "ioredis";
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
    // The command timeout is armed below (withCommandTimeout), not by ioredis.
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
  if (failFast) withCommandTimeout(client, opts.commandTimeoutMs ?? 1000);
  return client;
}

const ARMED = Symbol("sigil.commandTimeout");
type TimedCommand = Command & { [ARMED]?: true };

/**
 * Fails a command that has no reply after ms, as ioredis's commandTimeout does, but only after the
 * replies already received have been read. ioredis's timer fires in the event loop's timers phase,
 * which comes before the poll phase that reads sockets: after the loop was blocked for longer than
 * the timeout (a node saturated by a broadcast to thousands of sockets, say), every command in
 * flight failed with a reply that had arrived and sat unread, and requests answered 503 for writes
 * Redis had made. Here the timer's rejection waits for setImmediate, which runs after the poll
 * phase of the same turn: a reply that is there wins, a missing one still fails within ms and one
 * loop turn. Armed once per command (a Cluster may send a command again on a redirection).
 */
function withCommandTimeout(client: RedisClient, ms: number): void {
  const send = client.sendCommand.bind(client) as (command: Command, ...rest: unknown[]) => unknown;
  (client as unknown as { sendCommand: typeof send }).sendCommand = (command: TimedCommand, ...rest) => {
    if (command[ARMED] === undefined) {
      command[ARMED] = true;
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (!command.isSettled) command.reject(new Error("Command timed out"));
          }),
        ms,
      );
      const clear = () => clearTimeout(timer);
      command.promise.then(clear, clear);
    }
    return send(command, ...rest);
  };
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

/**
 * The client as @socket.io/redis-adapter gets it: every promise its commands return has a handler.
 * The adapter sends commands it does not wait for (its SUBSCRIBEs at start, a PUBLISH per
 * broadcast, its UNSUBSCRIBEs at close); one that fails — a connection closed before it was sent,
 * as when a node stops before Redis answered, or a Cluster that is down — would be an unhandled
 * rejection, and an unhandled rejection ends a Node process. The adapter still gets the same
 * promise (it sees the failure if it waits); onFailure hears of each failure.
 */
export function withHandledCommands<C extends RedisClient>(client: C, onFailure: (err: unknown) => void): C {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(client, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      let fn = wrapped.get(prop);
      if (fn === undefined) {
        fn = (...args: unknown[]): unknown => {
          const r: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (r instanceof Promise) r.catch(onFailure);
          return r;
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
