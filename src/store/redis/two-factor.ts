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

// KEYS record, recovery codes; ARGV expected ("any", "off" or the enabledAt to replace), the
// record, the recovery code hashes. Writes both only when the record is as expected; 1 when written.
const ENABLE = luaScript(
  2,
  `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == 'off' then
  if current then return 0 end
elseif ARGV[1] ~= 'any' then
  if not current then return 0 end
  local at = cjson.decode(current).enabledAt
  if tostring(at) ~= ARGV[1] and string.format('%.0f', at) ~= ARGV[1] then return 0 end
end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[2])
for i = 3, #ARGV do redis.call('SADD', KEYS[2], ARGV[i]) end
return 1`,
);

// KEYS record, recovery codes; ARGV the new recovery code hashes. Only while the record exists.
const REPLACE_RECOVERY = luaScript(
  2,
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('DEL', KEYS[2])
for i = 1, #ARGV do redis.call('SADD', KEYS[2], ARGV[i]) end
return 1`,
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
  async enable(
    userId: string,
    record: TwoFactorRecord,
    recoveryHashes: string[],
    expect?: { replaces: number | null },
  ) {
    const expected = expect === undefined ? "any" : expect.replaces === null ? "off" : String(expect.replaces);
    const done = await guarded(() =>
      runScript(
        this.redis,
        ENABLE,
        this.keys.twoFactor(userId),
        this.keys.twoFactorRecovery(userId),
        expected,
        JSON.stringify(record),
        ...recoveryHashes,
      ),
    );
    return done === 1;
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
  async replaceRecoveryCodes(userId: string, recoveryHashes: string[]) {
    const done = await guarded(() =>
      runScript(
        this.redis,
        REPLACE_RECOVERY,
        this.keys.twoFactor(userId),
        this.keys.twoFactorRecovery(userId),
        ...recoveryHashes,
      ),
    );
    return done === 1;
  }
  async recoveryCodesLeft(userId: string) {
    return guarded(() => this.redis.scard(this.keys.twoFactorRecovery(userId)));
  }
}
