// Redis side of CUSTOM TOKENs and the app's event history (Streams); channels' histories are
// channels.ts, the feed itself feed.ts. Each write that other nodes must hear about publishes in the
// same Lua script, so the feed carries an app's events in id order. Every script touches one hash
// tag, the app's (Redis Cluster).
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import { guarded } from "./guarded.js";
import { ReplicaWait } from "./replica-wait.js";
import {
  compareEventIds,
  issuedBefore,
  type CustomTokenRecord,
  type CustomTokenStore,
  type EventLog,
  type HistoryLimits,
  type HistoryRead,
  type StoredEvent,
} from "../port.js";

// Time trimming, on Redis's clock (the one the ids come from): drops entries older than ttlMs
// and records the newest dropped id as the cut. Most calls drop nothing, and finding that out must
// cost next to nothing: `oldest` holds the time (ms) of the stream's oldest entry as last seen, a
// lower bound of the true one (ids only grow; a count trim only raises it), so while it is not
// older than the time cut nothing is, and the stream itself is not read. A range read (the reverse
// walk that finds the newest stale entry cost Redis ~60 µs on every append) runs only when an entry
// may really be stale, and then sets the bound afresh.
export const TRIM_BY_TIME = `
local function trimByTime(stream, cutKey, oldestKey, ttlms)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local minms = math.max(1, now - ttlms)
  local oldest = tonumber(redis.call('GET', oldestKey) or '0')
  if oldest >= minms then return end
  local first = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)
  if #first > 0 and tonumber(string.match(first[1][1], '^%d+')) < minms then
    local minid = string.format('%d', minms)
    local stale = redis.call('XREVRANGE', stream, '(' .. minid, '-', 'COUNT', 1)
    redis.call('SET', cutKey, stale[1][1])
    redis.call('XTRIM', stream, 'MINID', minid)
    first = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)
  end
  if #first > 0 then
    redis.call('SET', oldestKey, string.match(first[1][1], '^%d+'))
  else
    redis.call('DEL', oldestKey)
  end
end`;

/**
 * The end of a history read (KEYS: stream, cut, oldest; ARGV: since, count, ttlMs), once the stream
 * is known to exist: trimmed by time, then {cut, the entries after since, the newest id issued}.
 */
export const READ_STREAM = `trimByTime(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[3]))
local cut = redis.call('GET', KEYS[2]) or '0-0'
local last = '0-0'
local info = redis.call('XINFO', 'STREAM', KEYS[1])
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then last = info[i + 1] end
end
return {cut, redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+', 'COUNT', ARGV[2]), last}`;

// stream, cut, oldest: the app's history, the newest id ever trimmed away from it (neither key
// expires, so the cut is never forgotten), and the time bound of trimByTime. Count trimming is
// exact, in batches of 100, so the history keeps at least maxEvents and the cut is known exactly.
// Also used by the solve script (redis/challenges.ts), which appends the event of an owned
// challenge in the same step.
export const TRIM = `${TRIM_BY_TIME}
local function trimStream(stream, cut, oldest, maxEvents, ttlMs)
  local maxlen = tonumber(maxEvents)
  local n = redis.call('XLEN', stream)
  if n > maxlen + 100 then
    local old = redis.call('XRANGE', stream, '-', '+', 'COUNT', n - maxlen)
    redis.call('SET', cut, old[#old][1])
    redis.call('XTRIM', stream, 'MAXLEN', maxlen)
  end
  trimByTime(stream, cut, oldest, tonumber(ttlMs))
end`;

export const APPEND_EVENT = `${TRIM}
local function appendEvent(stream, cut, oldest, maxEvents, ttlMs, key, correct, at, channel, app)
  local id = redis.call('XADD', stream, '*', 'k', key, 'c', correct, 't', at)
  trimStream(stream, cut, oldest, maxEvents, ttlMs)
  redis.call('PUBLISH', channel, cjson.encode({t='e', app=app, id=id, k=key, c=correct, at=at}))
  return id
end`;

// KEYS: stream, cut, oldest. ARGV: maxEvents, ttlMs, key, correct, at, channel, app.
const APPEND = `${APPEND_EVENT}
return appendEvent(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7])`;

// KEYS: stream, cut, oldest. ARGV: since, count, ttlMs. Returns {cut, or '' when the app never had an
// event, the entries after since, and the newest id the stream ever issued}.
const READ_AFTER = `${TRIM_BY_TIME}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'', {}, '0-0'} end
${READ_STREAM}`;

