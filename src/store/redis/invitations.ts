// The Redis store's invitations (store/ports/invitations.ts): a hash of the records by id and a
// hash token hash → id, both under one hash tag ({invitations}, keys.ts), so that taking or
// revoking one is one script on one shard. Invitations are few: ended ones are dropped as the list
// is read (a hash field has no expiry of its own on every Redis version).
import { luaScript, runScript } from "./scripts.js";
import type { InvitationRecord, InvitationStore } from "../port.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";

// KEYS records, tokens; ARGV token hash. The record (removed with its index entry), or false.
const TAKE = luaScript(
  2,
  `
local id = redis.call('HGET', KEYS[2], ARGV[1])
if not id then return false end
local raw = redis.call('HGET', KEYS[1], id)
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[1], id)
return raw`,
);

// KEYS records, tokens; ARGV id. The record (removed with its index entry), or false.
const REVOKE = luaScript(
  2,
  `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], cjson.decode(raw).tokenHash)
return raw`,
);

const parse = (raw: unknown): InvitationRecord | null =>
  typeof raw === "string" ? (JSON.parse(raw) as InvitationRecord) : null;
const live = (r: InvitationRecord | null) => (r && r.expiresAt > Date.now() ? r : null);

export class RedisInvitations implements InvitationStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async save(record: InvitationRecord) {
    const k = this.keys;
    await guarded(() =>
      this.redis
        .multi()
        .hset(k.invitations, record.id, JSON.stringify(record))
        .hset(k.invitationTokens, record.tokenHash, record.id)
        .exec(),
    );
  }
  async list() {
    const all = Object.values(await guarded(() => this.redis.hgetall(this.keys.invitations))).map(
      (v) => JSON.parse(v) as InvitationRecord,
    );
    for (const r of all.filter((r) => !live(r))) await this.revoke(r.id); // ended: dropped
    return all.filter((r) => live(r)).sort((a, b) => a.createdAt - b.createdAt);
  }
  async peek(tokenHash: string) {
    const id = await guarded(() => this.redis.hget(this.keys.invitationTokens, tokenHash));
    return id === null ? null : live(parse(await guarded(() => this.redis.hget(this.keys.invitations, id))));
  }
  async take(tokenHash: string) {
    const k = this.keys;
    return live(parse(await guarded(() => runScript(this.redis, TAKE, k.invitations, k.invitationTokens, tokenHash))));
  }
  async revoke(id: string) {
    const k = this.keys;
    return parse(await guarded(() => runScript(this.redis, REVOKE, k.invitations, k.invitationTokens, id)));
  }
}
