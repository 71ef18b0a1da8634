// The Redis store's upstream links: one hash per user (identity → JSON record) and an index from
// identity to user, claimed with SET NX so that an identity is linked to one account only, even
// when two sign-ins through it arrive at once. usersOf() (an admin's confirmation, rare) scans every
// master for the users' hashes: no index by upstream is kept for it.
import { guarded } from "./guarded.js";
import { globEscape, keysOn, masters } from "./scan.js";
import { luaScript, runScript } from "./scripts.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import { identityKey, oldestFirst, type UnlessLast, type UpstreamLinkRecord, type UpstreamLinkStore } from "../port.js";

/**
 * HDEL a field of KEYS[1] only while KEYS[1] and KEYS[2] together keep another one, in one step:
 * a user's way in removed while another remains (their links and passkeys: one hash slot,
 * {user}; also RedisPasskeys.removeUnlessLast, the keys the other way round). ARGV: the field.
 * 1 removed, 0 the last way in, -1 no such field.
 */
export const REMOVE_UNLESS_LAST = luaScript(
  2,
  `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return -1 end
if redis.call('HLEN', KEYS[1]) + redis.call('HLEN', KEYS[2]) <= 1 then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1]) return 1`,
);
/** REMOVE_UNLESS_LAST's answer. */
export const unlessLast = (n: unknown): UnlessLast => (n === 1 ? "removed" : n === 0 ? "last" : "unknown");

export class RedisUpstreamLinks implements UpstreamLinkStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async link(l: UpstreamLinkRecord) {
    const key = identityKey(l.issuer, l.subject);
    if ((await guarded(() => this.redis.set(this.keys.upstreamOwner(key), l.userId, "NX"))) !== "OK") return false;
    await guarded(() => this.redis.hset(this.keys.upstreamLinks(l.userId), key, JSON.stringify(l)));
    return true;
  }
  async byIdentity(issuer: string, subject: string) {
    const key = identityKey(issuer, subject);
    const userId = await guarded(() => this.redis.get(this.keys.upstreamOwner(key)));
    if (userId === null) return null;
    const raw = await guarded(() => this.redis.hget(this.keys.upstreamLinks(userId), key));
    return raw === null ? null : (JSON.parse(raw) as UpstreamLinkRecord);
  }
  async listForUser(userId: string) {
    const all = await guarded(() => this.redis.hgetall(this.keys.upstreamLinks(userId)));
    return Object.values(all)
      .map((v) => JSON.parse(v) as UpstreamLinkRecord)
      .sort(oldestFirst);
  }
  async usersOf(upstream: string) {
    const head = this.keys.upstreamLinks("").slice(0, -1); // "<prefix>:upstream-links:{"
    const users = new Set<string>();
    for (const node of masters(this.redis)) {
      for await (const keys of keysOn(node, `${globEscape(head)}*}`)) {
        for (const key of keys) {
          for (const v of await guarded(() => node.hvals(key))) {
            const l = JSON.parse(v) as UpstreamLinkRecord;
            if (l.upstream === upstream) users.add(l.userId);
          }
        }
      }
    }
    return [...users];
  }
  async unlink(userId: string, issuer: string, subject: string) {
    const key = identityKey(issuer, subject);
    const n = await guarded(() => this.redis.hdel(this.keys.upstreamLinks(userId), key));
    if (n === 0) return false;
    await guarded(() => this.redis.del(this.keys.upstreamOwner(key)));
    return true;
  }
  async unlinkUnlessLast(userId: string, issuer: string, subject: string) {
    const key = identityKey(issuer, subject);
    const links = this.keys.upstreamLinks(userId);
    const done = unlessLast(
      await guarded(() => runScript(this.redis, REMOVE_UNLESS_LAST, links, this.keys.passkeys(userId), key)),
    );
    // The identity's claim goes after its link (as unlink): until then it still names this user.
    if (done === "removed") await guarded(() => this.redis.del(this.keys.upstreamOwner(key)));
    return done;
  }
  async removeForUser(userId: string) {
    const ids = await guarded(() => this.redis.hkeys(this.keys.upstreamLinks(userId)));
    await guarded(() => this.redis.del(this.keys.upstreamLinks(userId)));
    for (const id of ids) await guarded(() => this.redis.del(this.keys.upstreamOwner(id)));
    return ids.length;
  }
}
