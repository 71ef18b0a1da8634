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
import type { TokenIdentity } from "../domain/custom-tokens.js";
import { compareEventIds, type StoredEvent } from "../store/port.js";
import type { Socket } from "socket.io";
import type { ClientToServerEvents, ServerToClientEvents } from "../protocol.js";

const PAGE = 200;

/** A socket of the channel (its data is its Session). */
export type ChannelSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, Session>;

/** What every session of a node shares. */
export interface SessionContext {
  events: ChannelEvents;
  /** Most packets the connection may have waiting before it counts as a slow reader. */
  maxQueue: number;
  /** Client → server events per second (and burst) per socket. */
  ratePerSecond: number;
}

export class Session {
  readonly app: string;
  readonly tokenId: string;
  /** When the token expires (ms since the epoch), if ever. */
  readonly expiresAt: number | undefined;
  /** The client's `auth.since`, when it was a well-formed event id. */
  readonly since: string | undefined;
  /** Token bucket of the rate limit: tokens left, and when it was last refilled. */
  private tokens: number;
  private refilled = 0;
  private lastId: string | undefined = undefined;
  /**
   * Live events held back while history is read, or from the moment the feed was lost until the
   * catch-up after it has read what was missed; undefined otherwise.
   */
  private held: StoredEvent[] | undefined = undefined;
  /** A replay is reading the history (start's or a catch-up's). */
  private syncing = false;
  /** The feed was lost and back while a replay was reading: it reads on from the last event sent. */
  private readAgain = false;
  private closed = false;

  constructor(
    who: TokenIdentity,
    since: string | undefined,
    private readonly ctx: SessionContext,
  ) {
    this.app = who.app;
    this.tokenId = who.tokenId;
    this.expiresAt = who.expiresAt;
    this.since = since;
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
   * A live event from the feed. True when the socket is to get it now, as part of one broadcast
   * to the app's sockets (the registry encodes it once for all of them); false when it is held
   * back during a replay, was already sent, or the socket is closed or too slow (then dropped).
   */
  accept(socket: ChannelSocket, e: StoredEvent): boolean {
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
    return this.sync(socket, this.since, true);
  }

  /** Replays what the client missed, then `ready`; later calls (after a feed outage) catch up. */
  private async sync(socket: ChannelSocket, since: string, announce: boolean): Promise<void> {
    this.held ??= [];
    this.syncing = true;
    this.readAgain = false;
    try {
      await this.replay(socket, since, announce);
    } finally {
      this.syncing = false;
    }
  }

  private async replay(socket: ChannelSocket, since: string, announce: boolean): Promise<void> {
    const before = this.lastId;
    if (before === undefined || compareEventIds(since, before) > 0) this.lastId = since;
    let recovered = false;
    let cursor = since;
    for (let first = true; !this.closed; first = false) {
      const page = await this.ctx.events.page(this.app, cursor, PAGE);
      if (first) recovered = page.complete;
      if (first && page.ahead) {
        // A since this app's history never issued: not "seen up to here" (that would hide
        // every live event until the clock passed it); the client must resynchronise.
        this.lastId = before;
        break;
      }
      for (const e of page.events) this.send(socket, e);
      const last = page.events.at(-1);
      if (last && page.events.length === PAGE) {
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
    if (announce && !this.closed) socket.emit("ready", { app: this.app, recovered });
  }

  /**
   * The feed is lost: events published from now until it is back are missed, and read back from
   * the history by catchUp. Live events are held from now until that read is done: one heard as
   * soon as the feed is back, before the read, would otherwise be sent first and become the last
   * event sent, and the read, which starts after the last event sent, would skip the missed ones.
   */
  feedLost(): void {
    if (!this.closed && this.lastId !== undefined) this.held ??= [];
  }

  /** After the feed was away: reread the history from the last event sent, then the held events. */
  catchUp(socket: ChannelSocket): Promise<void> {
    if (this.closed || this.lastId === undefined) return Promise.resolve();
    if (this.syncing) {
      this.readAgain = true;
      return Promise.resolve();
    }
    return this.sync(socket, this.lastId, false);
  }

  close(): void {
    this.closed = true;
    this.held = undefined;
  }

  private send(socket: ChannelSocket, e: StoredEvent): void {
    if (!this.sendable(socket, e)) return;
    this.lastId = e.id;
    socket.emit("challenge:result", { id: e.id, key: e.key, correct: e.correct, at: e.at });
  }

  /** Whether e may go out now: open, not sent before, and the socket keeps up (else it is dropped). */
  private sendable(socket: ChannelSocket, e: StoredEvent): boolean {
    if (this.closed) return false;
    if (this.lastId !== undefined && !isAfter(e.id, this.lastId)) return false;
    if (queuedPackets(socket) >= this.ctx.maxQueue) {
      this.overflow(socket);
      return false;
    }
    return true;
  }

  /** A slow reader: drop the connection; the client resumes with `since`. */
  private overflow(socket: ChannelSocket): void {
    this.close();
    dropConnection(socket);
  }
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
