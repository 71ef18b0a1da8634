// Typed Socket.IO server and socket of the channel (event maps from protocol.ts).
import type { Server, Socket } from "socket.io";
import type { ClientToServerEvents, ServerToClientEvents } from "../protocol.js";

/** What the handshake established about a socket. */
export interface SocketData {
  app: string;
  tokenId: string;
  expiresAt?: number;
  /** The client's `auth.since`, when it was a well-formed event id. */
  since?: string;
}

/** No server-to-server events: revocations and events travel on the store feed (so the CLI can send them). */
export type ChannelServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
export type ChannelSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** Closes the engine connection (not a Socket.IO disconnect), so the client reconnects by itself. */
export function dropConnection(socket: ChannelSocket): void {
  socket.conn.close(true);
}

/** Packets waiting in the engine connection's outbound buffer. */
export function queuedPackets(socket: ChannelSocket): number {
  return (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0;
}
