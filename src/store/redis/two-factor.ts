// The Redis store's two-factor (store/ports/two-factor.ts): one string (JSON record), one set of
// recovery code hashes (SREM uses one atomically), one sorted set of used time steps; all three
// tagged with the user's id, like the user's own key, so turning it off deletes them at once.
import { luaScript, runScript } from "./scripts.js";
import type { TwoFactorRecord, TwoFactorStore } from "../port.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";

// Uses a time step once: KEYS[1] the user's used steps (member step, score until when, ms);
// ARGV step, until, now. Forgets steps past their time, adds this one unless it is there, and
// keeps the key as long as its newest mark.
const USE_STEP = luaScript(
  1,
  `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local added = redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return added`,
);

export class RedisTwoFactor implements TwoFactorStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}
  async get(userId: string) {
    const raw = await guarded(() => this.redis.get(this.keys.twoFactor(userId)));
    return raw ? (JSON.parse(raw) as TwoFactorRecord) : null;
  }
  async enable(userId: string, record: TwoFactorRecord, recoveryHashes: string[]) {
    const codes = this.keys.twoFactorRecovery(userId);
    await guarded(() =>
      this.redis
        .multi()
        .set(this.keys.twoFactor(userId), JSON.stringify(record))
        .del(codes)
        .sadd(codes, ...recoveryHashes)
        .exec(),
    );
  }
  async disable(userId: string) {
    const [n] = await guarded(() =>
      Promise.all([
        this.redis.del(this.keys.twoFactor(userId)),
        this.redis.del(this.keys.twoFactorRecovery(userId), this.keys.twoFactorSteps(userId)),
      ]),
    );
    return n > 0;
  }
  async useStep(userId: string, step: number, ttlSeconds: number) {
    const now = Date.now();
    const until = String(now + ttlSeconds * 1000);
    const added = await guarded(() =>
      runScript(this.redis, USE_STEP, this.keys.twoFactorSteps(userId), String(step), until, String(now)),
    );
    return added === 1;
  }
  async useRecoveryCode(userId: string, hash: string) {
    return (await guarded(() => this.redis.srem(this.keys.twoFactorRecovery(userId), hash))) === 1;
  }
  async recoveryCodesLeft(userId: string) {
    return guarded(() => this.redis.scard(this.keys.twoFactorRecovery(userId)));
  }
}
