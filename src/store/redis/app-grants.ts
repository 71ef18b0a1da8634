// The per-app index of what was issued for an app to its users (keys.appGrants), shared by the
// grant and consent-scope parts of the Redis store. A writer writes its records first, then
// registers them here in one script that checks the app still exists; when it does not, the
// writer undoes its own writes. An app's deletion deletes the app's key first, then reads this
// index: every record written before is registered by then, and every later one is undone by its
// writer, so that nothing about a deleted app is left, on Redis Cluster too (each key of a record
// has its own hash tag; only the app, this index and the app's access tokens share one).
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";

// KEYS[1] the app, KEYS[2] its index (same tag); ARGV[1] member, ARGV[2] until (ms, or "+inf"),
// ARGV[3] now (ms). Ended entries are dropped on the way; the index expires with its last entry.
export const REGISTER_ENTRY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
redis.call('ZADD', KEYS[2], 'GT', ARGV[2], ARGV[1])
local top = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2]
if top == 'inf' then redis.call('PERSIST', KEYS[2]) else redis.call('PEXPIREAT', KEYS[2], top) end
return 1`;

/** Registers one record of the app (see keys.appGrants for the members); false when the app is gone. */
export async function registerWithApp(
  redis: RedisClient,
  keys: Keyspace,
  clientId: string,
  member: string,
  until: number | "+inf",
): Promise<boolean> {
  const ok = await guarded(() =>
    redis.eval(
      REGISTER_ENTRY,
      2,
      keys.app(clientId),
      keys.appGrants(clientId),
      member,
      String(until),
      String(Date.now()),
    ),
  );
  return ok === 1;
}
