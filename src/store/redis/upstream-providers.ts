// The Redis store's upstream providers added on /admin (store/ports/upstream-providers.ts): one
// hash id → JSON record ({upstreams}, keys.ts: one key, so one shard on a Cluster); adding is
// HSETNX, replacing and removing one script each, so that a provider removed meanwhile is not
// written back.
import { luaScript, runScript } from "./scripts.js";
import type { StoredUpstreamRecord, UpstreamProviderStore } from "../port.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";

// KEYS providers; ARGV id, JSON record. 1: replaced; 0: no such provider.
const UPDATE = luaScript(
  1,
  `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`,
);

// KEYS providers; ARGV id. The removed record, or false.
const REMOVE = luaScript(
  1,
  `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
return raw`,
);

const parse = (raw: unknown): StoredUpstreamRecord | null =>
  typeof raw === "string" ? (JSON.parse(raw) as StoredUpstreamRecord) : null;

export class RedisUpstreamProviders implements UpstreamProviderStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async add(record: StoredUpstreamRecord) {
    return (await guarded(() => this.redis.hsetnx(this.keys.upstreams, record.id, JSON.stringify(record)))) === 1;
  }
  async update(record: StoredUpstreamRecord) {
    const r = await guarded(() =>
      runScript(this.redis, UPDATE, this.keys.upstreams, record.id, JSON.stringify(record)),
    );
    return r === 1;
  }
  async remove(id: string) {
    return parse(await guarded(() => runScript(this.redis, REMOVE, this.keys.upstreams, id)));
  }
  async get(id: string) {
    return parse(await guarded(() => this.redis.hget(this.keys.upstreams, id)));
  }
  async list() {
    const all = await guarded(() => this.redis.hgetall(this.keys.upstreams));
    return Object.values(all)
      .map((v) => JSON.parse(v) as StoredUpstreamRecord)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
