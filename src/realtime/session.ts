// One connected socket's state and event stream (docs/realtime.md#resuming-with-since): replay of
// the history after `since`, then live events, with no gap and no duplicate. Live events that
// arrive while history is being read are held back and sent after it; an event id at or below the
// last one sent is never sent again.
//
// A Session is the socket's `socket.data` (set by the handshake, auth.ts), and everything Sigil
// keeps per socket lives in it: one small object, no closure or timer of its own (the listeners
// are shared, handlers.ts; expiry timers are per token, registry.ts). The socket itself is passed
// in, so the session holds no reference back to it.
import type { ChannelEvents } from "../domain/channel-events.js";
import type { ChannelMessages } from "../domain/channel-messages.js";
import type { TokenIdentity } from "../domain/custom-tokens.js";
import type { EndReason, VerifiedUser, Who } from "./who.js";
import { compareEventIds, type ChannelMessage, type StoredEvent } from "../store/port.js";
import type { Socket } from "socket.io";
import type { ClientToServerEvents, MessageEvent, ServerToClientEvents } from "../protocol.js";

const PAGE = 200;

/** A socket of the channel (its data is its Session). */
export type ChannelSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, Session>;

/** What every session of a node shares. */
export interface SessionContext {
  events: ChannelEvents;
  /** The apps' channels (their histories). */
  messages: ChannelMessages;
  /** Most packets the connection may have waiting before it counts as a slow reader. */
  maxQueue: number;
  /** Client → server events per second (and burst) per socket. */
  ratePerSecond: number;
}

/** A page of a history read after some id (ChannelEvents' and the channels' reads). */
export interface ReplayPage<T> {
  items: T[];
  complete: boolean;
  ahead?: true;
}

/**
 * One stream of items with ids (`<ms>-<seq>`) to a socket: a replay of its history after `since`,
 * then live items, with no gap and no duplicate. Live items that arrive while the history is read
 * are held back and sent after it; an id at or below the last one sent is never sent again. The
 * socket's app events (Session) and each of its channel subscriptions (Subscription) are one each.
 */
export abstract class ReplayStream<T extends { id: string }> {
  protected lastId: string | undefined = undefined;
  /**
   * Live items held back while history is read, or from the moment the feed was lost until the
   * catch-up after it has read what was missed; undefined otherwise.
   */
  private held: T[] | undefined = undefined;
  /** A replay is reading the history (start's or a catch-up's). */
  private syncing = false;
  /** The feed was lost and back while a replay was reading: it reads on from the last item sent. */
  private readAgain = false;
  protected closed = false;

  protected abstract readonly ctx: SessionContext;
  /** Up to PAGE items of the history after `after`, oldest first. */
  protected abstract page(after: string, count: number): Promise<ReplayPage<T>>;
  /** Writes one item to the socket. */
  protected abstract emitItem(socket: ChannelSocket, item: T): void;
  /** The connection is too slow: close everything of it. */
  protected abstract overflow(socket: ChannelSocket): void;

  /**
   * A live item from the feed. True when the socket is to get it now, as part of one broadcast
   * (the registry encodes it once for all the sockets); false when it is held back during a
   * replay, was already sent, or the socket is closed or too slow (then dropped).
   */
  accept(socket: ChannelSocket, e: T): boolean {
    if (this.closed) return false;
    if (this.held) {
      this.held.push(e);
      if (this.held.length > this.ctx.maxQueue) this.overflow(socket);
      return false;
    }
    if (!this.sendable(socket, e)) return false;
    this.lastId = e.id;
    return true;
  }

  /** Holds live items from now on, until a replay (sync) is done. */
  protected hold(): void {
    this.held ??= [];
  }

  /**
   * Replays what the client missed after `since`, then the held items. `first` is called with
   * whether the replay is complete (recovered) before any item of it is sent; `done` right after
   * the held items, in the same tick.
   */
  protected async sync(
    socket: ChannelSocket,
    since: string,
    first?: (recovered: boolean) => void,
    done?: (recovered: boolean) => void,
  ): Promise<void> {
    this.held ??= [];
    this.syncing = true;
    this.readAgain = false;
    try {
      await this.replay(socket, since, first, done);
    } finally {
      this.syncing = false;
    }
  }

