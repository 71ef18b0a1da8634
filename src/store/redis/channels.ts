// Redis side of an app's channels' histories (docs/realtime.md#channel-history): a Stream per
// (app, channel), appended, trimmed and read as the app's event history is (realtime.ts), and
// forgotten once idle. Every script touches one hash tag, the app's (Redis Cluster).
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import { guarded } from "./guarded.js";
import { ReplicaWait } from "./replica-wait.js";
import { READ_STREAM, TRIM, TRIM_BY_TIME, completeAfter, fieldsOf, restoreHorizon } from "./realtime.js";
import {
  compareEventIds,
  type ChannelLog,
  type ChannelMessage,
  type ChannelRead,
  type HistoryLimits,
} from "../port.js";

// KEYS: the app's channels by time (channelsAt), its forgotten horizon (channelsForgotten), then
// per message its channel's stream, cut, oldest and last. ARGV: maxEvents, ttlMs, feed channel,
// app, then per message its channel, data and time. Each message is appended and trimmed as an
// event is (one stream per channel), and published on the feed in the same step. Returns the ids
// in order.
//
// A channel's stream expires HISTORY_TTL (and a second) after its last message, when every message
// in it is past the age bound and no read would give any: an idle channel holds no messages
// (docs/realtime.md#channel-history). `last` (the newest id issued) keeps that exact: a read of an
// expired stream answers as one whose every message was trimmed (the cut is the last id), and the
// next message sets the cut so before it starts a new stream.
//
// Twice HISTORY_TTL (and a second) after its last message the channel is forgotten: its cut,
// time bound and last id expire too, and its entry in channelsAt goes at the app's next publish,
// which keeps the newest last-message time of what it forgot (the horizon). A forgotten channel
// reads as one never used; when it is published to again its cut starts after the horizon (after
// its own last message, if its entry is still there), so a resume from an id it issued before is
// never told complete.
const PUBLISH = `${TRIM}
local ids = {}
local n = (#ARGV - 4) / 3
local ttlms = tonumber(ARGV[2])
local forgetms = 2 * ttlms + 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stale = redis.call('ZREVRANGEBYSCORE', KEYS[1], '(' .. (now - forgetms), '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
if #stale > 0 then
  local horizon = tonumber(redis.call('GET', KEYS[2]) or '0')
  if tonumber(stale[2]) > horizon then redis.call('SET', KEYS[2], stale[2]) end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - forgetms))
end
for i = 1, n do
  local stream, cut, oldest, lastk = KEYS[4 * i - 1], KEYS[4 * i], KEYS[4 * i + 1], KEYS[4 * i + 2]
  local ch, data, at = ARGV[3 * i + 2], ARGV[3 * i + 3], ARGV[3 * i + 4]
  local after = nil
  if redis.call('EXISTS', stream) == 0 then
    local expired = redis.call('GET', lastk)
    if expired then
      after = expired
    else
      local known = redis.call('ZSCORE', KEYS[1], ch) or redis.call('GET', KEYS[2])
      if known then after = string.format('%d-0', tonumber(known) + 1) end
    end
  end
  local id = redis.call('XADD', stream, '*', 'd', data, 't', at)
  if after then redis.call('SET', cut, after) end
  trimStream(stream, cut, oldest, ARGV[1], ARGV[2])
  redis.call('SET', lastk, id, 'PX', forgetms)
  redis.call('PEXPIRE', stream, ttlms + 1000)
  redis.call('PEXPIRE', cut, forgetms)
  redis.call('PEXPIRE', oldest, forgetms)
  redis.call('ZADD', KEYS[1], string.match(id, '^%d+'), ch)
  redis.call('PUBLISH', ARGV[3], cjson.encode({t='m', app=ARGV[4], ch=ch, id=id, d=data, at=at}))
  ids[i] = id
end
return ids`;

// KEYS: a channel's stream, cut, oldest, last. ARGV: since, count, ttlMs. As READ_AFTER, but a
// stream that expired idle (PUBLISH) reads as one trimmed whole: no messages, cut = last = its
// newest id.
const READ_CHANNEL = `${TRIM_BY_TIME}
if redis.call('EXISTS', KEYS[1]) == 0 then
  local last = redis.call('GET', KEYS[4])
  if last then return {last, {}, last} end
  return {'', {}, '0-0'}
end
${READ_STREAM}`;

