// The Redis store (standalone Redis or Redis Cluster). The clients are made by the caller and
// injected; this class never closes them.
import { RateLimiterRedis } from "rate-limiter-flexible";
import { StoreUnavailableError } from "../errors.js";
import { keyspace, type Keyspace } from "./keys.js";
import { adaptLimiter } from "./limiter.js";
import type { AttemptLimiter, ChallengeStore, LimiterSpec, Store } from "./port.js";
import type { RedisClient } from "./redis-client.js";
import { RedisChallenges } from "./redis/challenges.js";
import { RedisCustomTokens, RedisEventLog } from "./redis/realtime.js";
import type { CustomTokenStore, EventLog } from "./realtime-port.js";
import { RedisAccounts, RedisApps, RedisGrants, RedisSessions } from "./redis/signin.js";

/** Runs a Redis call; any failure of the connection becomes StoreUnavailableError. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new StoreUnavailableError(err);
  }
}

export class RedisStore implements Store {
  readonly kind = "redis" as const;
  readonly keys: Keyspace;
  readonly challenges: ChallengeStore;
  readonly customTokens: CustomTokenStore;
  readonly events: EventLog;
  readonly accounts: RedisAccounts;
  readonly sessions: RedisSessions;
  readonly apps: RedisApps;
  readonly grants: RedisGrants;

  constructor(
    readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = keyspace(prefix);
    this.challenges = new RedisChallenges(redis, this.keys);
    this.customTokens = new RedisCustomTokens(redis, this.keys);
    this.events = new RedisEventLog(redis, this.keys);
    this.accounts = new RedisAccounts(redis, this.keys);
    this.sessions = new RedisSessions(redis, this.keys);
    this.apps = new RedisApps(redis, this.keys);
    this.grants = new RedisGrants(redis, this.keys);
  }

  limiter(spec: LimiterSpec): AttemptLimiter {
    return adaptLimiter(
      new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: this.keys.limiter(spec.name),
        points: spec.points,
        duration: spec.windowSeconds,
        rejectIfRedisNotReady: true,
      }),
    );
  }

  async ping(): Promise<void> {
    if (this.redis.status !== "ready") throw new StoreUnavailableError();
    await guarded(() => this.redis.ping());
  }

  async close(): Promise<void> {}
}
