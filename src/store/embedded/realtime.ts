// The embedded store's CUSTOM TOKENs, event history and feed (channels' histories: channels.ts, on
// the same Histories): the same semantics as Redis (ids
// `<ms>-<seq>`, count and time trimming, "complete" when nothing after `since` was trimmed). The
// history lives in tables ([app, ms, seq] → event; app → its head), so it and the id sequence
// outlast a restart.
import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import {
  compareEventIds,
  issuedBefore,
  type CustomTokenRecord,
  type CustomTokenStore,
  type EventLog,
  type Feed,
  type FeedMessage,
  type HistoryLimits,
  type HistoryRead,
  type StoredEvent,
} from "../port.js";
import type { Engine, Key, KeyPart, Table } from "./engine.js";
import { restoreHorizon } from "./meta.js";

/** How long a notice to the server stays in the table (the server reads it within 200 ms). */
const NOTICE_TTL_MS = 60_000;

/**
 * The feed's messages within this process, and — from a process that does not own the data (the
 * CLI beside the server) — in the `notices` table, which the owner polls (NoticePoller).
 */
export class EmbeddedBus extends EventEmitter {
  private readonly notices: Table<FeedMessage> | undefined;
  constructor(
    private readonly engine: Engine,
    /** Whether this process's messages must reach another process (it is not the server). */
    toOthers: boolean,
  ) {
    super();
    this.notices = toOthers && engine.shared ? engine.table<FeedMessage>("notices") : undefined;
  }
  async publish(m: FeedMessage): Promise<void> {
    // Async like a real feed, so that no caller depends on synchronous delivery.
    queueMicrotask(() => this.emit("message", m));
    const notices = this.notices;
    if (notices) await this.engine.write(() => notices.put([Date.now(), randomUUID()], m, Date.now() + NOTICE_TTL_MS));
  }
  /** Hands a message from another process to this one's listeners. */
  deliver(m: FeedMessage): void {
    this.emit("message", m);
  }
}

/** The server's side of the notices: reads what other processes published, every intervalMs. */
export class NoticePoller {
  private readonly notices: Table<FeedMessage>;
  /** Keys already delivered (or there at start), with their time: a late commit is still read once. */
  private readonly seen = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private static readonly LOOKBACK_MS = 5000;

  constructor(
    engine: Engine,
    private readonly bus: EmbeddedBus,
    intervalMs = 200,
  ) {
    this.notices = engine.table<FeedMessage>("notices");
    for (const { key } of this.notices.range([])) this.seen.set(JSON.stringify(key), Number(key[0]));
    this.timer = setInterval(() => this.poll(), intervalMs).unref();
  }