const REVOKE = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local r = cjson.decode(raw)
r.r = 1
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(r))
redis.call('PUBLISH', ARGV[2], cjson.encode({t='r', id=ARGV[1]}))
return 1`;

type Scripted = RedisClient & {
  sigilEvAppend(key: string, cut: string, oldest: string, ...args: Array<string | number>): Promise<string>;
  sigilEvRead(
    key: string,
    cut: string,
    oldest: string,
    since: string,
    count: number,
    ttlMs: number,
  ): Promise<[string, Array<[string, string[]]>, string]>;
  sigilCtRevoke(key: string, id: string, channel: string): Promise<number>;
};

function withScripts(redis: RedisClient): Scripted {
  const r = redis as Scripted;
  if (typeof r.sigilEvAppend !== "function") {
    redis.defineCommand("sigilEvAppend", { numberOfKeys: 3, lua: APPEND });
    redis.defineCommand("sigilEvRead", { numberOfKeys: 3, lua: READ_AFTER });
    redis.defineCommand("sigilCtRevoke", { numberOfKeys: 1, lua: REVOKE });
  }
  return r;
}

interface StoredToken {
  n: string;
  c: number;
  e?: number;
  r?: number;
  /** May publish. */
  p?: 1;
  /** The channels it is limited to. */
  ch?: string[];
}

export class RedisCustomTokens implements CustomTokenStore {
  private readonly redis: Scripted;
  constructor(
    redis: RedisClient,
    private readonly keys: Keyspace,
    /** Issuing and revoking are acknowledged writes (REDIS_WAIT_REPLICAS): a lost revocation would revive a token. */
    private readonly acked: ReplicaWait = new ReplicaWait(undefined),
  ) {
    this.redis = withScripts(redis);
    for (const w of acked.writers) withScripts(w);
  }

  async create(r: CustomTokenRecord): Promise<void> {
    const doc: StoredToken = {
      n: r.name,
      c: r.createdAt,
      ...(r.expiresAt !== undefined ? { e: r.expiresAt } : {}),
      ...(r.publish === true ? { p: 1 as const } : {}),
      ...(r.channels !== undefined ? { ch: r.channels } : {}),
    };
    await this.acked.write(this.redis, (c) => c.hset(this.keys.customTokens(r.app), r.id, JSON.stringify(doc)));
  }

  async get(app: string, id: string): Promise<CustomTokenRecord | null> {
    const raw = await guarded(() => this.redis.hget(this.keys.customTokens(app), id));
    return raw === null ? null : toCustomTokenRecord(app, id, raw);
  }

  async list(app: string): Promise<CustomTokenRecord[]> {
    const all = await guarded(() => this.redis.hgetall(this.keys.customTokens(app)));
    return Object.entries(all).map(([id, raw]) => toCustomTokenRecord(app, id, raw));
  }

  async revoke(app: string, id: string): Promise<boolean> {
    const n = await this.acked.write(this.redis, (c) =>
      c.sigilCtRevoke(this.keys.customTokens(app), id, this.keys.feed),
    );
    return n === 1;
  }

  async deleteAll(app: string): Promise<void> {
    await guarded(() => this.redis.del(this.keys.customTokens(app)));
  }
}

export function toCustomTokenRecord(app: string, id: string, raw: string): CustomTokenRecord {
  const d = JSON.parse(raw) as StoredToken;
  return {
    id,
    app,
    name: d.n,
    createdAt: d.c,
    ...(d.e !== undefined ? { expiresAt: d.e } : {}),
    revoked: d.r === 1,
    ...(d.p === 1 ? { publish: true } : {}),
    ...(d.ch !== undefined ? { channels: d.ch } : {}),
  };
}

export class RedisEventLog implements EventLog {
  private readonly redis: Scripted;
  constructor(
    redis: RedisClient,
    private readonly keys: Keyspace,
    /** An appended event is an acknowledged write (REDIS_WAIT_REPLICAS). */
    private readonly acked: ReplicaWait = new ReplicaWait(undefined),
  ) {
    this.redis = withScripts(redis);
    for (const w of acked.writers) withScripts(w);
  }

  async deleteHistory(app: string): Promise<void> {
    // The keys share the app's hash tag.
    const k = this.keys;
    await guarded(() => this.redis.del(k.events(app), k.eventsCut(app), k.eventsOldest(app)));
  }

  async append(app: string, e: Omit<StoredEvent, "id">, limits: HistoryLimits): Promise<StoredEvent> {
    const ttlMs = Math.round(limits.ttlSeconds * 1000);
    const args = [limits.maxEvents, ttlMs, e.key, e.correct ? "1" : "0", e.at, this.keys.feed, app];
    const id = await this.acked.write(this.redis, (c) =>
      c.sigilEvAppend(this.keys.events(app), this.keys.eventsCut(app), this.keys.eventsOldest(app), ...args),
    );
    return { id, ...e };
  }

  async readAfter(app: string, since: string, count: number, limits: HistoryLimits): Promise<HistoryRead> {
    const [[cut, entries, last], horizon] = await guarded(() =>
      Promise.all([
        this.redis.sigilEvRead(
          this.keys.events(app),
          this.keys.eventsCut(app),
          this.keys.eventsOldest(app),
          since,
          count,
          Math.round(limits.ttlSeconds * 1000),
        ),
        restoreHorizon(this.redis, this.keys),
      ]),
    );
    const events = entries.map(([id, fields]) => {
      const f = fieldsOf(fields);
      return { id, key: f.k ?? "", correct: f.c === "1", at: f.t ?? "" };
    });
    if (compareEventIds(since, last) > 0) return { events, complete: false, ahead: true };
    return { events, complete: completeAfter(since, cut, horizon) };
  }
}

/**
 * The store's restore horizon (ms; 0: never restored), read with each history read rather than
 * kept: a restore is honoured at once by the nodes that run. Its key is of no app's hash tag, so
 * it is a GET beside the read's script (Redis Cluster), sent at the same time.
 */
export async function restoreHorizon(redis: RedisClient, keys: Keyspace): Promise<number> {
  return Number((await redis.get(keys.restoredAt)) ?? "0");
}

/**
 * Whether a read after `since` is complete: the history exists (`cut` not ""), nothing after
 * `since` was trimmed, and `since` was not issued before the restore horizon.
 */
export function completeAfter(since: string, cut: string, horizon: number): boolean {
  return cut !== "" && compareEventIds(since, cut) >= 0 && !issuedBefore(since, horizon);
}

/** Field pairs of a stream entry as an object. */
export function fieldsOf(fields: string[]): Record<string, string> {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!; // both < fields.length
  return f;
}
