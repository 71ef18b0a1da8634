// The Lua scripts of the Redis store's grants (grants.ts): each decides one step of a code, a
// refresh token or a consent atomically, over keys of one hash tag.
import { luaScript } from "./scripts.js";
import { ADD_ENTRY_LUA } from "./app-grants.js";

export const TAKE_CODE = luaScript(
  2,
  `
if redis.call('GET', KEYS[2]) == 'revoked' then
  redis.call('DEL', KEYS[1])
  return {'revoked'}
end
local c = redis.call('GET', KEYS[1])
if c then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], 'ok', 'EX', ARGV[1])
  return {'first', c}
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('SET', KEYS[2], 'revoked', 'KEEPTTL')
  return {'replay'}
end
return {'unknown'}`,
);

// Registers a code with the consent it was issued under, while that consent holds: KEYS[1] the
// user's consents, KEYS[2] the consent's codes, KEYS[3] the apps the user used (same tag); ARGV
// client id, code hash, now (ms), until (ms). Entries past their time are dropped on the way, so
// the set holds only live ones.
export const REGISTER_CODE = luaScript(
  3,
  `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
local ttl = tonumber(ARGV[4]) - tonumber(ARGV[3])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1`,
);

// Withdraws a consent and returns whether it removed it ("1"/"0"), then the codes registered with it (same keys as REGISTER_CODE;
// ARGV client id, now). The set is kept until every code in it is revoked (a retry finds them).
export const WITHDRAW = luaScript(
  2,
  `
local removed = redis.call('SREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
local codes = redis.call('ZRANGE', KEYS[2], 0, -1)
table.insert(codes, 1, tostring(removed))
return codes`,
);

// Revokes one code and its grant: KEYS[1] code, KEYS[2] its mark (same tag), ARGV[1] mark TTL for
// a mark not there yet (an existing one keeps its own: a grant with refresh tokens needs it long).
// The mark is the one a replay sets, so the token check on GET /auth/user stays what it was.
export const REVOKE_CODE = luaScript(
  2,
  `
redis.call('DEL', KEYS[1])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('SET', KEYS[2], 'revoked', 'KEEPTTL')
else
  redis.call('SET', KEYS[2], 'revoked', 'EX', ARGV[1])
end
return 1`,
);

// The first refresh token of a grant: KEYS[1] the grant's mark, KEYS[2] the token's hash, KEYS[3]
// the grant's chain (same tag); ARGV record JSON, client id, now (ms), the grant's end (ms), the
// token's hash. The mark lives until the end. No mark: the code's taking left one, so the grant
// was deleted meanwhile (its app's deletion): nothing is saved.
export const START_REFRESH = luaScript(
  3,
  `
local mark = redis.call('GET', KEYS[1])
if mark ~= 'ok' then return 0 end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) - tonumber(ARGV[3]) then
  redis.call('PEXPIREAT', KEYS[1], ARGV[4])
end
redis.call('HSET', KEYS[2], 'rec', ARGV[1], 'client', ARGV[2], 'iat', ARGV[3], 'until', ARGV[4], 'used', '0')
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
redis.call('SADD', KEYS[3], ARGV[5])
if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[4]) - tonumber(ARGV[3]) then
  redis.call('PEXPIREAT', KEYS[3], ARGV[4])
end
return 1`,
);

// Rotation: KEYS[1] the presented token, KEYS[2] the grant's mark, KEYS[3] the next token, KEYS[4]
// the grant's chain (one tag: the grant); ARGV client id, now (ms), the next token's hash. Used
// once already: the grant is revoked (reuse). A
// used token keeps client, used and until only (what reuse detection reads): a month of hourly
// rotations leaves small entries.
export const ROTATE_REFRESH = luaScript(
  4,
  `
local t = redis.call('HMGET', KEYS[1], 'rec', 'client', 'used', 'until')
if not t[2] or t[2] ~= ARGV[1] then return {'unknown'} end
if redis.call('GET', KEYS[2]) == 'revoked' then return {'revoked'} end
local untilMs = t[4]
if t[3] == '1' then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('SET', KEYS[2], 'revoked', 'KEEPTTL')
  else
    redis.call('SET', KEYS[2], 'revoked', 'PXAT', untilMs)
  end
  return {'reused'}
end
redis.call('HSET', KEYS[1], 'used', '1')
redis.call('HDEL', KEYS[1], 'rec', 'iat')
redis.call('HSET', KEYS[3], 'rec', t[1], 'client', ARGV[1], 'iat', ARGV[2], 'until', untilMs, 'used', '0')
redis.call('PEXPIREAT', KEYS[3], untilMs)
redis.call('SADD', KEYS[4], ARGV[3])
if redis.call('PTTL', KEYS[4]) < tonumber(untilMs) - tonumber(ARGV[2]) then
  redis.call('PEXPIREAT', KEYS[4], untilMs)
end
return {'rotated', t[1]}`,
);

// An app's deletion, for one grant of it (one tag: the grant): KEYS[1] the code, KEYS[2] its mark,
// KEYS[3] the chain; ARGV[1] the prefix of the grant's refresh token keys. Deletes the code, the
// mark and every refresh token of the chain at once, and returns the chain (whose lookup keys and
// user index entries live elsewhere): a rotation after this finds its token gone.
export const FORGET_GRANT = luaScript(
  3,
  `
local chain = redis.call('SMEMBERS', KEYS[3])
for _, h in ipairs(chain) do redis.call('DEL', ARGV[1] .. h) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return chain`,
);

// An app's deletion, for one user (one tag: the user): KEYS[1] consents, KEYS[2] consent scopes,
// KEYS[3] the consent's codes, KEYS[4] the apps the user used; ARGV[1] the client id.
export const FORGET_CONSENT = luaScript(
  4,
  `
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
redis.call('SREM', KEYS[4], ARGV[1])
return 1`,
);

// An access token, saved only while its app exists: KEYS[1] the app, KEYS[2] the token, KEYS[3]
// the app's users, KEYS[4] the user's entries (one tag: the client id); ARGV token JSON, TTL (s),
// entry, until (ms), now (ms), user id.
export const SAVE_TOKEN = luaScript(
  4,
  `${ADD_ENTRY_LUA}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
add(KEYS[4], ARGV[4], ARGV[3], ARGV[5])
add(KEYS[3], ARGV[4], ARGV[6], ARGV[5])
return 1`,
);

// Notes an access token under its user: KEYS[1] the user's tokens (score: until, ms), KEYS[2] the
// apps the user used (one tag: the user); ARGV the token's key, until (ms), now (ms), client id.
// Entries past their time go; the index lives as long as its last token.
export const INDEX_TOKEN = luaScript(
  2,
  `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2], 'NX')
redis.call('PEXPIREAT', KEYS[1], ARGV[2], 'GT')
redis.call('SADD', KEYS[2], ARGV[4])
return 1`,
);

// Revokes a grant by its mark alone (KEYS[1]); ARGV[1] TTL for a mark not there yet.
export const REVOKE_GRANT = luaScript(
  1,
  `
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('SET', KEYS[1], 'revoked', 'KEEPTTL')
else
  redis.call('SET', KEYS[1], 'revoked', 'EX', ARGV[1])
end
return 1`,
);

// The live codes of a consent, for revoking them without withdrawing it (same keys as REGISTER_CODE).
export const LIVE_CODES = luaScript(
  1,
  `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZRANGE', KEYS[1], 0, -1)`,
);
