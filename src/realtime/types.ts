// Typed Socket.IO server and socket of the channel (event maps from protocol.ts).
import type { Server, Socket } from "socket.io";
import type { ClientToServerEvents, InterServerEvents, ServerToClientEvents } from "../protocol.js";

/** What the handshake established about a socket. */
export interface SocketData {
  app: string;
  tokenId: string;
  expiresAt?: number;
  /** The client's `auth.since`, when it was a well-formed event id. */
  since?: string;
}

export type ChannelServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type ChannelSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

/** Closes the engine connection (not a Socket.IO disconnect), so the client reconnects by itself. */
export function dropConnection(socket: ChannelSocket): void {
  socket.conn.close(true);
}

/** Packets waiting in the engine connection's outbound buffer. */
export function queuedPackets(socket: ChannelSocket): number {
  return (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0;
}
