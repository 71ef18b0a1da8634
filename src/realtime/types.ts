// Typed Socket.IO server and socket of the channel (event maps from protocol.ts; socket.data is
// the socket's Session, set by the handshake).
import type { Server } from "socket.io";
import type { ClientToServerEvents, ServerToClientEvents } from "../protocol.js";
import type { Session } from "./session.js";

export { dropConnection, queuedPackets, type ChannelSocket } from "./session.js";

/** No server-to-server events: revocations and events travel on the store feed (so the CLI can send them). */
export type ChannelServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, Session>;