  private async replay(
    socket: ChannelSocket,
    since: string,
    onFirst: ((recovered: boolean) => void) | undefined,
    done: ((recovered: boolean) => void) | undefined,
  ): Promise<void> {
    const before = this.lastId;
    if (before === undefined || compareEventIds(since, before) > 0) this.lastId = since;
    let recovered = false;
    let cursor = since;
    for (let first = true; !this.closed; first = false) {
      const page = await this.page(cursor, PAGE);
      if (first) {
        recovered = page.complete;
        onFirst?.(recovered);
      }
      if (first && page.ahead) {
        // A since this history never issued: not "seen up to here" (that would hide every live
        // item until the clock passed it); the client must resynchronise.
        this.lastId = before;
        break;
      }
      for (const e of page.items) this.send(socket, e);
      const last = page.items.at(-1);
      if (last && page.items.length === PAGE) {
        cursor = last.id;
        await drained(socket);
        continue;
      }
      // The end of the history, unless the feed was lost and back while it was read.
      if (!this.readAgain || this.lastId === undefined) break;
      this.readAgain = false;
      cursor = this.lastId;
    }
    const held = this.held ?? [];
    this.held = undefined;
    for (const e of held) this.send(socket, e);
    if (!this.closed) done?.(recovered);
  }

  /**
   * The feed is lost: items published from now until it is back are missed, and read back from
   * the history by catchUp. Live items are held from now until that read is done: one heard as
   * soon as the feed is back, before the read, would otherwise be sent first and become the last
   * item sent, and the read, which starts after the last item sent, would skip the missed ones.
   */
  feedLost(): void {
    if (!this.closed && this.lastId !== undefined) this.held ??= [];
  }

  /** After the feed was away: reread the history from the last item sent, then the held items. */
  catchUp(socket: ChannelSocket): Promise<void> {
    if (this.closed || this.lastId === undefined) return Promise.resolve();
    if (this.syncing) {
      this.readAgain = true;
      return Promise.resolve();
    }
    return this.sync(socket, this.lastId);
  }

  close(): void {
    this.closed = true;
    this.held = undefined;
  }

  private send(socket: ChannelSocket, e: T): void {
    if (!this.sendable(socket, e)) return;
    this.lastId = e.id;
    this.emitItem(socket, e);
  }

  /** Whether e may go out now: open, not sent before, and the socket keeps up (else it is dropped). */
  private sendable(socket: ChannelSocket, e: T): boolean {
    if (this.closed) return false;
    if (this.lastId !== undefined && !isAfter(e.id, this.lastId)) return false;
    if (queuedPackets(socket) >= this.ctx.maxQueue) {
      this.overflow(socket);
      return false;
    }
    return true;
  }
}

/** Most channels one socket may be subscribed to at once. */
export const MAX_SUBSCRIPTIONS = 100;

export class Session extends ReplayStream<StoredEvent> {
  readonly app: string;
  readonly who: Who;
  /** A user's socket: its access token, checked again when the user's access may have ended. */
  readonly user: VerifiedUser | undefined;
  /** The CUSTOM TOKEN's id; for a user's socket, its access token's hash (the registry's key). */
  readonly tokenId: string;
  /** When the token expires (ms since the epoch), if ever. */
  readonly expiresAt: number | undefined;
  /** The channels the token is limited to (`--channel`); undefined: every channel of its app. */
  readonly channels: readonly string[] | undefined;
  /** The client's `auth.since`, when it was a well-formed event id. */
  readonly since: string | undefined;
  /** Token bucket of the rate limit: tokens left, and when it was last refilled. */
  private tokens: number;
  private refilled = 0;
  /** The socket's channel subscriptions, by channel; made at the first subscribe. */
  subscriptions: Map<string, Subscription> | undefined = undefined;

  constructor(
    verified: TokenIdentity | VerifiedUser,
    since: string | undefined,
    protected readonly ctx: SessionContext,
  ) {
    super();
    this.app = verified.app;
    if ("userKey" in verified) {
      this.who = { kind: "user", app: verified.app, sub: verified.sub };
      this.user = verified;
      this.tokenId = `user:${verified.tokenHash}`;
      this.channels = undefined;
      // The app's events are for its servers: a user's socket neither replays nor receives them.
      this.since = undefined;
    } else {
      this.who = { kind: "token", app: verified.app, tokenId: verified.tokenId };
      this.user = undefined;
      this.tokenId = verified.tokenId;
      this.channels = verified.channels;
      this.since = since;
    }
    this.expiresAt = verified.expiresAt;
    this.tokens = ctx.ratePerSecond;
  }

