// The per-app index of what was issued for an app to its users (keys.appGrants), shared by the
// grant and consent-scope parts of the Redis store. A writer writes its records first, then
// registers them here in one script that checks the app still exists; when it does not, the
// writer undoes its own writes. An app's deletion deletes the app's key first, then reads this
// index: every record written before is registered by then, and every later one is undone by its
// writer, so that nothing about a deleted app is left, on Redis Cluster too (each key of a record
// has its own hash tag; only the app, this index and the app's access tokens share one).
import { luaScript, runScript } from "./scripts.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";

// Lua: adds member with score until to the sorted set key, drops entries ended by now, and makes the
// set expire with its last entry (never while one is +inf).
export const ADD_ENTRY_LUA = `
local function add(key, score, member, now)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  redis.call('ZADD', key, 'GT', score, member)
  local top = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]
  if top == 'inf' then redis.call('PERSIST', key) else redis.call('PEXPIREAT', key, top) end
end
`;

// KEYS[1] the app, KEYS[2] its users, KEYS[3] the user's entries (one tag); ARGV[1] member,
// ARGV[2] until (ms, or "+inf"), ARGV[3] now (ms), ARGV[4] the user id.
export const REGISTER_ENTRY = luaScript(
  3,
  `${ADD_ENTRY_LUA}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
add(KEYS[3], ARGV[2], ARGV[1], ARGV[3])
add(KEYS[2], ARGV[2], ARGV[4], ARGV[3])
return 1`,
);

/** Registers one record of the app (see keys.appGrants for the members); false when the app is gone. */
export async function registerWithApp(
  redis: RedisClient,
  keys: Keyspace,
  clientId: string,
  userId: string,
  member: string,
  until: number | "+inf",
): Promise<boolean> {
  const ok = await guarded(() =>
    runScript(
      redis,
      REGISTER_ENTRY,
      keys.app(clientId),
      keys.appGrants(clientId),
      keys.appUserGrants(clientId, userId),
      member,
      String(until),
      String(Date.now()),
      userId,
    ),
  );
  return ok === 1;
}
