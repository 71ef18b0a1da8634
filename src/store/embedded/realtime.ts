// The embedded store's CUSTOM TOKENs, event history and feed: the same semantics as Redis (ids
// `<ms>-<seq>`, count and time trimming, "complete" when nothing after `since` was trimmed). The
// history lives in tables ([app, ms, seq] → event; app → its head), so it and the id sequence
// outlast a restart.
import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import {
  compareEventIds,
  type CustomTokenRecord,
  type CustomTokenStore,
  type EventLog,
  type Feed,
  type FeedMessage,
  type HistoryLimits,
  type HistoryRead,
  type StoredEvent,
} from "../port.js";
import type { Engine, KeyPart, Table } from "./engine.js";

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

/** An app's history head: the last id issued, the newest id trimmed, how many events are held. */
interface Head {
  last: [number, number];
  maxDeleted: string;
  n: number;
  /**
   * A lower bound of the oldest held event's time (ms), as Redis keeps `ev:{app}:oldest`: while it
   * is not older than the time cut, nothing is, and the time trim reads no range. Absent: unknown.
   */
  oldest?: number;
}

const idOf = (key: KeyPart[]): string => `${key[1]}-${key[2]}`; // [app, ms, seq]
const partsOf = (id: string): [number, number] => {
  const [ms, seq] = id.split("-").map(Number);
  return [ms!, seq!]; // a valid id (compareEventIds checked it)
};

export class EmbeddedEventLog implements EventLog {
  private readonly events;
  private readonly heads;
  constructor(
    private readonly engine: Engine,
    private readonly bus: EmbeddedBus,
  ) {
    this.events = engine.table<Omit<StoredEvent, "id">>("events");
    this.heads = engine.table<Head>("event-heads");
  }

  async deleteHistory(app: string): Promise<void> {
    await this.engine.write(() => {
      for (const { key } of this.events.range([app])) this.events.remove(key);
      this.heads.remove(app);
    });
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
    const h = this.heads.get(app) ?? { last: [0, 0], maxDeleted: "0-0", n: 0 };
    const now = Date.now();
    h.last = now > h.last[0] ? [now, 0] : [h.last[0], h.last[1] + 1];
    this.events.put([app, ...h.last], e);
    h.n++;
    if (h.n > limits.maxEvents) this.trim(app, h, this.events.range([app], { limit: h.n - limits.maxEvents }));
    this.trimByTime(app, h, limits);
    this.heads.put(app, h);
    return { id: `${h.last[0]}-${h.last[1]}`, ...e };
  }

  /** Whether events older than the time cut may be held (the head's bound says no without a read). */
  private mayBeStale(h: Head, limits: HistoryLimits): boolean {
    return (h.oldest ?? 0) < Date.now() - limits.ttlSeconds * 1000;
  }

  private trimByTime(app: string, h: Head, limits: HistoryLimits): void {
    if (!this.mayBeStale(h, limits)) return;
    const minMs = Date.now() - limits.ttlSeconds * 1000;
    this.trim(app, h, this.events.range([app], { before: [app, minMs] }));
    // The oldest event left (or, with none, now: later ones are newer) bounds the next ones.
    const first = this.events.range([app], { limit: 1 })[0];
    h.oldest = first ? Number(first.key[1]) : Date.now();
  }

  private trim(_app: string, h: Head, old: { key: KeyPart[] }[]): void {
    for (const { key } of old) {
      this.events.remove(key);
      h.n--;
      h.maxDeleted = idOf(key);
    }
  }

  async readAfter(app: string, since: string, count: number, limits: HistoryLimits): Promise<HistoryRead> {
    let h = this.heads.get(app);
    if (!h)
      return { events: [], complete: false, ...(compareEventIds(since, "0-0") > 0 ? { ahead: true as const } : {}) };
    if (compareEventIds(since, `${h.last[0]}-${h.last[1]}`) > 0) return { events: [], complete: false, ahead: true };
    const oldest = this.mayBeStale(h, limits) ? this.events.range([app], { limit: 1 })[0] : undefined;
    if (oldest && Number(oldest.key[1]) < Date.now() - limits.ttlSeconds * 1000) {
      h = await this.engine.write(() => {
        const head = this.heads.get(app);
        if (!head) return undefined;
        this.trimByTime(app, head, limits);
        this.heads.put(app, head);
        return head;
      });
      if (!h) return { events: [], complete: false };
    }
    const events = this.events
      .range([app], { after: [app, ...partsOf(since)], limit: count })
      .map((e) => ({ id: idOf(e.key), ...e.value }));
    return { events, complete: compareEventIds(since, h.maxDeleted) >= 0 };
  }
}

export class EmbeddedFeed implements Feed {
  private listener: ((m: FeedMessage) => void) | undefined;
  private readonly onMessage = (m: FeedMessage) => this.listener?.(m);
  constructor(private readonly bus: EmbeddedBus) {}

  /** In the process: never lost, so neither callback is ever called. */
  async subscribe(
    listener: (m: FeedMessage) => void,
    _onResubscribed?: () => void,
    _onLost?: () => void,
  ): Promise<void> {
    this.listener = listener;
    this.bus.on("message", this.onMessage);
  }

  async close(): Promise<void> {
    this.bus.off("message", this.onMessage);
  }
}