  /** Takes one event from the rate limit's bucket; false when it is empty. */
  take(now: number): boolean {
    const rate = this.ctx.ratePerSecond;
    this.tokens = Math.min(rate, this.tokens + ((now - this.refilled) / 1000) * rate);
    this.refilled = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /**
   * Whether the socket may use this channel (subscribe to it): a token, those it was limited to
   * (or all); a user, the app's channels but other users' `user:…`.
   */
  mayUse(channel: string): boolean {
    if (this.who.kind === "user") return !channel.startsWith("user:") || channel === `user:${this.who.sub}`;
    return this.channels === undefined || this.channels.includes(channel);
  }

  /**
   * Ends the socket with a Socket.IO disconnect (clients do not retry it by themselves). A user's
   * socket is told why first (`ended`), so that its page can tell an expired token (refresh it,
   * connect again) from access that ended (sign in again).
   */
  end(socket: ChannelSocket, reason: EndReason): void {
    if (this.who.kind === "user") socket.emit("ended", { reason });
    socket.disconnect(true);
  }

  /**
   * Starts the stream of a new connection: the replay after `since` (if given), then `ready`.
   * Call in the same tick as the registry adds the socket, so that no live event slips between.
   */
  start(socket: ChannelSocket): Promise<void> {
    if (this.since === undefined) {
      // A fresh connection: nothing to replay, no store round trip.
      socket.emit("ready", { app: this.app, recovered: false });
      return Promise.resolve();
    }
    return this.sync(socket, this.since, undefined, (recovered) => socket.emit("ready", { app: this.app, recovered }));
  }

  protected page(after: string, count: number): Promise<ReplayPage<StoredEvent>> {
    return this.ctx.events.page(this.app, after, count).then((p) => ({ ...p, items: p.events }));
  }

  protected emitItem(socket: ChannelSocket, e: StoredEvent): void {
    socket.emit("challenge:result", { id: e.id, key: e.key, correct: e.correct, at: e.at });
  }

  override feedLost(): void {
    super.feedLost();
    if (this.subscriptions) for (const sub of this.subscriptions.values()) sub.feedLost();
  }

  override catchUp(socket: ChannelSocket): Promise<void> {
    const subs = this.subscriptions ? [...this.subscriptions.values()] : [];
    return Promise.all([super.catchUp(socket), ...subs.map((s) => s.catchUp(socket))]).then(() => {});
  }

  override close(): void {
    super.close();
    if (this.subscriptions) for (const sub of this.subscriptions.values()) sub.close();
  }

  /** A slow reader: drop the connection; the client resumes with `since`. */
  protected overflow(socket: ChannelSocket): void {
    this.close();
    dropConnection(socket);
  }
}

/** One channel subscription of a socket: the channel's messages after `since`, then live ones. */
export class Subscription extends ReplayStream<ChannelMessage> {
  constructor(
    private readonly session: Session,
    readonly channel: string,
    protected readonly ctx: SessionContext,
    /** Made with `presence: true`: the socket gets the channel's `join` and `leave`. */
    readonly presence = false,
  ) {
    super();
  }

  /**
   * Starts it (the registry has it from this tick on): with `since`, acks whether everything after
   * it is still there, then the messages after it, then the live ones; without, acks
   * `recovered: false` at once and sends the live ones.
   */
  start(socket: ChannelSocket, since: string | undefined, ack: (recovered: boolean) => void): Promise<void> {
    if (since === undefined) {
      ack(false);
      return Promise.resolve();
    }
    this.hold();
    return this.sync(socket, since, ack);
  }

  protected page(after: string, count: number): Promise<ReplayPage<ChannelMessage>> {
    return this.ctx.messages.page(this.session.app, this.channel, after, count);
  }

  protected emitItem(socket: ChannelSocket, m: ChannelMessage): void {
    socket.emit("message", messageEvent(m));
  }

  protected overflow(socket: ChannelSocket): void {
    this.session.close();
    dropConnection(socket);
  }
}

/** A channel message as sent to clients: its data parsed back from the stored JSON text. */
export function messageEvent(m: ChannelMessage): MessageEvent {
  return { channel: m.channel, id: m.id, data: JSON.parse(m.data) as unknown, at: m.at };
}

/**
 * a > b, remembering the last answer: a live event is checked against the last id of each of the
 * app's sockets, which is nearly always one and the same id.
 */
let memo: { a: string; b: string; after: boolean } = { a: "", b: "", after: false };
function isAfter(a: string, b: string): boolean {
  if (a !== memo.a || b !== memo.b) memo = { a, b, after: compareEventIds(a, b) > 0 };
  return memo.after;
}

/** Resolves once the socket's outbound buffer is empty (or the connection closed). */
function drained(socket: ChannelSocket): Promise<void> {
  if (queuedPackets(socket) === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const conn = socket.conn;
    const done = () => {
      conn.off("drain", done);
      conn.off("close", done);
      resolve();
    };
    conn.on("drain", done);
    conn.on("close", done);
  });
}

/** Closes the engine connection (not a Socket.IO disconnect), so the client reconnects by itself. */
export function dropConnection(socket: ChannelSocket): void {
  socket.conn.close(true);
}

/** Packets waiting in the engine connection's outbound buffer. */
export function queuedPackets(socket: ChannelSocket): number {
  return (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0;
}
