// The Redis store's sessions (express-session's JSON, with its TTL) and each user's list of them.
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type { SessionOwner, SessionStore, SessionSummary } from "../port.js";
import { bySeen, summaryOf } from "../port.js";

export class RedisSessions implements SessionStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}
  async get(sid: string) {
    return guarded(() => this.redis.get(this.keys.session(sid)));
  }
  async set(sid: string, data: string, ttlSeconds: number, owner?: SessionOwner) {
    const ttl = Math.max(1, ttlSeconds);
    const key = this.keys.session(sid);
    if (!owner) {
      await guarded(() => this.redis.set(key, data, "EX", ttl));
      return;
    }
    // A write to an existing session (create: false) never brings back one that was signed out.
    const ok = await guarded(() =>
      owner.create ? this.redis.set(key, data, "EX", ttl) : this.redis.set(key, data, "EX", ttl, "XX"),
    );
    if (ok !== "OK") return;
    const expiresAt = Date.now() + ttl * 1000;
    const index = this.keys.userSessions(owner.userId);
    // The index lives as long as the user's last session: NX gives a fresh index its expiry, GT
    // moves it later (one key, one MULTI).
    await guarded(() =>
      this.redis
        .multi()
        .hset(index, sid, JSON.stringify(summaryOf(sid, owner, expiresAt)))
        .pexpireat(index, expiresAt, "NX")
        .pexpireat(index, expiresAt, "GT")
        .exec(),
    );
  }
  async destroy(sid: string, userId?: string) {
    await guarded(() => this.redis.del(this.keys.session(sid)));
    if (userId !== undefined) await guarded(() => this.redis.hdel(this.keys.userSessions(userId), sid));
  }
  /** The index's entries; those whose session ended are dropped (cleanup on read). */
  private async entries(userId: string): Promise<SessionSummary[]> {
    const index = this.keys.userSessions(userId);
    const raw = await guarded(() => this.redis.hgetall(index));
    const now = Date.now();
    const all = Object.entries(raw).map(([sid, json]) => {
      let s: SessionSummary | null;
      try {
        s = JSON.parse(json) as SessionSummary;
      } catch {
        s = null;
      }
      return { sid, s };
    });
    // Each session key has its own hash tag: one EXISTS each (Cluster-safe), at once.
    const live = await guarded(() =>
      Promise.all(all.map((e) => (e.s && e.s.expiresAt > now ? this.redis.exists(this.keys.session(e.sid)) : 0))),
    );
    const ended = all.filter((_, i) => live[i] !== 1).map((e) => e.sid);
    if (ended.length > 0) await guarded(() => this.redis.hdel(index, ...ended));
    return all.filter((_, i) => live[i] === 1).map((e) => e.s!);
  }
  async listForUser(userId: string) {
    return (await this.entries(userId)).sort(bySeen);
  }
  async destroyForUser(userId: string, exceptSid?: string) {
    const index = this.keys.userSessions(userId);
    const sids = (await guarded(() => this.redis.hkeys(index))).filter((sid) => sid !== exceptSid);
    if (sids.length === 0) return [];
    const gone = await guarded(() => Promise.all(sids.map((sid) => this.redis.del(this.keys.session(sid)))));
    await guarded(() => this.redis.hdel(index, ...sids));
    // DEL answers 1 to one caller only: the sessions this call ended.
    return sids.filter((_, i) => gone[i] === 1);
  }
}

/** The CORS origins (corsOriginKey) of a public client's redirect URLs; none for a confidential one. */
