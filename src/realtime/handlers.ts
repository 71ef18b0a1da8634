// Client → server events (docs/realtime.md#acknowledgements): challenge:new and challenge:solve, subscribe,
// unsubscribe and presence (docs/realtime.md#channels), each answered through
// its acknowledgement; a bad payload or a failure acks the error object (docs/errors.md), never a crash.
// The listeners are made once per node and shared by every socket (Socket.IO calls them with the
// socket as `this`); what differs per socket is in its Session (socket.data).
import type { IncomingMessage } from "node:http";
import type { Challenges } from "../domain/challenges.js";
import type { PresenceMember } from "../domain/presence.js";
import { forbidden } from "../domain/channel-messages.js";
import { channelName } from "../domain/channel-names.js";
import { invalidRequest, logFailure, rateLimited } from "../errors.js";
import type { Logger } from "../log.js";
import { isEventId } from "../store/port.js";
import { dropConnection, type ChannelSocket } from "./types.js";

/** What subscribe and unsubscribe do to the socket's subscriptions (index.ts, with the registry). */
export interface Subscriptions {
  /**
   * Subscribes the socket to the channel; `ack` is called with `recovered` before any message of
   * the replay is sent. Rejects when the history cannot be read.
   */
  subscribe(
    socket: ChannelSocket,
    channel: string,
    opts: { since: string | undefined; presence: boolean },
    ack: (recovered: boolean) => void,
  ): Promise<void>;
  unsubscribe(socket: ChannelSocket, channel: string): void;
  /** The channel's members on every node, the first 1,000 and their total (the socket may use the channel). */
  members(socket: ChannelSocket, channel: string): Promise<{ members: PresenceMember[]; total: number }>;
}

type Reply = (body: unknown) => void;
type Listener = (this: ChannelSocket, ...raw: unknown[]) => void;

const noReply: Reply = () => {};

/** (payload, ack) as sent, whatever the client put there. */
function args(raw: unknown[]): { payload: Record<string, unknown> | undefined; reply: Reply } {
  const last = raw[raw.length - 1];
  const reply: Reply = typeof last === "function" ? (last as Reply) : noReply;
  const p = raw[0];
  const payload = p !== null && typeof p === "object" && !Array.isArray(p) ? (p as Record<string, unknown>) : undefined;
  return { payload, reply };
}

export interface Handlers {
  /** Socket.IO middleware of one socket: the per-socket rate limit over every client → server event. */
  limit(socket: ChannelSocket): (packet: unknown[], next: (err?: Error) => void) => void;
  onNew: Listener;
  onSolve: Listener;
  onSubscribe: Listener;
  onUnsubscribe: Listener;
  onPresence: Listener;
}

/**
 * clientAddress: the client's address for the attempt limits, read from the handshake as HTTP
 * reads it (honouring TRUST_PROXY), so that socket and HTTP attempts from one client count together.
 */
export function makeHandlers(
  challenges: Challenges,
  logger: Logger,
  clientAddress: (req: IncomingMessage) => string,
  subscriptions: Subscriptions,
): Handlers {
  const handle = (
    name: string,
    fn: (socket: ChannelSocket, payload: Record<string, unknown> | undefined) => Promise<unknown>,
  ) =>
    async function (this: ChannelSocket, ...raw: unknown[]) {
      const { payload, reply } = args(raw);
      try {
        reply(await fn(this, payload));
      } catch (err) {
        reply(logFailure(err, logger, { reqId: this.id, event: name }).toBody());
      }
    };

  return {
    limit: (socket) => (packet, next) => {
      if (socket.data.take(Date.now())) {
        next();
        return;
      }
      const { reply } = args(packet.slice(1));
      reply(rateLimited(1, "err.socketThrottled").toBody());
    },
    onNew: handle("challenge:new", (socket, p) => {
      const { app, user } = socket.data;
      // Its results would go to the app's servers: a user's page may solve, not create.
      if (user) throw forbidden("err.userSocketChallenge");
      return challenges.newChallenge(p ?? {}, async () => app);
    }),
    onSolve: handle("challenge:solve", (socket, p) =>
      challenges.solveChallenge(p ?? {}, addressOf(socket, clientAddress)),
    ),
    // The ack comes before the replayed messages, so it is sent from inside the subscription.
    async onSubscribe(this: ChannelSocket, ...raw: unknown[]) {
      const { payload, reply } = args(raw);
      let acked = false;
      try {
        if (!payload) throw invalidRequest("err.required", { name: "channel" });
        const channel = channelName(payload.channel);
        const since = payload.since ?? undefined;
        if (since !== undefined && !isEventId(since)) throw invalidRequest("err.sinceFormat");
        const presence = payload.presence ?? false;
        if (typeof presence !== "boolean") throw invalidRequest("err.presenceFlag");
        if (!this.data.mayUse(channel)) throw forbidden("err.channelForbidden");
        await subscriptions.subscribe(this, channel, { since, presence }, (recovered) => {
          acked = true;
          reply({ recovered });
        });
      } catch (err) {
        const e = logFailure(err, logger, { reqId: this.id, event: "subscribe" });
        // After the ack, a replay that fails (the store away) closes the connection, to be resumed.
        if (acked) dropConnection(this);
        else reply(e.toBody());
      }
    },
    onUnsubscribe: handle("unsubscribe", async (socket, p) => {
      subscriptions.unsubscribe(socket, channelName(p?.channel));
      return {};
    }),
    // Who may subscribe to the channel may ask who is there; the socket need not be subscribed.
    onPresence: handle("presence", async (socket, p) => {
      const channel = channelName(p?.channel);
      if (!socket.data.mayUse(channel)) throw forbidden("err.channelForbidden");
      return await subscriptions.members(socket, channel);
    }),
  };
}

/**
 * The client's address, computed from the handshake (its headers and the connection's address) as
 * from a request: the request itself is not kept after the handshake (index.ts).
 */
function addressOf(socket: ChannelSocket, clientAddress: (req: IncomingMessage) => string): string {
  const { headers, address } = socket.handshake;
  const peer = { remoteAddress: address };
  return clientAddress({ headers, socket: peer, connection: peer } as unknown as IncomingMessage);
}