type Scripted = RedisClient & {
  sigilChPublish(numKeys: number, ...args: Array<string | number>): Promise<string[]>;
  sigilChRead(
    stream: string,
    cut: string,
    oldest: string,
    last: string,
    since: string,
    count: number,
    ttlMs: number,
  ): Promise<[string, Array<[string, string[]]>, string]>;
};

function withScripts(redis: RedisClient): Scripted {
  const r = redis as Scripted;
  if (typeof r.sigilChPublish !== "function") {
    // The number of keys varies with the batch: given first on each call.
    redis.defineCommand("sigilChPublish", { lua: PUBLISH });
    redis.defineCommand("sigilChRead", { numberOfKeys: 4, lua: READ_CHANNEL });
  }
  return r;
}

export class RedisChannelLog implements ChannelLog {
  private readonly redis: Scripted;
  constructor(
    redis: RedisClient,
    private readonly keys: Keyspace,
    /** A published message is an acknowledged write (REDIS_WAIT_REPLICAS), as an event is. */
    private readonly acked: ReplicaWait = new ReplicaWait(undefined),
  ) {
    this.redis = withScripts(redis);
    for (const w of acked.writers) withScripts(w);
  }

  private streamKeys(app: string, channel: string): [string, string, string, string] {
    return [...channelKeys(this.keys, app, channel), channelLastKey(this.keys, app, channel)];
  }

  async publish(app: string, messages: Array<Omit<ChannelMessage, "id">>, limits: HistoryLimits): Promise<string[]> {
    if (messages.length === 0) return [];
    const keys = [
      this.keys.channelsAt(app),
      this.keys.channelsForgotten(app),
      ...messages.flatMap((m) => this.streamKeys(app, m.channel)),
    ];
    const args = [
      limits.maxEvents,
      Math.round(limits.ttlSeconds * 1000),
      this.keys.feed,
      app,
      ...messages.flatMap((m) => [m.channel, m.data, m.at]),
    ];
    return this.acked.write(this.redis, (c) => c.sigilChPublish(keys.length, ...keys, ...args));
  }

  async readAfter(
    app: string,
    channel: string,
    since: string,
    count: number,
    limits: HistoryLimits,
  ): Promise<ChannelRead> {
    const [stream, cutKey, oldestKey, lastKey] = this.streamKeys(app, channel);
    const ttlMs = Math.round(limits.ttlSeconds * 1000);
    const [[cut, entries, last], horizon] = await guarded(() =>
      Promise.all([
        this.redis.sigilChRead(stream, cutKey, oldestKey, lastKey, since, count, ttlMs),
        restoreHorizon(this.redis, this.keys),
      ]),
    );
    const messages = entries.map(([id, fields]) => {
      const f = fieldsOf(fields);
      return { id, channel, data: f.d ?? "null", at: f.t ?? "" };
    });
    if (compareEventIds(since, last) > 0) return { messages, complete: false, ahead: true };
    return { messages, complete: completeAfter(since, cut, horizon) };
  }

  async deleteAll(app: string): Promise<void> {
    const channels = await channelNamesOf(this.redis, this.keys, app);
    // Every key shares the app's hash tag; in batches, to keep each command small.
    for (let i = 0; i < channels.length; i += 100) {
      const keys = channels.slice(i, i + 100).flatMap((ch) => this.streamKeys(app, ch));
      await guarded(() => this.redis.del(...keys));
    }
    const k = this.keys;
    await guarded(() => this.redis.del(k.channelNames(app), k.channelsAt(app), k.channelsForgotten(app)));
  }
}

/** The app's channels with a history or its bookkeeping (and those a store of an earlier version listed), by name. */
export async function channelNamesOf(redis: RedisClient, keys: Keyspace, app: string): Promise<string[]> {
  const [listed, timed] = await guarded(() =>
    Promise.all([redis.smembers(keys.channelNames(app)), redis.zrange(keys.channelsAt(app), "0", "-1")]),
  );
  return [...new Set([...listed, ...timed])].sort();
}

/** A channel's stream, its cut (newest id trimmed away) and its oldest-time bound: one hash tag, the app's. */
export function channelKeys(keys: Keyspace, app: string, channel: string): [string, string, string] {
  const stream = keys.channel(app, channel);
  return [stream, `${stream}|cut`, `${stream}|oldest`];
}

/** The newest id a channel's stream issued, kept when the stream expires idle (PUBLISH). */
export const channelLastKey = (keys: Keyspace, app: string, channel: string): string =>
  `${keys.channel(app, channel)}|last`;
