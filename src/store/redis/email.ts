// The Redis store's part for email: single-use links (GETDEL: atomic take) with the index of each
// user's links (for account deletion), and the index of users by address (one set per address).
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type { EmailStore, MailLinkRecord } from "../port.js";

const parse = (raw: string | null): MailLinkRecord | null =>
  raw === null ? null : (JSON.parse(raw) as MailLinkRecord);

export class RedisEmail implements EmailStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async saveLink(tokenHash: string, record: MailLinkRecord, ttlSeconds: number) {
    const ttl = Math.max(1, ttlSeconds);
    const endsAt = Date.now() + ttl * 1000;
    const index = this.keys.mailLinksOf(record.userId);
    // The index first (one key, one MULTI: ended entries dropped, NX gives a fresh index its
    // expiry, GT moves it later), so that no stored link is ever missing from it.
    await guarded(() =>
      this.redis
        .multi()
        .zremrangebyscore(index, "-inf", String(Date.now()))
        .zadd(index, endsAt, tokenHash)
        .pexpireat(index, endsAt, "NX")
        .pexpireat(index, endsAt, "GT")
        .exec(),
    );
    await guarded(() => this.redis.set(this.keys.mailLink(tokenHash), JSON.stringify(record), "EX", ttl));
  }
  async removeLinksForUser(userId: string) {
    const index = this.keys.mailLinksOf(userId);
    const hashes = await guarded(() => this.redis.zrange(index, "0", "-1"));
    // Each link is its own hash tag (a Cluster shard of its own): one DEL each.
    await Promise.all(hashes.map((h) => guarded(() => this.redis.del(this.keys.mailLink(h)))));
    await guarded(() => this.redis.del(index));
  }
  async peekLink(tokenHash: string) {
    return parse(await guarded(() => this.redis.get(this.keys.mailLink(tokenHash))));
  }
  async takeLink(tokenHash: string) {
    return parse(await guarded(() => this.redis.getdel(this.keys.mailLink(tokenHash))));
  }
  async indexEmail(email: string, userId: string) {
    await guarded(() => this.redis.sadd(this.keys.emailUsers(email), userId));
  }
  async unindexEmail(email: string, userId: string) {
    await guarded(() => this.redis.srem(this.keys.emailUsers(email), userId));
  }
  async usersByEmail(email: string) {
    return guarded(() => this.redis.smembers(this.keys.emailUsers(email)));
  }
}