  poll(): void {
    const from = Date.now() - NoticePoller.LOOKBACK_MS;
    for (const [k, ms] of this.seen) if (ms < from - NoticePoller.LOOKBACK_MS) this.seen.delete(k);
    for (const { key, value } of this.notices.range([], { after: [from] })) {
      const k = JSON.stringify(key);
      if (this.seen.has(k)) continue;
      this.seen.set(k, Number(key[0]));
      this.bus.deliver(value);
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}

export class EmbeddedCustomTokens implements CustomTokenStore {
  private readonly tokens;
  constructor(
    private readonly engine: Engine,
    private readonly bus: EmbeddedBus,
  ) {
    this.tokens = engine.table<CustomTokenRecord>("custom-tokens");
  }

  async create(r: CustomTokenRecord): Promise<void> {
    await this.engine.write(() => this.tokens.put([r.app, r.id], r));
  }
  async get(app: string, id: string): Promise<CustomTokenRecord | null> {
    return this.tokens.get([app, id]) ?? null;
  }
  async list(app: string): Promise<CustomTokenRecord[]> {
    return this.tokens.range([app]).map((e) => e.value);
  }
  async revoke(app: string, id: string): Promise<boolean> {
    const revoked = await this.engine.write(() => {
      const r = this.tokens.get([app, id]);
      if (!r) return false;
      this.tokens.put([app, id], { ...r, revoked: true });
      return true;
    });
    if (revoked) await this.bus.publish({ type: "revoked", tokenId: id });
    return revoked;
  }
  async deleteAll(app: string): Promise<void> {
    await this.engine.write(() => this.tokens.range([app]).forEach((e) => this.tokens.remove(e.key)));
  }
}

/** Idle for twice its age bound and a second: the history is forgotten (as Redis's keys expire). */
export const forgettable = (h: Head, now: number): boolean =>
  h.ttl !== undefined && h.last[0] < now - (2 * h.ttl + 1000);

/** An app's history head: the last id issued, the newest id trimmed, how many events are held. */
export interface Head {
  last: [number, number];
  maxDeleted: string;
  n: number;
  /**
   * A lower bound of the oldest held event's time (ms), as Redis keeps `ev:{app}:oldest`: while it
   * is not older than the time cut, nothing is, and the time trim reads no range. Absent: unknown.
   */
  oldest?: number;
  /** The age bound (ms) the last append had: what the idle sweep trims by (absent: not swept). */
  ttl?: number;
}

const partsOf = (id: string): [number, number] => {
  const [ms, seq] = id.split("-").map(Number);
  return [ms!, seq!]; // a valid id (compareEventIds checked it)
};

/** What a history read gives: the entries after `since` with their ids, and whether it is complete. */
interface StreamRead<V> {
  entries: Array<{ id: string; value: V }>;
  complete: boolean;
  ahead?: true;
}

/**
 * Histories in two tables, as Redis keeps Streams: entries under [...prefix, ms, seq] and per
 * history a head (under headKey). The app's events are one history per app ([app]; head: app), a
 * channel's messages one per (app, channel) ([app, channel]; head: [app, channel]): the same ids,
 * trimming and completeness for both.
 */
export class Histories<V> {
  constructor(
    private readonly engine: Engine,
    private readonly entries: Table<V>,
    private readonly heads: Table<Head>,
  ) {}

  private idOf(prefix: KeyPart[], key: KeyPart[]): string {
    return `${key[prefix.length]}-${key[prefix.length + 1]}`;
  }

  /** Forgets one history (entries and head). */
  deleteIn(prefix: KeyPart[], headKey: Key): void {
    for (const { key } of this.entries.range(prefix)) this.entries.remove(key);
    this.heads.remove(headKey);
  }

  /**
   * Appends inside a write; the new id. `cutIfNew`: the cut of a history that has no head yet
   * (a channel forgotten before: nothing it issued then may read as complete).
   */
  appendIn(prefix: KeyPart[], headKey: Key, value: V, limits: HistoryLimits, cutIfNew = "0-0"): string {
    const h = this.heads.get(headKey) ?? { last: [0, 0], maxDeleted: cutIfNew, n: 0 };
    const now = Date.now();
    h.last = now > h.last[0] ? [now, 0] : [h.last[0], h.last[1] + 1];
    this.entries.put([...prefix, ...h.last], value);
    h.n++;
    if (h.n > limits.maxEvents) this.trim(prefix, h, this.entries.range(prefix, { limit: h.n - limits.maxEvents }));
    this.trimByTime(prefix, h, limits);
    h.ttl = limits.ttlSeconds * 1000;
    this.heads.put(headKey, h);
    return `${h.last[0]}-${h.last[1]}`;
  }

  /**
   * Inside a write: trims a history that may hold messages past its age bound, as a read or an
   * append would (the cut follows exactly), without waiting for one. True when it was due.
   */
  trimIdleIn(prefix: KeyPart[], headKey: Key): boolean {
    const h = this.heads.get(headKey);
    if (!h || h.ttl === undefined || h.n === 0) return false;
    const limits = { maxEvents: Number.MAX_SAFE_INTEGER, ttlSeconds: h.ttl / 1000 };
    if (!this.mayBeStale(h, limits)) return false;
    this.trimByTime(prefix, h, limits);
    this.heads.put(headKey, h);
    return true;
  }

  /**
   * The idle sweep's lists, from one walk of the heads: `due`, the histories that may hold
   * messages past their age bound; `idle`, those to forget (forgettable).
   */
  sweepLists(): { due: KeyPart[][]; idle: KeyPart[][] } {
    const now = Date.now();
    const due: KeyPart[][] = [];
    const idle: KeyPart[][] = [];
    for (const { key, value: h } of this.heads.range([])) {
      if (h.ttl === undefined) continue;
      if (h.n > 0 && (h.oldest ?? 0) < now - h.ttl) due.push(key);
      if (forgettable(h, now)) idle.push(key);
    }
    return { due, idle };
  }

  /** Whether entries older than the time cut may be held (the head's bound says no without a read). */
  private mayBeStale(h: Head, limits: HistoryLimits): boolean {
    return (h.oldest ?? 0) < Date.now() - limits.ttlSeconds * 1000;
  }

  private trimByTime(prefix: KeyPart[], h: Head, limits: HistoryLimits): void {
    if (!this.mayBeStale(h, limits)) return;
    const minMs = Date.now() - limits.ttlSeconds * 1000;
    this.trim(prefix, h, this.entries.range(prefix, { before: [...prefix, minMs] }));
    // The oldest entry left (or, with none, now: later ones are newer) bounds the next ones.
    const first = this.entries.range(prefix, { limit: 1 })[0];
    h.oldest = first ? Number(first.key[prefix.length]) : Date.now();
  }

  private trim(prefix: KeyPart[], h: Head, old: { key: KeyPart[] }[]): void {
    for (const { key } of old) {
      this.entries.remove(key);
      h.n--;
      h.maxDeleted = this.idOf(prefix, key);
    }
  }

  async read(
    prefix: KeyPart[],
    headKey: Key,
    since: string,
    count: number,
    limits: HistoryLimits,
  ): Promise<StreamRead<V>> {
    let h = this.heads.get(headKey);
    if (!h)
      return { entries: [], complete: false, ...(compareEventIds(since, "0-0") > 0 ? { ahead: true as const } : {}) };
    if (compareEventIds(since, `${h.last[0]}-${h.last[1]}`) > 0) return { entries: [], complete: false, ahead: true };
    const oldest = this.mayBeStale(h, limits) ? this.entries.range(prefix, { limit: 1 })[0] : undefined;
    if (oldest && Number(oldest.key[prefix.length]) < Date.now() - limits.ttlSeconds * 1000) {
      h = await this.engine.write(() => {
        const head = this.heads.get(headKey);
        if (!head) return undefined;
        this.trimByTime(prefix, head, limits);
        this.heads.put(headKey, head);
        return head;
      });
      if (!h) return { entries: [], complete: false };
    }
    const entries = this.entries
      .range(prefix, { after: [...prefix, ...partsOf(since)], limit: count })
      .map((e) => ({ id: this.idOf(prefix, e.key), value: e.value }));
    // A `since` from before the store's last restore: what followed it may be lost (read afresh,
    // so a restore is honoured by a server that ran meanwhile).
    const complete = compareEventIds(since, h.maxDeleted) >= 0 && !issuedBefore(since, restoreHorizon(this.engine));
    return { entries, complete };
  }
}

export class EmbeddedEventLog implements EventLog {
  private readonly history;
  constructor(
    private readonly engine: Engine,
    private readonly bus: EmbeddedBus,
  ) {
    this.history = new Histories(
      engine,
      engine.table<Omit<StoredEvent, "id">>("events"),
      engine.table<Head>("event-heads"),
    );
  }

  async deleteHistory(app: string): Promise<void> {
    await this.engine.write(() => this.history.deleteIn([app], app));
  }

  async append(app: string, e: Omit<StoredEvent, "id">, limits: HistoryLimits): Promise<StoredEvent> {
    const event = await this.engine.write(() => this.appendIn(app, e, limits));
    this.announce(app, event);
    return event;
  }

  /** Tells every node of an event, once it is durable. */
  announce(app: string, event: StoredEvent): void {
    void this.bus.publish({ type: "event", app, event });
  }

  /** append() inside a write (the solve step calls it within its own atomic step). */
  appendIn(app: string, e: Omit<StoredEvent, "id">, limits: HistoryLimits): StoredEvent {
    return { id: this.history.appendIn([app], app, e, limits), ...e };
  }

  async readAfter(app: string, since: string, count: number, limits: HistoryLimits): Promise<HistoryRead> {
    const { entries, ...rest } = await this.history.read([app], app, since, count, limits);
    return { events: entries.map((e) => ({ id: e.id, ...e.value })), ...rest };
  }
}

export class EmbeddedFeed implements Feed {
  /** Each subscriber's listener (a node has one; a store contract test may add its own). */
  private readonly listeners: Array<(m: FeedMessage) => void> = [];
  constructor(private readonly bus: EmbeddedBus) {}

  /** In the process: never lost, so neither callback is ever called. */
  async subscribe(
    listener: (m: FeedMessage) => void,
    _onResubscribed?: () => void,
    _onLost?: () => void,
  ): Promise<void> {
    this.listeners.push(listener);
    this.bus.on("message", listener);
  }

  async close(): Promise<void> {
    for (const l of this.listeners.splice(0)) this.bus.off("message", l);
  }
}
