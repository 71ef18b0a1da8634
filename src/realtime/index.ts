// The realtime channel (docs/realtime.md): Socket.IO on the node's HTTP server, path /socket.io/.
// The store's feed brings every node each new event and revocation; the Redis adapter (when on
// Redis) links the nodes' Socket.IO servers for anything broadcast through io.
import type { IncomingMessage, Server as HttpServer } from "node:http";
import { createAdapter, createShardedAdapter } from "@socket.io/redis-adapter";
import { Server } from "socket.io";
import type { Config } from "../config.js";
import type { ChannelEvents } from "../domain/channel-events.js";
import type { Challenges } from "../domain/challenges.js";
import type { CustomTokens } from "../domain/custom-tokens.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { RealtimeClients } from "../store/port.js";
import { handshakeAuth } from "./auth.js";
import { registerHandlers } from "./handlers.js";
import { SessionRegistry } from "./registry.js";
import { Session } from "./session.js";
import { dropConnection, type ChannelServer } from "./types.js";

export interface RealtimeDeps {
  config: Config;
  logger: Logger;
  tokens: CustomTokens;
  events: ChannelEvents;
  challenges: Challenges;
  clients: RealtimeClients;
  metrics: Metrics;
  /** The client address of a request, as the HTTP side computes it (TRUST_PROXY). */
  clientAddress: (req: IncomingMessage) => string;
}

export interface Realtime {
  io: ChannelServer;
  /** Resolves once this node hears the feed (events and revocations). */
  ready: Promise<void>;
  /** Drain: refuse new sockets, tell connected ones to reconnect elsewhere, release the adapter. */
  close(): Promise<void>;
}

/** Longest a timer may wait in one go (setTimeout's limit). */
const MAX_TIMER = 2 ** 31 - 1;

export function attachRealtime(httpServer: HttpServer, deps: RealtimeDeps): Realtime {
  const { config, logger, clients } = deps;
  let draining = false;
  const io: ChannelServer = new Server(httpServer, {
    path: "/socket.io/",
    serveClient: false,
    maxHttpBufferSize: 64 * 1024,
    cors: { origin: config.corsOrigins ? [...config.corsOrigins] : "*" },
    allowRequest: (_req, cb) => cb(draining ? "draining" : null, !draining),
  });
  if (clients.adapter) {
    const { pub, sub } = clients.adapter;
    io.adapter(
      config.redisAdapter === "sharded"
        ? createShardedAdapter(pub, sub, { channelPrefix: `${config.keyPrefix}:sio` })
        : createAdapter(pub, sub, { key: `${config.keyPrefix}:sio` }),
    );
  }

  const registry = new SessionRegistry();
  const ready = clients.feed.subscribe(
    (m) => registry.onFeed(m),
    () => {
      // The feed was away: events published meanwhile are read back from the history, and
      // revocations made meanwhile are found in the token records.
      for (const s of registry.all()) {
        s.catchUp().catch(() => dropConnection(s.socket));
        const { app, tokenId } = s.socket.data;
        deps.tokens.isActive(app, tokenId).then(
          (active) => active || s.socket.disconnect(true),
          () => {},
        );
      }
    },
  );
  ready.catch((err: unknown) =>
    logger.error({ err: { message: (err as Error).message } }, "realtime feed subscription failed"),
  );

  io.use(handshakeAuth(deps.tokens, logger, () => draining));
  io.on("connection", (socket) => {
    const session = new Session(socket, deps.events, config.channelMaxQueue);
    if (!registry.add(session)) return;
    registerHandlers(socket, deps.challenges, logger, config.channelRateLimit, deps.clientAddress(socket.request));
    deps.metrics.channelConnections.inc();
    deps.metrics.channelSockets.inc();

    let expiry: NodeJS.Timeout | undefined;
    const { expiresAt } = socket.data;
    const armExpiry = () => {
      const left = (expiresAt ?? 0) - Date.now();
      if (left <= 0) socket.disconnect(true);
      else expiry = setTimeout(armExpiry, Math.min(left, MAX_TIMER));
    };
    socket.on("disconnect", () => {
      deps.metrics.channelSockets.dec();
      clearTimeout(expiry);
      session.close();
      registry.remove(session);
    });
    // After the listener: a token that expired since the handshake disconnects at once, and that
    // disconnect must still be counted and leave the registry.
    if (expiresAt !== undefined) armExpiry();
    session.sync(socket.data.since, true).catch(() => {
      // History unreadable (store away): let the client retry with its since.
      dropConnection(socket);
    });
  });

  return {
    io,
    ready,
    async close() {
      draining = true;
      // Closing the engine (not a Socket.IO disconnect) makes clients reconnect, to another node.
      io.engine.close();
      await Promise.allSettled([io.of("/").adapter.close()]);
    },
  };
}
