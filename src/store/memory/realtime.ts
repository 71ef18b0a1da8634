// The embedded store's CUSTOM TOKENs, event history and feed: the same semantics as Redis (ids
// `<ms>-<seq>`, count and time trimming, "complete" when nothing after `since` was trimmed).
import { EventEmitter } from "node:events";
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

/** In-process stand-in for Redis pub/sub. */
export class MemoryBus extends EventEmitter {
  publish(m: FeedMessage): void {
    // Async like a real feed, so that no caller depends on synchronous delivery.
    queueMicrotask(() => this.emit("message", m));
  }
}

export class MemoryCustomTokens implements CustomTokenStore {
  private readonly byApp = new Map<string, Map<string, CustomTokenRecord>>();
  constructor(private readonly bus: MemoryBus) {}

  async create(r: CustomTokenRecord): Promise<void> {
    let m = this.byApp.get(r.app);
    if (!m) this.byApp.set(r.app, (m = new Map()));
    m.set(r.id, { ...r });
  }

  async get(app: string, id: string): Promise<CustomTokenRecord | null> {
    const r = this.byApp.get(app)?.get(id);
    return r ? { ...r } : null;
  }

  async list(app: string): Promise<CustomTokenRecord[]> {
    return [...(this.byApp.get(app)?.values() ?? [])].map((r) => ({ ...r }));
  }

  async revoke(app: string, id: string): Promise<boolean> {
    const r = this.byApp.get(app)?.get(id);
    if (!r) return false;
    r.revoked = true;
    this.bus.publish({ type: "revoked", tokenId: id });
    return true;
  }

  async deleteAll(app: string): Promise<void> {
    this.byApp.delete(app);
  }
}

interface AppHistory {
  events: StoredEvent[];
  last: [number, number];
  maxDeleted: string;
}

export class MemoryEventLog implements EventLog {
  private readonly apps = new Map<string, AppHistory>();
  constructor(private readonly bus: MemoryBus) {}

  async deleteHistory(app: string): Promise<void> {
    this.apps.delete(app);
  }

  async append(app: string, e: Omit<StoredEvent, "id">, limits: HistoryLimits): Promise<StoredEvent> {
    return this.appendNow(app, e, limits);
  }

  /** append(), synchronously: the solve step calls it within its own atomic step. */
  appendNow(app: string, e: Omit<StoredEvent, "id">, limits: HistoryLimits): StoredEvent {
    let h = this.apps.get(app);
    if (!h) this.apps.set(app, (h = { events: [], last: [0, 0], maxDeleted: "0-0" }));
    const now = Date.now();
    h.last = now > h.last[0] ? [now, 0] : [h.last[0], h.last[1] + 1];
    const event: StoredEvent = { id: `${h.last[0]}-${h.last[1]}`, ...e };
    h.events.push(event);
    while (h.events.length > limits.maxEvents) h.maxDeleted = h.events.shift()!.id; // length > maxEvents >= 0
    trimByTime(h, limits);
    this.bus.publish({ type: "event", app, event });
    return { ...event };
  }

  async readAfter(app: string, since: string, count: number, limits: HistoryLimits): Promise<HistoryRead> {
    const h = this.apps.get(app);
    if (!h)
      return { events: [], complete: false, ...(compareEventIds(since, "0-0") > 0 ? { ahead: true as const } : {}) };
    trimByTime(h, limits);
    if (compareEventIds(since, `${h.last[0]}-${h.last[1]}`) > 0) return { events: [], complete: false, ahead: true };
    const events = h.events.filter((e) => compareEventIds(e.id, since) > 0).slice(0, count);
    return { events: events.map((e) => ({ ...e })), complete: compareEventIds(since, h.maxDeleted) >= 0 };
  }
}

function trimByTime(h: AppHistory, limits: HistoryLimits): void {
  const minMs = Date.now() - limits.ttlSeconds * 1000;
  while (h.events[0] && Number(h.events[0].id.split("-")[0]) < minMs) h.maxDeleted = h.events.shift()!.id; // [0] exists
}

export class MemoryFeed implements Feed {
  private listener: ((m: FeedMessage) => void) | undefined;
  private readonly onMessage = (m: FeedMessage) => this.listener?.(m);
  constructor(private readonly bus: MemoryBus) {}

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
