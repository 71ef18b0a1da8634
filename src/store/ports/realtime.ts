import { orderEventIds } from "../../event-ids.js";
import type { AccessChange, IdentityNotice } from "./deliveries.js";

// ---- Realtime: CUSTOM TOKEN records, the per-app event history, and the feed that tells every
// node about new events and revocations.

export interface CustomTokenRecord {
  id: string;
  /** client_id of the app the token belongs to. */
  app: string;
  name: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Milliseconds since the epoch; absent when the token never expires. */
  expiresAt?: number;
  revoked: boolean;
  /** May publish to the app's channels (POST /realtime/publish); absent: no. */
  publish?: boolean;
  /** The only channels it may publish to and subscribe to; absent: every channel of its app. */
  channels?: string[];
}

export interface CustomTokenStore {
  create(record: CustomTokenRecord): Promise<void>;
  get(app: string, id: string): Promise<CustomTokenRecord | null>;
  list(app: string): Promise<CustomTokenRecord[]>;
  /** Marks the token revoked and tells every node (feed). False when the app has no such token. */
  revoke(app: string, id: string): Promise<boolean>;
  /**
   * Forgets every token of a deleted app (after revoke(): an unknown token is refused like a
   * revoked one), so that nothing of the app is left.
   */
  deleteAll(app: string): Promise<void>;
}

/** One solve attempt as stored in an app's history. */
export interface StoredEvent {
  /** `<milliseconds>-<sequence>`, increasing within an app. */
  id: string;
  key: string;
  correct: boolean;
  /** ISO 8601. */
  at: string;
}

export interface HistoryLimits {
  maxEvents: number;
  ttlSeconds: number;
}

export interface HistoryRead {
  events: StoredEvent[];
  /**
   * True when nothing after `since` was trimmed from the history (and `since` is not ahead), and
   * `since` was issued after the store's last restore (issuedBefore its horizon: not complete).
   */
  complete: boolean;
  /**
   * Present (true) when `since` is after the newest event the app ever had: an id this history
   * never issued (a client's invention). Such a `since` must not be trusted as "seen up to here".
   */
  ahead?: true;
}

export interface EventLog {
  /** Appends to the app's history (trimmed to the limits) and tells every node (feed). */
  append(app: string, event: Omit<StoredEvent, "id">, limits: HistoryLimits): Promise<StoredEvent>;
  /** Up to `count` events after `since`, oldest first (trimming by time first); `complete` as of this read. */
  readAfter(app: string, since: string, count: number, limits: HistoryLimits): Promise<HistoryRead>;
  /** Forgets a deleted app's history. */
  deleteHistory(app: string): Promise<void>;
}

/** One message of an app's channel, as stored in that channel's history. */
export interface ChannelMessage {
  /** `<milliseconds>-<sequence>`, increasing within the (app, channel). */
  id: string;
  channel: string;
  /** The message's data, as JSON text (the store keeps it as given). */
  data: string;
  /** ISO 8601. */
  at: string;
}

export interface ChannelRead {
  messages: ChannelMessage[];
  /** As HistoryRead's: nothing after `since` was trimmed from the channel's history. */
  complete: boolean;
  /** As HistoryRead's: `since` is after the newest id the channel ever had. */
  ahead?: true;
}

/**
 * The history of an app's channels (docs/realtime.md#channels): one stream per (app, channel),
 * with the ids, bounds and trimming of the EventLog's per-app history.
 */
export interface ChannelLog {
  /**
   * Appends each message to its channel's history, in the order given, as one step (all or none),
   * and tells every node (feed). The ids, in the same order.
   */
  publish(app: string, messages: Array<Omit<ChannelMessage, "id">>, limits: HistoryLimits): Promise<string[]>;
  /** Up to `count` messages of the channel after `since`, oldest first; as EventLog.readAfter. */
  readAfter(app: string, channel: string, since: string, count: number, limits: HistoryLimits): Promise<ChannelRead>;
  /** Forgets every channel's history of a deleted app. */
  deleteAll(app: string): Promise<void>;
}

export type FeedMessage =
  | { type: "event"; app: string; event: StoredEvent }
  | { type: "message"; app: string; message: ChannelMessage }
  | { type: "revoked"; tokenId: string }
  | { type: "identity"; app: string; notice: IdentityNotice }
  /** A member's first socket subscribed to the channel on any node (joined), or its last one left. */
  | { type: "presence"; app: string; channel: string; member: string; joined: boolean }
  | ({ type: "access" } & AccessChange);

/** Messages to every node. The Redis feed needs its own subscriber connection. */
export interface Feed {
  /**
   * onResubscribed: the feed was away (Redis outage) and is back; messages may have been missed.
   * onLost: the feed's connection closed; messages are missed until onResubscribed.
   */
  subscribe(listener: (m: FeedMessage) => void, onResubscribed?: () => void, onLost?: () => void): Promise<void>;
  close(): Promise<void>;
}

export { isEventId } from "../../event-ids.js";

/**
 * Whether an event id was issued before `horizonMs` (the store's restore horizon, BackupPort
 * markRestored; 0: never restored): its time part is older. A resume from such an id is never
 * complete: the history may have lost what came after it (the old store's events after the backup).
 */
export function issuedBefore(id: string, horizonMs: number): boolean {
  return Number(id.slice(0, id.indexOf("-"))) < horizonMs;
}

/**
 * Orders two event ids (<ms>-<seq>) numerically: negative, zero or positive (src/event-ids.ts,
 * the comparison the client uses too). Ids here are validated or the store's own, so one that is
 * not `<digits>-<digits>` is a bug: it throws rather than sorting somewhere.
 */
export function compareEventIds(a: string, b: string): number {
  const order = orderEventIds(a, b);
  if (order === undefined) throw new TypeError(`Not an event id: ${JSON.stringify(a)} or ${JSON.stringify(b)}`);
  return order;
}
