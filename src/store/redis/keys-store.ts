// The Redis store's signing keys (one hash, kid → JSON record) and consented scopes (one hash per
// user, client id → space-separated scopes, tagged with the user like the consents set).
import { luaScript, runScript } from "./scripts.js";
import type { ConsentScopeStore, SigningKeyRecord, SigningKeyStore } from "../port.js";
import { registerWithApp } from "./app-grants.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";

// Adds the first key only when the hash is empty, and ends the claim: KEYS[1] the keys hash,
// KEYS[2] the claim (same tag); ARGV kid, record.
const ADD_FIRST = luaScript(
  2,
  `
if redis.call('HLEN', KEYS[1]) > 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('DEL', KEYS[2])
return 1`,
);

// Adds a key only while the hash holds exactly the kids ARGV[3..] (in any order): KEYS[1] the keys
// hash; ARGV kid, record, the kids read.
const ADD_UNCHANGED = luaScript(
  1,
  `
if redis.call('HLEN', KEYS[1]) ~= #ARGV - 2 then return 0 end
for i = 3, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`,
);

export class RedisSigningKeys implements SigningKeyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}
  async list() {
    const all = await guarded(() => this.redis.hgetall(this.keys.signingKeys));
    return Object.values(all).map((v) => JSON.parse(v) as SigningKeyRecord);
  }
  async addFirst(key: SigningKeyRecord) {
    const r = await guarded(() =>
      runScript(this.redis, ADD_FIRST, this.keys.signingKeys, this.keys.signingKeysClaim, key.kid, JSON.stringify(key)),
    );
    return r === 1;
  }
  async claimFirst(ttlSeconds: number) {
    return (await guarded(() => this.redis.set(this.keys.signingKeysClaim, "1", "EX", ttlSeconds, "NX"))) === "OK";
  }
  async add(key: SigningKeyRecord) {
    await guarded(() => this.redis.hset(this.keys.signingKeys, key.kid, JSON.stringify(key)));
  }
  async addUnchanged(key: SigningKeyRecord, kids: string[]) {
    const r = await guarded(() =>
      runScript(this.redis, ADD_UNCHANGED, this.keys.signingKeys, key.kid, JSON.stringify(key), ...new Set(kids)),
    );
    return r === 1;
  }
  async remove(kids: string[]) {
    if (kids.length === 0) return;
    await guarded(() => this.redis.hdel(this.keys.signingKeys, ...kids));
  }
}

export class RedisConsentScopes implements ConsentScopeStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}
  async get(userId: string, clientId: string) {
    const v = await guarded(() => this.redis.hget(this.keys.consentScopes(userId), clientId));
    return v === null ? null : v.split(" ").filter(Boolean);
  }
  async set(userId: string, clientId: string, scopes: string[]) {
    await guarded(() =>
      this.redis
        .multi()
        .hset(this.keys.consentScopes(userId), clientId, scopes.join(" "))
        .sadd(this.keys.appsUsed(userId), clientId)
        .exec(),
    );
    // Registered with the app like the consent itself (app-grants.ts); undone when the app is gone.
    if (!(await registerWithApp(this.redis, this.keys, clientId, userId, "c", "+inf"))) {
      await guarded(() =>
        this.redis
          .multi()
          .hdel(this.keys.consentScopes(userId), clientId)
          .srem(this.keys.appsUsed(userId), clientId)
          .exec(),
      );
      return false;
    }
    return true;
  }
  async clear(userId: string) {
    await guarded(() => this.redis.del(this.keys.consentScopes(userId)));
  }
}
