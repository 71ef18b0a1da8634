// The Redis store (standalone Redis or Redis Cluster). The clients are made by the caller and
// injected; this class never closes them.
import { RateLimiterRedis } from "rate-limiter-flexible";
import { StoreUnavailableError } from "../errors.js";
import { keyspace, type Keyspace } from "./keys.js";
import { adaptLimiter } from "./limiter.js";
import type { AttemptLimiter, ChallengeRecord, ChallengeStore, LimiterSpec, Store } from "./port.js";
import type { RedisClient } from "./redis-client.js";
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

interface StoredChallenge {
  q: string;
  h: string;
  o?: string;
  c: number;
}

class RedisChallenges implements ChallengeStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async create(key: string, r: ChallengeRecord, ttlSeconds: number): Promise<boolean> {
    const doc: StoredChallenge = { q: r.question, h: r.answerHash, c: r.createdAt };
    if (r.owner !== undefined) doc.o = r.owner;
    const res = await guarded(() => this.redis.set(this.keys.challenge(key), JSON.stringify(doc), "EX", ttlSeconds, "NX"));
    return res === "OK";
  }

  async get(key: string): Promise<ChallengeRecord | null> {
    const raw = await guarded(() => this.redis.get(this.keys.challenge(key)));
    if (raw === null) return null;
    const d = JSON.parse(raw) as StoredChallenge;
    const rec: ChallengeRecord = { question: d.q, answerHash: d.h, createdAt: d.c };
    if (d.o !== undefined) rec.owner = d.o;
    return rec;
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
