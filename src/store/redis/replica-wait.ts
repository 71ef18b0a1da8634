// Acknowledged writes that wait for replicas (REDIS_WAIT_REPLICAS, REDIS_WAIT_TIMEOUT_MS).
//
// Redis replicates asynchronously: a master that dies right after answering a write can take the
// write with it, and the replica promoted in its place never had it. With a wait, the write and a
// `WAIT <replicas> <timeout>` go out together as one pipeline, so WAIT runs on the connection that
// wrote (on Redis Cluster ioredis sends a pipeline to the master of its keys' slot; WAIT has no key
// of its own). The caller answers only when enough replicas have the write; otherwise the store
// throws ReplicaWaitError, a StoreUnavailableError, and the user sees 503 `unavailable` with
// Retry-After. Such a write may still have happened on the master (the client was told it did not:
// a new challenge's key was never given out, a solve may be sent again).
import { StoreUnavailableError } from "../../errors.js";
import { Cluster } from "ioredis";
import { guarded } from "./guarded.js";
import type { RedisClient } from "./redis-client.js";

export interface ReplicaWaitPolicy {
  replicas: number;
  timeoutMs: number;
}

/**
 * How long a request-path command may take when writes wait: the wait, and half a second more
 * (never below the usual 1 s). The client's command timeout and the pipeline's deadline.
 */
export function commandTimeoutWithWait(policy: ReplicaWaitPolicy | undefined, usual = 1000): number {
  return policy ? Math.max(usual, policy.timeoutMs + 500) : usual;
}

/** Fewer replicas than asked confirmed a write within the timeout. */
export class ReplicaWaitError extends StoreUnavailableError {
  constructor(acked: number, policy: ReplicaWaitPolicy) {
    super(
      new Error(`WAIT: ${acked} of ${policy.replicas} replica(s) confirmed the write within ${policy.timeoutMs} ms`),
    );
  }
}

/** How many connections carry the acknowledged writes (each WAIT holds its connection meanwhile). */
export const WAIT_WRITERS = 4;

/**
 * Writes through `issue`: at once on the client given when there is no policy; else in a pipeline
 * with WAIT on one of `writers`, connections of their own. Redis holds a connection for as long as
 * its WAIT lasts (every command behind it waits too), so the writes that wait are kept off the
 * connection the reads use, and spread over a few connections. `issue` calls one command on what it
 * is given (the client, or a pipeline with the same commands, the scripts defined with
 * defineCommand included) and returns its result.
 */
export class ReplicaWait {
  private next = 0;

  constructor(
    private readonly policy: ReplicaWaitPolicy | undefined,
    /** The connections for waited writes; every script a store class uses must be defined on them. */
    readonly writers: readonly RedisClient[] = [],
  ) {
    if (policy && writers.length === 0) throw new Error("a replica wait needs its writer connections");
  }

  write<C, T>(client: C, issue: (c: C) => Promise<T>): Promise<T> {
    const policy = this.policy;
    if (!policy) return guarded(() => issue(client));
    return this.waited(policy, issue);
  }

  private async waited<C, T>(policy: ReplicaWaitPolicy, issue: (c: C) => Promise<T>): Promise<T> {
    const writer = this.writers[this.next++ % this.writers.length]!; // writers is not empty
    const p = writer.pipeline();
    // The pipeline has every command of its client (ioredis copies defineCommand scripts onto
    // it); it queues rather than sends, and its own exec() gives the replies.
    void issue(p as unknown as C);
    p.wait(policy.replicas, policy.timeoutMs);
    // WAIT may take timeoutMs; the client's command timeout is set above it (openRedis). The
    // deadline guards what that timeout does not cover: a Cluster pipeline waiting for the slot
    // map, or sent again by ioredis after a node went away, must not hold a request either.
    let replies;
    try {
      replies = await withDeadline(p.exec(), commandTimeoutWithWait(policy));
    } catch (err) {
      throw this.failed(writer, err);
    }
    if (!replies || replies.length < 2) throw new StoreUnavailableError(new Error("pipeline without replies"));
    const [[writeErr, value], [waitErr, acked]] = replies as [[Error | null, T], [Error | null, number]];
    if (writeErr ?? waitErr) throw this.failed(writer, writeErr ?? waitErr);
    if (Number(acked) < policy.replicas) throw new ReplicaWaitError(Number(acked), policy);
    return value;
  }

  /**
   * After a failover a writer's slot map is out of date (a MOVED, or the old master gone). ioredis
   * learns from a MOVED by itself, but not in a pipeline that also holds WAIT (it sends again only
   * pipelines of reads), and these connections carry nothing else: ask it to read the map again.
   */
  private failed(writer: RedisClient, err: unknown): StoreUnavailableError {
    if (writer instanceof Cluster) writer.refreshSlotsCache();
    return new StoreUnavailableError(err);
  }
}

/**
 * p, or a rejection when it has not settled after ms. Decided as the client's command timeout is
 * (redis-client.ts withCommandTimeout), after the replies already received are read: the timer runs
 * in the event loop's timers phase, before the poll phase that reads sockets, so after a stall of
 * the loop longer than ms (a node busy writing one event to thousands of sockets) it would fire with
 * the write's and WAIT's replies sitting unread, and a write Redis made and its replicas confirmed
 * would be refused (503). The rejection waits for setImmediate, which runs after that poll phase.
 */
function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!settled) reject(new Error(`no reply within ${ms} ms`));
        }),
      ms,
    );
    p.then(
      (v) => {
        settled = true;
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
