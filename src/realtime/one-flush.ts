// Socket.IO's CONNECT packet and Sigil's `ready` in one write (docs/realtime.md#connecting).
// Left alone, Socket.IO writes CONNECT the moment the handshake succeeds, and `ready`, emitted by
// the connection handler in the same tick, waits in engine.io's buffer until that first write
// completes: two TCP writes on WebSocket (and two reads for the client), two poll responses (a
// second round trip) on long-polling. Holding the transport from the end of the handshake
// middleware until the connection handler has run sends both at once, in order; on a WebSocket
// the TCP socket is corked meanwhile, so that the two frames leave in one write.
import type { IncomingMessage } from "node:http";
import type { Socket as TcpSocket } from "node:net";
import type { ChannelSocket } from "./types.js";

/** The part of engine.io's transport used here: its writable flag, and "ready" to have it flushed. */
interface Transport {
  name: string;
  writable: boolean;
  emit(event: "ready"): boolean;
}

/**
 * Calls the middleware's `next` with the connection's writes held, and releases them on the next
 * tick, after Socket.IO (which connects the socket on the tick after `next`) has written CONNECT
 * and the connection handler has emitted `ready`. Nothing is held when the transport is busy
 * writing already (its own completion flushes the buffer then, as usual).
 */
export function nextInOneFlush(socket: ChannelSocket, next: () => void): void {
  const conn = socket.conn;
  const transport = conn.transport as unknown as Transport;
  if (!transport.writable) {
    next();
    return;
  }
  // A WebSocket opened as such (not upgraded from polling) runs on the TCP socket of the request
  // that opened it; read it now, as the connection handler lets the request go.
  const tcp =
    transport.name === "websocket" && !conn.upgraded ? (conn.request as IncomingMessage | null)?.socket : undefined;
  transport.writable = false;
  try {
    next();
  } finally {
    // Queued after Socket.IO's own tick for the connection, so it runs once that is done.
    process.nextTick(release, transport, tcp);
  }
}

/** What the transport itself does when a write completes (writable again, buffer flushed), corked. */
function release(transport: Transport, tcp: TcpSocket | null | undefined): void {
  tcp?.cork();
  try {
    transport.writable = true;
    transport.emit("ready");
  } finally {
    // Never left corked: whatever happened, later writes must not wait for an uncork.
    tcp?.uncork();
  }
}
