// Presence on Redis (ports/presence.ts): per app, under its hash tag (one slot on a Cluster),
//   <base>|leases        sorted set: node id → when its lease ends (ms, Redis's clock)
//   <base>|n:<node>      hash: "<channel> <member>" → that node's count
//   <base>:<channel>     hash: member → connections over the nodes whose lease runs
// where <base> is keys.presence(app). Each call is one script: it reaps the nodes whose lease ended
// (their counts leave the totals), applies its own change, and publishes a `join` or `leave` on the
// feed whenever a total leaves or reaches 0, so the feed tells the changes in the order they were
// made. A dead node's keys are found through the leases, hence built in the script rather than
// declared (all of them carry the app's hash tag, so they are on the slot the script runs on).
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import { guarded } from "./guarded.js";
import { luaScript, runScript } from "./scripts.js";
import type { MemberKey, PresenceCount, PresenceStore, PresenceSync } from "../port.js";

// ARGV[1..4] of every script: base, feed channel, app, the calling node. A field of a node's hash
// is "<channel> <member>": channel names have no space, so the first one splits it.
const COMMON = `
local base, feed, app, self = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local leases = KEYS[1]
local function nodeKey(n) return base .. '|n:' .. n end
-- Adds d to the member's connections on the channel; a total that leaves 0 is a join, one that
-- comes back to 0 a leave (and is removed).
local function add(ch, m, d)
  if d == 0 then return end
  local key = base .. ':' .. ch
  local n = redis.call('HINCRBY', key, m, d)
  local joined
  if n <= 0 then
    redis.call('HDEL', key, m)
    if n - d > 0 then joined = 0 end
  elseif n - d <= 0 then
    joined = 1
  end
  if joined then redis.call('PUBLISH', feed, cjson.encode({t='p', app=app, ch=ch, m=m, j=joined})) end
end
local function removeNode(n)
  local nk = nodeKey(n)
  local entries = redis.call('HGETALL', nk)
  for i = 1, #entries, 2 do
    local f = entries[i]
    local at = string.find(f, ' ', 1, true)
    add(string.sub(f, 1, at - 1), string.sub(f, at + 1), -tonumber(entries[i + 1]))
  end
  redis.call('DEL', nk)
  redis.call('ZREM', leases, n)
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- Every other node whose lease has ended. The caller's own is renewed (or dropped) below.
for _, n in ipairs(redis.call('ZRANGEBYSCORE', leases, '-inf', '(' .. now)) do
  if n ~= self then removeNode(n) end
end
`;

// ARGV[5]: lease ms, ARGV[6]: '1' when full; then channel, member, count per entry.
// Returns {lost, held}.
const SYNC = luaScript(
  1,
  `${COMMON}
local nk = nodeKey(self)
local full = ARGV[6] == '1'
local existed = redis.call('EXISTS', nk) == 1
if full and existed then
  -- Every count the node has is below: any other entry of its is gone.
  local sent = {}
  for i = 7, #ARGV, 3 do sent[ARGV[i] .. ' ' .. ARGV[i + 1]] = true end
  local entries = redis.call('HGETALL', nk)
  for i = 1, #entries, 2 do
    local f = entries[i]
    if not sent[f] then
      local at = string.find(f, ' ', 1, true)
      add(string.sub(f, 1, at - 1), string.sub(f, at + 1), -tonumber(entries[i + 1]))
      redis.call('HDEL', nk, f)
    end
  end
end
for i = 7, #ARGV, 3 do
  local ch, m, c = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local f = ch .. ' ' .. m
  local old = tonumber(redis.call('HGET', nk, f) or '0')
  if c > 0 then redis.call('HSET', nk, f, c) else redis.call('HDEL', nk, f) end
  add(ch, m, c - old)
end
local held = redis.call('EXISTS', nk) == 1
if held then
  redis.call('ZADD', leases, now + tonumber(ARGV[5]), self)
else
  redis.call('ZREM', leases, self)
end
return {((not existed) and (not full)) and 1 or 0, held and 1 or 0}`,
);

// ARGV[5]: the channel. Returns its totals (HGETALL's flat list).
const MEMBERS = luaScript(1, `${COMMON}\nreturn redis.call('HGETALL', base .. ':' .. ARGV[5])`);

const DROP = luaScript(1, `${COMMON}\nremoveNode(self)\nreturn 1`);

export class RedisPresence implements PresenceStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  private args(app: string, node: string): [string, string, string, string, string] {
    const base = this.keys.presence(app);
    return [`${base}|leases`, base, this.keys.feed, app, node];
  }

  async sync(
    node: string,
    app: string,
    counts: PresenceCount[],
    opts: { full: boolean; leaseMs: number },
  ): Promise<PresenceSync> {
    const entries = counts.flatMap((c) => [c.channel, c.member, c.count]);
    const [lost, held] = (await guarded(() =>
      runScript(this.redis, SYNC, ...this.args(app, node), opts.leaseMs, opts.full ? "1" : "0", ...entries),
    )) as [number, number];
    return { lost: lost === 1, held: held === 1 };
  }

  async members(
    app: string,
    channel: string,
    node: string,
  ): Promise<Array<{ member: MemberKey; connections: number }>> {
    const flat = (await guarded(() => runScript(this.redis, MEMBERS, ...this.args(app, node), channel))) as string[];
    const out: Array<{ member: MemberKey; connections: number }> = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ member: flat[i]!, connections: Number(flat[i + 1]) });
    return out;
  }

  async drop(node: string, app: string): Promise<void> {
    await guarded(() => runScript(this.redis, DROP, ...this.args(app, node)));
  }
}
