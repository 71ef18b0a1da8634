// The Redis store's two-factor (store/ports/two-factor.ts): one string (JSON record), one set of
// recovery code hashes (SREM uses one atomically), one SET NX key per used time step; all tagged
// with the user's id, like the user's own key.
import type { TwoFactorRecord, TwoFactorStore } from "../port.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";

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
    const n = await guarded(() => this.redis.del(this.keys.twoFactor(userId), this.keys.twoFactorRecovery(userId)));
    return n > 0;
  }
  async useStep(userId: string, step: number, ttlSeconds: number) {
    const ok = await guarded(() => this.redis.set(this.keys.twoFactorStep(userId, step), "1", "EX", ttlSeconds, "NX"));
    return ok === "OK";
  }
  async useRecoveryCode(userId: string, hash: string) {
    return (await guarded(() => this.redis.srem(this.keys.twoFactorRecovery(userId), hash))) === 1;
  }
  async recoveryCodesLeft(userId: string) {
    return guarded(() => this.redis.scard(this.keys.twoFactorRecovery(userId)));
  }
}
