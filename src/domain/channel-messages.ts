// An app's own channels (docs/realtime.md#channels): publishing to them (POST /realtime/publish,
// authenticated as the app) and reading a channel's history back for a subscription's replay.
// Channel names, data bounds, who may publish where, and the per-app publish rate limit live here.
import type { Config } from "../config.js";
import { SigilError, invalidRequest, rateLimited } from "../errors.js";
import type { AttemptLimiter, ChannelMessage, HistoryLimits, Store } from "../store/port.js";
import type { ClientAuth, ClientCredentials } from "./client-auth.js";
import type { CustomTokens } from "./custom-tokens.js";
import { channelName } from "./channel-names.js";
import { channelDeliveries } from "./channel-webhooks.js";
import { SET_LIMITS, setLimitSpec } from "./limits.js";

/** Most messages in one publish request. */
export const MAX_BATCH = 100;
/** Most bytes of one message's data, as JSON text (UTF-8). */
export const MAX_DATA_BYTES = 64 * 1024;

/** Most levels of arrays and objects in one message's data (Socket.IO's encoder recurses). */
export const MAX_DEPTH = 64;

/** Whether JSON text nests arrays and objects deeper than max (read once, no recursion). */
function depthOver(json: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/** Who publishes: an app, limited to some channels when it is a CUSTOM TOKEN made with --channel. */
export interface Publisher {
  app: string;
  channels?: readonly string[];
}

/** How a publish request authenticated: Basic client credentials, or a Bearer CUSTOM TOKEN. */
export type PublisherCredentials = { basic: ClientCredentials } | { token: string | undefined } | undefined;

export const forbidden = (id: "err.publishForbidden" | "err.channelForbidden" | "err.userSocketChallenge") =>
  new SigilError(403, "forbidden", id, {});

export class ChannelMessages {
  private readonly limits: HistoryLimits;
  private readonly rate: AttemptLimiter;
  /** Deliveries were queued: this node's sender looks at once (node.ts sets it). */
  onQueued: (() => void) | undefined;

  constructor(
    private readonly deps: {
      store: Store;
      clientAuth: ClientAuth;
      customTokens: CustomTokens;
      config: Config;
    },
  ) {
    this.limits = { maxEvents: deps.config.historyMaxEvents, ttlSeconds: deps.config.historyTtl };
    this.rate = deps.store.limiter(setLimitSpec(SET_LIMITS.publishPerApp, deps.config));
  }

  /**
   * The app behind a publish request: a confidential app by its client credentials (as /token
   * checks them, failures counted alike), or a CUSTOM TOKEN made with --publish (403 otherwise).
   */
  async publisher(creds: PublisherCredentials, address: string): Promise<Publisher> {
    if (creds === undefined) {
      throw new SigilError(
        401,
        "invalid_client",
        "err.publisherMissing",
        {},
        { "WWW-Authenticate": 'Basic realm="sigil"' },
      );
    }
    if ("basic" in creds) {
      const app = await this.deps.clientAuth.authenticate(creds.basic, address);
      // A public client has no secret: anyone could publish as it.
      if (app.public === true) {
        throw new SigilError(
          401,
          "invalid_client",
          "err.publisherMissing",
          {},
          { "WWW-Authenticate": 'Basic realm="sigil"' },
        );
      }
      return { app: app.clientId };
    }
    const who = await this.deps.customTokens.verify(creds.token);
    if (who.publish !== true) throw forbidden("err.publishForbidden");
    return { app: who.app, ...(who.channels ? { channels: who.channels } : {}) };
  }

  /**
   * Publishes one message or a batch (all checked before any is stored: all or none); the ids,
   * once each message is in its channel's history and, for the channels the app sends to its
   * webhook, its delivery is queued (one queue write for the batch; the sending is the nodes'
   * senders', never this request's). The app is read beside the publish, not after it.
   */
  async publish(who: Publisher, body: unknown): Promise<{ ids: string[] }> {
    const list = Array.isArray(body) ? (body as unknown[]) : [body];
    if (list.length === 0 || list.length > MAX_BATCH) throw invalidRequest("err.publishBody", { max: MAX_BATCH });
    const at = new Date().toISOString();
    const messages = list.map((m) => this.message(who, m, at));
    const state = await this.rate.consume(who.app);
    if (!state.allowed) throw rateLimited(state.retryAfterMs / 1000, "err.publishThrottled");
    const { store } = this.deps;
    const [ids, app] = await Promise.all([
      store.channels.publish(who.app, messages, this.limits),
      store.apps.get(who.app),
    ]);
    const deliveries = channelDeliveries(app, messages, ids, Date.now());
    if (deliveries.length > 0) {
      await store.deliveries.enqueue(deliveries);
      this.onQueued?.();
    }
    return { ids };
  }

  private message(who: Publisher, raw: unknown, at: string): Omit<ChannelMessage, "id"> {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw invalidRequest("err.publishBody", { max: MAX_BATCH });
    }
    const m = raw as Record<string, unknown>;
    const channel = channelName(m.channel);
    if (!("data" in m) || m.data === undefined) throw invalidRequest("err.required", { name: "data" });
    let data: string;
    try {
      data = JSON.stringify(m.data);
    } catch {
      throw invalidRequest("err.dataDepth", { max: MAX_DEPTH }); // nested past the stack
    }
    if (data.length > MAX_DATA_BYTES / 3 && Buffer.byteLength(data, "utf8") > MAX_DATA_BYTES) {
      throw new SigilError(413, "request_too_large", "err.dataTooLarge", {});
    }
    if (depthOver(data, MAX_DEPTH)) throw invalidRequest("err.dataDepth", { max: MAX_DEPTH });
    if (who.channels && !who.channels.includes(channel)) throw forbidden("err.channelForbidden");
    return { channel, data, at };
  }

  /** Up to `count` messages of a channel after `after`, oldest first (a subscription's replay). */
  async page(app: string, channel: string, after: string, count: number) {
    const read = await this.deps.store.channels.readAfter(app, channel, after, count, this.limits);
    return { items: read.messages, complete: read.complete, ...(read.ahead ? { ahead: true as const } : {}) };
  }
}
