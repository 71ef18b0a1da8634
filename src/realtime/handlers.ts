// Client → server events (docs/realtime.md#acknowledgements): challenge:new and challenge:solve, each answered through
// its acknowledgement; a bad payload or a failure acks the error object (docs/errors.md), never a crash.
// The listeners are made once per node and shared by every socket (Socket.IO calls them with the
// socket as `this`); what differs per socket is in its Session (socket.data).
import type { IncomingMessage } from "node:http";
import type { Challenges } from "../domain/challenges.js";
import { logFailure, rateLimited } from "../errors.js";
import type { Logger } from "../log.js";
import type { ChannelSocket } from "./types.js";

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
}

/**
 * clientAddress: the client's address for the attempt limits, read from the handshake as HTTP
 * reads it (honouring TRUST_PROXY), so that socket and HTTP attempts from one client count together.
 */
export function makeHandlers(
  challenges: Challenges,
  logger: Logger,
  clientAddress: (req: IncomingMessage) => string,
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
      const { app } = socket.data;
      return challenges.newChallenge(p ?? {}, async () => app);
    }),
    onSolve: handle("challenge:solve", (socket, p) =>
      challenges.solveChallenge(p ?? {}, addressOf(socket, clientAddress)),
    ),
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
