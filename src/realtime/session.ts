// One connected socket's event stream (docs/realtime.md#resuming-with-since): replay of the history after `since`, then
// live events, with no gap and no duplicate. Live events that arrive while history is being read
// are held back and sent after it; an event id at or below the last one sent is never sent again.
import type { ChannelEvents } from "../domain/channel-events.js";
import { compareEventIds, type StoredEvent } from "../store/port.js";
import { dropConnection, queuedPackets, type ChannelSocket } from "./types.js";

const PAGE = 200;

export class Session {
  private lastId: string | undefined;
  private held: StoredEvent[] | undefined = [];
  private closed = false;

  constructor(
    readonly socket: ChannelSocket,
    private readonly events: ChannelEvents,
    /** Most packets the connection may have waiting before it counts as a slow reader. */
    private readonly maxQueue: number,
  ) {}

  get app(): string {
    return this.socket.data.app;
  }

  /** A live event from the feed. */
  deliver(e: StoredEvent): void {
    if (this.closed) return;
    if (this.held) {
      this.held.push(e);
      if (this.held.length > this.maxQueue) this.overflow();
      return;
    }
    this.send(e);
  }

  /** Replays what the client missed, then `ready`; later calls (after a feed outage) catch up. */
  async sync(since: string | undefined, announce: boolean): Promise<void> {
    this.held ??= [];
    let recovered = false;
    if (since !== undefined) {
      const before = this.lastId;
      if (before === undefined || compareEventIds(since, before) > 0) this.lastId = since;
      let cursor = since;
      for (let first = true; !this.closed; first = false) {
        const page = await this.events.page(this.app, cursor, PAGE);
        if (first) recovered = page.complete;
        if (first && page.ahead) {
          // A since this app's history never issued: not "seen up to here" (that would hide
          // every live event until the clock passed it); the client must resynchronise.
          this.lastId = before;
          break;
        }
        for (const e of page.events) this.send(e);
        const last = page.events.at(-1);
        if (!last || page.events.length < PAGE) break;
        cursor = last.id;
        await this.drained();
      }
    }
    const held = this.held;
    this.held = undefined;
    for (const e of held) this.send(e);
    if (announce && !this.closed) this.socket.emit("ready", { app: this.app, recovered });
  }

  /** After the feed was away: reread the history from the last event sent. */
  catchUp(): Promise<void> {
    if (this.closed || this.held || this.lastId === undefined) return Promise.resolve();
    return this.sync(this.lastId, false);
  }

  close(): void {
    this.closed = true;
    this.held = undefined;
  }

  private send(e: StoredEvent): void {
    if (this.closed) return;
    if (this.lastId !== undefined && compareEventIds(e.id, this.lastId) <= 0) return;
    if (queuedPackets(this.socket) >= this.maxQueue) {
      this.overflow();
      return;
    }
    this.lastId = e.id;
    this.socket.emit("challenge:result", { id: e.id, key: e.key, correct: e.correct, at: e.at });
  }

  /** A slow reader: drop the connection; the client resumes with `since`. */
  private overflow(): void {
    this.close();
    dropConnection(this.socket);
  }

  private drained(): Promise<void> {
    if (queuedPackets(this.socket) === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const conn = this.socket.conn;
      const done = () => {
        conn.off("drain", done);
        conn.off("close", done);
        resolve();
      };
      conn.on("drain", done);
      conn.on("close", done);
    });
  }
}
