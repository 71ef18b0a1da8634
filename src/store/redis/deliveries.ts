// The Redis store's delivery queue (docs/events.md#delivery): a hash of deliveries by id and a
// sorted set of their ids by when they are due, under one hash tag, so that a take (a Lua script:
// the due ids, each leased by moving its time on) is atomic among every node; each app's list of
// attempts is a capped list under the app's tag.
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type { AccessChange, Delivery, DeliveryAttempt, DeliveryStore, IdentityFeed, IdentityNotice } from "../port.js";

// KEYS: items, due. ARGV: now, limit, leased until. The deliveries taken (JSON, as queued).
const TAKE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  local raw = redis.call('HGET', KEYS[1], id)
  if raw then
    redis.call('ZADD', KEYS[2], ARGV[3], id)
    out[#out + 1] = raw
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return out`;

type Scripted = RedisClient & {
  sigilDeliveriesTake(items: string, due: string, now: number, limit: number, until: number): Promise<string[]>;
};

export class RedisDeliveries implements DeliveryStore {
  private readonly redis: Scripted;
  constructor(
    redis: RedisClient,
    private readonly keys: Keyspace,
  ) {
    this.redis = redis as Scripted;
    if (typeof this.redis.sigilDeliveriesTake !== "function")
      redis.defineCommand("sigilDeliveriesTake", { numberOfKeys: 2, lua: TAKE });
  }

  async enqueue(deliveries: Delivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const k = this.keys;
    // Two commands however many (a publish of 100 messages to a webhook channel is 100), in one MULTI.
    const fields = deliveries.flatMap((d) => [d.id, JSON.stringify(d)]);
    const due = deliveries.flatMap((d) => [d.dueAt, d.id]);
    await guarded(() =>
      this.redis
        .multi()
        .hset(k.deliveries, ...fields)
        .zadd(k.deliveriesDue, ...due)
        .exec(),
    );
  }

  async take(now: number, limit: number, leaseMs: number): Promise<Delivery[]> {
    const k = this.keys;
    const raw = await guarded(() =>
      this.redis.sigilDeliveriesTake(k.deliveries, k.deliveriesDue, now, limit, now + leaseMs),
    );
    return raw.map((r) => JSON.parse(r) as Delivery);
  }

  async complete(id: string): Promise<void> {
    const k = this.keys;
    await guarded(() => this.redis.multi().hdel(k.deliveries, id).zrem(k.deliveriesDue, id).exec());
  }

  async retry(d: Delivery): Promise<void> {
    const k = this.keys;
    await guarded(() =>
      this.redis.multi().hset(k.deliveries, d.id, JSON.stringify(d)).zadd(k.deliveriesDue, d.dueAt, d.id).exec(),
    );
  }

  async record(app: string, attempt: DeliveryAttempt, keep: number): Promise<void> {
    const key = this.keys.deliveryLog(app);
    await guarded(() =>
      this.redis
        .multi()
        .lpush(key, JSON.stringify(attempt))
        .ltrim(key, 0, keep - 1)
        .exec(),
    );
  }

  async recent(app: string): Promise<DeliveryAttempt[]> {
    const raw = await guarded(() => this.redis.lrange(this.keys.deliveryLog(app), 0, -1));
    return raw.map((r) => JSON.parse(r) as DeliveryAttempt);
  }

  async forgetApp(app: string): Promise<void> {
    await guarded(() => this.redis.del(this.keys.deliveryLog(app)));
  }
}

/** Identity events on the feed channel every node subscribes to (redis/realtime.ts reads them). */
export class RedisIdentityFeed implements IdentityFeed {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}
  async publish(app: string, n: IdentityNotice): Promise<void> {
    const message = JSON.stringify({ t: "i", app, ty: n.type, sub: n.sub, at: n.at });
    await guarded(() => this.redis.publish(this.keys.feed, message));
  }
  async accessChanged(c: AccessChange): Promise<void> {
    // Absent members are left out by JSON.stringify.
    const message = JSON.stringify({ t: "a", u: c.user, app: c.app, g: c.grant });
    await guarded(() => this.redis.publish(this.keys.feed, message));
  }
}
