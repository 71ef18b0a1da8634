// The feed on Redis: one pub/sub channel every node subscribes to, on a connection of its own.
// What is published on it (by the scripts in realtime.ts and presence.ts, and by the identity and
// access notices) is a small JSON object named by its `t`; anything else is not ours and ignored.
import { StoreUnavailableError } from "../../errors.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";
import type { Feed, FeedMessage } from "../port.js";

/** Subscribes a dedicated connection (offline queue on) to the feed channel. */
export class RedisFeed implements Feed {
  constructor(
    private readonly sub: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async subscribe(listener: (m: FeedMessage) => void, onResubscribed?: () => void, onLost?: () => void): Promise<void> {
    let readyBefore = this.sub.status === "ready";
    this.sub.on("close", () => onLost?.());
    this.sub.on("ready", () => {
      if (!readyBefore) {
        readyBefore = true;
        return;
      }
      // A reconnection: ioredis has just sent its SUBSCRIBE again. The reply to this second one
      // comes once Redis has run both, so from then on every message reaches this node, and what
      // was published before is in the history: only then may the caller read what it missed.
      // Failing, the connection was lost again, and the next "ready" tries again.
      this.sub.subscribe(this.keys.feed).then(
        () => onResubscribed?.(),
        () => {},
      );
    });
    this.sub.on("message", (channel: string, raw: string) => {
      if (channel !== this.keys.feed) return;
      const m = parseFeed(raw);
      if (m) listener(m);
    });
    try {
      await this.sub.subscribe(this.keys.feed);
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
  }

  async close(): Promise<void> {}
}

function parseFeed(raw: string): FeedMessage | undefined {
  try {
    const m = JSON.parse(raw) as Record<string, string>;
    if (m.t === "r" && m.id) return { type: "revoked", tokenId: m.id };
    if (m.t === "m" && m.app && m.id && m.ch) {
      return { type: "message", app: m.app, message: { id: m.id, channel: m.ch, data: m.d ?? "null", at: m.at ?? "" } };
    }
    if (m.t === "i" && m.app && m.ty && m.sub) {
      return { type: "identity", app: m.app, notice: { type: m.ty, sub: m.sub, at: m.at ?? "" } };
    }
    if (m.t === "p" && m.app && m.ch && m.m) {
      const joined = (m.j as unknown) === 1;
      return { type: "presence", app: m.app, channel: m.ch, member: m.m, joined };
    }
    if (m.t === "a" && (m.u || m.app || m.g)) {
      return {
        type: "access",
        ...(m.u ? { user: m.u } : {}),
        ...(m.app ? { app: m.app } : {}),
        ...(m.g ? { grant: m.g } : {}),
      };
    }
    if (m.t === "e" && m.app && m.id) {
      return { type: "event", app: m.app, event: { id: m.id, key: m.k ?? "", correct: m.c === "1", at: m.at ?? "" } };
    }
  } catch {
    // not ours
  }
  return undefined;
}
