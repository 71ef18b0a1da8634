// Redis's histories in a backup (store/ports/backup.ts): an app's event history and each of its
// channels' histories are Streams, read whole with their cut in one MULTI (one hash tag: the
// app's), and written back with their ids, the newest id they issued (new ids go on after it) and
// the newest trimmed (a resume from before it is incomplete), so clients resume with `since`.
import type { ChannelHistoryItem, HistoryItem } from "../port.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import { channelKeys, channelLastKey, channelNamesOf } from "./channels.js";

type Multi = ReturnType<RedisClient["multi"]>;

/** A history stream as read: its entries (fields by name), the newest id issued, the newest trimmed. */
interface StreamState {
  entries: Array<{ id: string; f: Record<string, string> }>;
  last: string;
  cut: string;
}

/** One stream entry to write: its id and its field pairs. */
type StreamEntry = [string, string[]];

async function exec<T extends unknown[]>(m: Multi): Promise<T> {
  const res = await guarded(() => m.exec());
  if (!res) throw new Error("a backup read was aborted");
  return res.map(([err, v]) => {
    if (err) throw err;
    return v;
  }) as T;
}

/** A stream read whole with its cut; undefined when there is none. */
async function readStream(redis: RedisClient, stream: string, cutKey: string): Promise<StreamState | undefined> {
  if ((await guarded(() => redis.exists(stream))) === 0) return undefined;
  const [info, cut, entries] = await exec<[unknown[], string | null, Array<[string, string[]]>]>(
    redis.multi().xinfo("STREAM", stream).get(cutKey).xrange(stream, "-", "+"),
  );
  let last = "0-0";
  for (let i = 0; i + 1 < info.length; i += 2) if (info[i] === "last-generated-id") last = String(info[i + 1]);
  const read = entries.map(([id, fields]) => {
    const f: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!; // both < fields.length
    return { id, f };
  });
  return { entries: read, last, cut: cut ?? "0-0" };
}

/** The app's event history (solve results), or undefined when it never had one. */
export async function historyOf(redis: RedisClient, keys: Keyspace, app: string): Promise<HistoryItem | undefined> {
  const s = await readStream(redis, keys.events(app), keys.eventsCut(app));
  if (!s) return undefined;
  const events = s.entries.map(({ id, f }) => ({ id, key: f.k ?? "", correct: f.c === "1", at: f.t ?? "" }));
  return { kind: "history", app, events, last: s.last, cut: s.cut };
}

/** Each channel of the app that has a history (the app's set of names), one at a time, by name. */
export async function* channelHistoriesOf(
  redis: RedisClient,
  keys: Keyspace,
  app: string,
): AsyncGenerator<ChannelHistoryItem> {
  for (const channel of await channelNamesOf(redis, keys, app)) {
    const [stream, cutKey] = channelKeys(keys, app, channel);
    const s = await readStream(redis, stream, cutKey);
    if (!s) continue;
    const messages = s.entries.map(({ id, f }) => ({ id, data: f.d ?? "null", at: f.t ?? "" }));
    yield { kind: "channel-history", app, channel, messages, last: s.last, cut: s.cut };
  }
}

/**
 * Adds to `m` the writing of a history stream as it was, replacing any (keys: the stream, its cut,
 * its oldest-time bound, as the stores' scripts keep them).
 */
function writeStream(
  m: Multi,
  [stream, cutKey, oldestKey]: readonly [string, string, string],
  entries: StreamEntry[],
  h: { last: string; cut: string },
): Multi {
  m.del(stream, cutKey, oldestKey);
  for (const [id, fields] of entries) m.xadd(stream, id, ...fields);
  if (entries.length === 0) {
    // An empty history that was trimmed still exists (its ids go on from `last`): a stream
    // made by one entry at `last`, then emptied.
    if (h.last !== "0-0") m.xadd(stream, h.last, "t", "").xdel(stream, h.last);
  } else if (h.last !== entries[entries.length - 1]![0]) {
    m.xsetid(stream, h.last);
  }
  if (h.cut !== "0-0") m.set(cutKey, h.cut);
  const first = entries[0];
  if (first) m.set(oldestKey, first[0].split("-")[0]!);
  return m;
}

export async function restoreHistory(redis: RedisClient, keys: Keyspace, h: HistoryItem): Promise<void> {
  const entries = h.events.map((e): StreamEntry => [e.id, ["k", e.key, "c", e.correct ? "1" : "0", "t", e.at]]);
  const streamKeys = [keys.events(h.app), keys.eventsCut(h.app), keys.eventsOldest(h.app)] as const;
  await exec(writeStream(redis.multi(), streamKeys, entries, h));
}

/**
 * One channel's history, and its name among the app's channels, scored by its last id's time (so
 * that the app's deletion forgets it), with the expiries a publish at that time would have set
 * (store/redis/channels.ts): its stream HISTORY_TTL and a second after its last message, the rest
 * twice that. A channel already past that is not written; the app's horizon takes its time.
 */
export async function restoreChannelHistory(
  redis: RedisClient,
  keys: Keyspace,
  h: ChannelHistoryItem,
  ttlSeconds: number,
): Promise<void> {
  const lastMs = Number(h.last.split("-")[0]);
  const ttlMs = ttlSeconds * 1000;
  const forgetAt = lastMs + 2 * ttlMs + 1000;
  if (forgetAt <= Date.now()) {
    await guarded(() => redis.eval(RAISE_HORIZON, 1, keys.channelsForgotten(h.app), String(lastMs)));
    return;
  }
  const entries = h.messages.map((m): StreamEntry => [m.id, ["d", m.data, "t", m.at]]);
  const [stream, cutKey, oldestKey] = channelKeys(keys, h.app, h.channel);
  const m = writeStream(redis.multi(), [stream, cutKey, oldestKey], entries, h)
    .zadd(keys.channelsAt(h.app), lastMs, h.channel)
    .set(channelLastKey(keys, h.app, h.channel), h.last, "PXAT", forgetAt)
    .pexpireat(stream, lastMs + ttlMs + 1000)
    .pexpireat(cutKey, forgetAt)
    .pexpireat(oldestKey, forgetAt);
  await exec(m);
}

/** KEYS: an app's forgotten horizon; ARGV: a time (ms). Raises the horizon to it. */
const RAISE_HORIZON = `if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;
