// The Redis store's data version (the key <prefix>:data-version, an integer), the check of the
// SECRET it was made with (<prefix>:secret-check, set if absent by STAMP as the version is) and its migration
// lock (<prefix>:migration-lock: a token, SET NX PX, renewed while the holder migrates, released
// by compare-and-delete so that a holder whose lock lapsed never deletes its successor's).
import { parseDataVersion, type MetaStore } from "../port.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import { luaScript, runScript } from "./scripts.js";

// Sets the key when it holds nothing (the version, the SECRET's check); answers what it holds now. KEYS[1] the key; ARGV the value.
const STAMP = luaScript(
  1,
  `
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]`,
);

// KEYS[1] the lock; ARGV token, ttl (ms).
const RENEW = luaScript(
  1,
  `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`,
);

// KEYS[1] the lock; ARGV token.
const RELEASE = luaScript(
  1,
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
);

export class RedisMeta implements MetaStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async dataVersion(): Promise<number | null> {
    return parseDataVersion(await guarded(() => this.redis.get(this.keys.dataVersion)));
  }

  async stampDataVersion(version: number): Promise<number> {
    const now = await guarded(() => runScript(this.redis, STAMP, this.keys.dataVersion, String(version)));
    return parseDataVersion(String(now)) ?? version;
  }

  async setDataVersion(version: number): Promise<void> {
    await guarded(() => this.redis.set(this.keys.dataVersion, String(version)));
  }

  async takeMigrationLock(token: string, ttlMs: number): Promise<boolean> {
    return (await guarded(() => this.redis.set(this.keys.migrationLock, token, "PX", ttlMs, "NX"))) === "OK";
  }

  async renewMigrationLock(token: string, ttlMs: number): Promise<boolean> {
    return (await guarded(() => runScript(this.redis, RENEW, this.keys.migrationLock, token, ttlMs))) === 1;
  }

  async releaseMigrationLock(token: string): Promise<void> {
    await guarded(() => runScript(this.redis, RELEASE, this.keys.migrationLock, token));
  }

  async secretCheck(): Promise<string | null> {
    return await guarded(() => this.redis.get(this.keys.secretCheck));
  }

  async stampSecretCheck(check: string): Promise<string> {
    return String(await guarded(() => runScript(this.redis, STAMP, this.keys.secretCheck, check)));
  }

  async setSecretCheck(check: string): Promise<void> {
    await guarded(() => this.redis.set(this.keys.secretCheck, check));
  }
}
