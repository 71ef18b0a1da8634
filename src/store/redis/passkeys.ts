// The Redis store's passkeys: one hash per user (credential id → JSON record) and an index from
// credential id to user; and the WebAuthn challenges, taken with GETDEL (one use, any node).
import { luaScript, runScript } from "./scripts.js";
import { guarded } from "./guarded.js";
import { REMOVE_UNLESS_LAST, unlessLast } from "./upstream-links.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type { PasskeyChange, PasskeyRecord, PasskeyStore } from "../port.js";
import { changedPasskey } from "../port.js";

/**
 * HSET only while the field holds what was read (a compare-and-set: a passkey removed or changed
 * meanwhile is not overwritten); ARGV id, the value read, the new value.
 */
const SET_IF = luaScript(
  1,
  `if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) return 1 end return 0`,
);

/** How often an update reads again before giving up (each retry means another write succeeded). */
const MAX_ATTEMPTS = 1000;

export class RedisPasskeys implements PasskeyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async add(p: PasskeyRecord) {
    const owner = this.keys.passkeyOwner(p.id);
    if ((await guarded(() => this.redis.set(owner, p.userId, "NX"))) !== "OK") return false;
    await guarded(() => this.redis.hset(this.keys.passkeys(p.userId), p.id, JSON.stringify(p)));
    return true;
  }
  async listForUser(userId: string) {
    const all = await guarded(() => this.redis.hgetall(this.keys.passkeys(userId)));
    return Object.values(all)
      .map((v) => JSON.parse(v) as PasskeyRecord)
      .sort((a, b) => a.createdAt - b.createdAt);
  }
  async byId(id: string) {
    const userId = await guarded(() => this.redis.get(this.keys.passkeyOwner(id)));
    if (userId === null) return null;
    const raw = await guarded(() => this.redis.hget(this.keys.passkeys(userId), id));
    return raw === null ? null : (JSON.parse(raw) as PasskeyRecord);
  }
  /** Optimistic, as RedisAccounts.update: read, change, compare-and-set; read again when another write came between. */
  async update(userId: string, id: string, change: PasskeyChange) {
    const key = this.keys.passkeys(userId);
    for (let attempt = 0; ; attempt++) {
      const raw = await guarded(() => this.redis.hget(key, id));
      if (raw === null) return null;
      const current = JSON.parse(raw) as PasskeyRecord;
      const next = changedPasskey(current, change);
      if (!next) return current;
      if ((await guarded(() => runScript(this.redis, SET_IF, key, id, raw, JSON.stringify(next)))) === 1) return next;
      if (attempt >= MAX_ATTEMPTS) throw new Error(`passkey of ${userId}: too many writes at once`);
    }
  }
  async remove(userId: string, id: string) {
    const n = await guarded(() => this.redis.hdel(this.keys.passkeys(userId), id));
    if (n === 0) return false;
    await guarded(() => this.redis.del(this.keys.passkeyOwner(id)));
    return true;
  }
  async removeUnlessLast(userId: string, id: string) {
    const mine = this.keys.passkeys(userId);
    const done = unlessLast(
      await guarded(() => runScript(this.redis, REMOVE_UNLESS_LAST, mine, this.keys.upstreamLinks(userId), id)),
    );
    if (done === "removed") await guarded(() => this.redis.del(this.keys.passkeyOwner(id)));
    return done;
  }
  async removeForUser(userId: string) {
    const ids = await guarded(() => this.redis.hkeys(this.keys.passkeys(userId)));
    await guarded(() => this.redis.del(this.keys.passkeys(userId)));
    for (const id of ids) await guarded(() => this.redis.del(this.keys.passkeyOwner(id)));
    return ids.length;
  }
  async saveChallenge(challenge: string, state: string, ttlSeconds: number) {
    await guarded(() => this.redis.set(this.keys.webauthnChallenge(challenge), state, "EX", ttlSeconds));
  }
  async takeChallenge(challenge: string) {
    return guarded(() => this.redis.getdel(this.keys.webauthnChallenge(challenge)));
  }
}
