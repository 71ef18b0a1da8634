// The Redis store's part for email: single-use links (GETDEL: atomic take) and the index of users
// by address (one set per address).
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
    await guarded(() =>
      this.redis.set(this.keys.mailLink(tokenHash), JSON.stringify(record), "EX", Math.max(1, ttlSeconds)),
    );
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
