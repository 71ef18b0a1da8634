// The realtime channel (docs/realtime.md): Socket.IO on the node's HTTP server, path /socket.io/.
// The store's feed brings every node each new event and revocation; the Redis adapter (when on
// Redis) links the nodes' Socket.IO servers for anything broadcast through io.
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { createAdapter, createShardedAdapter } from "@socket.io/redis-adapter";
import cors from "cors";
import { Server } from "socket.io";
import type { Config } from "../config.js";
import type { ChannelEvents } from "../domain/channel-events.js";
import type { ChannelMessages } from "../domain/channel-messages.js";
import type { Challenges } from "../domain/challenges.js";
import type { CustomTokens } from "../domain/custom-tokens.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { RealtimeClients } from "../store/port.js";
import type { IdentityEvents } from "../domain/identity-events.js";
import type { Presence } from "../domain/presence.js";
import type { UserAccess } from "../domain/user-access.js";
import { AccessChecks } from "./access-checks.js";
import { handshakeAuth } from "./auth.js";
import { makeHandlers } from "./handlers.js";
import { memberOf, presenceRoom, tellPresence } from "./presence.js";
import { channelKey, SessionRegistry } from "./registry.js";
import { MAX_SUBSCRIPTIONS, messageEvent, Subscription, type SessionContext } from "./session.js";
import { invalidRequest } from "../errors.js";
import { dropConnection, type ChannelServer, type ChannelSocket } from "./types.js";
import { VerifiedTokens } from "./verified-tokens.js";

export interface RealtimeDeps {
  config: Config;
  logger: Logger;
  tokens: CustomTokens;
  /** Users' access tokens (docs/realtime.md#users-sockets). */
  users: Pick<UserAccess, "verify" | "isLive">;
  events: ChannelEvents;
  messages: ChannelMessages;
  challenges: Challenges;
  /** Opens the identity events the feed brings (the user's id travels sealed). */
  identity: IdentityEvents;
  /** Who is subscribed to the apps' channels, on every node. */
  presence: Presence;
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

export function attachRealtime(httpServer: HttpServer, deps: RealtimeDeps): Realtime {
  const { config, logger, clients, metrics } = deps;
  let draining = false;
  const io: ChannelServer = new Server(httpServer, {
    path: "/socket.io/",
    serveClient: false,
    maxHttpBufferSize: 64 * 1024,
    allowRequest: (_req, cb) => cb(draining ? "draining" : null, !draining),
  });
  // CORS for the HTTP long-polling requests, as Socket.IO's own `cors` option would do it, but not
  // for WebSocket upgrades: browsers do not apply CORS to WebSockets, and the headers only cost the
  // handshake time.
  const corsMiddleware = cors({ origin: config.corsOrigins ? [...config.corsOrigins] : "*" });
  io.engine.use((req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => {
    if (req.headers.upgrade === undefined) corsMiddleware(req, res, next);
    else next();
  });
  if (clients.adapter) {
    const { pub, sub } = clients.adapter;
    io.adapter(
      config.redisAdapter === "sharded"
        ? // "static": the app rooms are only ever written to locally (io.local below), so no node
          // needs a Redis channel per room; joining one then never waits on (or fails with) Redis.
          createShardedAdapter(pub, sub, { channelPrefix: `${config.keyPrefix}:sio`, subscriptionMode: "static" })
        : createAdapter(pub, sub, { key: `${config.keyPrefix}:sio` }),
    );
  }

  // Every socket is in its app's room: a live event is encoded once and written to the app's
  // sockets here (io.local: never through the adapter), but those the registry leaves out.
  const registry = new SessionRegistry(
    (app, except, e) =>
      io.local
        .to(appRoom(app))
        .except(except)
        .emit("challenge:result", { id: e.id, key: e.key, correct: e.correct, at: e.at }),
    // A channel's subscribers are in its room: one encoding for all of them.
    (app, except, m) => io.local.to(channelKey(app, m.channel)).except(except).emit("message", messageEvent(m)),
  );
  const verified = new VerifiedTokens(deps.tokens);
  const access = new AccessChecks(deps.users, registry, logger);
  const ready = clients.feed.subscribe(
    (m) => {
      if (m.type === "identity") {
        // Live only (docs/events.md): the sockets of the app on this node, now.
        const event = deps.identity.openNotice(m.app, m.notice);
        if (event) io.local.to(appRoom(m.app)).emit("identity", event);
        return;
      }
      if (m.type === "presence") {
        tellPresence(io, m);
        return;
      }
      if (m.type === "access") {
        access.changed(m);
        return;
      }
      if (m.type === "revoked") verified.revoked(m.tokenId);
      registry.onFeed(m);
    },
    () => {
      // The feed was away: events published meanwhile are read back from the history, and
      // revocations made meanwhile are found in the token records.
      verified.heard();
      void catchUpAll(registry.all(), logger);
      access.feedBack();
      for (const socket of registry.all()) {
        if (socket.data.user) continue;
        const { app, tokenId } = socket.data;
        deps.tokens.isActive(app, tokenId).then(
          (active) => active || socket.data.end(socket, "revoked"),
          () => {},
        );
      }
    },
    () => {
      verified.lost();
      for (const socket of registry.all()) socket.data.feedLost();
    },
  );
  ready.then(
    () => verified.heard(),
    (err: unknown) => logger.error({ err: { message: (err as Error).message } }, "realtime feed subscription failed"),
  );

  const ctx: SessionContext = {
    events: deps.events,
    messages: deps.messages,
    maxQueue: config.channelMaxQueue,
    ratePerSecond: config.channelRateLimit,
  };
  const handlers = makeHandlers(deps.challenges, logger, deps.clientAddress, {
    subscribe(socket, channel, { since, presence }, ack) {
      const session = socket.data;
      const subs = (session.subscriptions ??= new Map());
      const old = subs.get(channel);
      // Subscribing again starts the subscription over, from the new since.
      if (old) old.close();
      else if (subs.size >= MAX_SUBSCRIPTIONS)
        throw invalidRequest("err.tooManySubscriptions", { max: MAX_SUBSCRIPTIONS });
      const sub = new Subscription(session, channel, ctx, presence);
      subs.set(channel, sub);
      // In the same tick as the replay starts holding live messages: none slips between.
      registry.subscribe(socket, channel);
      joinRoom(socket, channelKey(session.app, channel));
      // A new subscription counts in the channel's presence; one started over is counted already.
      if (!old) deps.presence.add(session.app, channel, memberOf(session));
      if (presence) joinRoom(socket, presenceRoom(session.app, channel));
      else if (old?.presence) void socket.leave(presenceRoom(session.app, channel));
      return sub.start(socket, since, ack).catch((err: unknown) => {
        // Unreadable history: the subscription is undone (the ack or the connection says so).
        if (subs.get(channel) === sub) this.unsubscribe(socket, channel);
        throw err;
      });
    },
    unsubscribe(socket, channel) {
      const sub = socket.data.subscriptions?.get(channel);
      if (!sub) return;
      sub.close();
      socket.data.subscriptions!.delete(channel);
      registry.unsubscribe(socket, channel);
      void socket.leave(channelKey(socket.data.app, channel));
      if (sub.presence) void socket.leave(presenceRoom(socket.data.app, channel));
      deps.presence.remove(socket.data.app, channel, memberOf(socket.data));
    },
    members: (socket, channel) => deps.presence.members(socket.data.app, channel),
  });
  function onDisconnect(this: ChannelSocket) {
    metrics.channelSockets.dec();
    const session = this.data;
    for (const channel of session.subscriptions?.keys() ?? [])
      deps.presence.remove(session.app, channel, memberOf(session));
    session.close();
    registry.remove(this);
  }

  /**
   * Joins a room of this node. Synchronous on both adapters as configured; a promise, should one
   * ever come, must not become an unhandled rejection when Redis goes away mid-join.
   */
  function joinRoom(socket: ChannelSocket, room: string): void {
    const joined = socket.join(room);
    if (joined instanceof Promise)
      joined.catch((err: unknown) => logger.warn({ err: { message: (err as Error).message } }, "room join failed"));
  }

  const users = { verify: (token: unknown) => deps.users.verify(token), mark: () => access.mark() };
  io.use(handshakeAuth(verified, users, ctx, logger, () => draining));
  io.on("connection", (socket) => {
    // The handshake (socket.handshake: headers, address) is all Sigil reads of the request: let
    // the request object go rather than keep it for the socket's life (Socket.IO's own advice).
    (socket.conn as { request: unknown }).request = null;
    if (!registry.add(socket)) return;
    // A user's socket is not in the app's room: the app's events and identity events are for its
    // servers (a user would hear about other users).
    if (socket.data.user) access.added(socket);
    else joinRoom(socket, appRoom(socket.data.app));
    socket.use(handlers.limit(socket));
    socket.on("challenge:new", handlers.onNew);
    socket.on("challenge:solve", handlers.onSolve);
    socket.on("subscribe", handlers.onSubscribe);
    socket.on("unsubscribe", handlers.onUnsubscribe);
    socket.on("presence", handlers.onPresence);
    metrics.channelConnections.inc();
    metrics.channelSockets.inc();
    socket.on("disconnect", onDisconnect);
    socket.data.start(socket).catch(() => {
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
      // The node's members leave now, on every node, rather than when its leases end.
      await Promise.allSettled([io.of("/").adapter.close(), deps.presence.close()]);
    },
  };
}

/** Reads of the missed history tried after the feed is back: at once, then after 0.2, 0.4, 0.8, 1.6 s. */
const CATCH_UP_TRIES = 5;

/**
 * Sends each socket what it missed while the feed was away. The feed can be back before the
 * node's request connection to Redis is (both reconnect by themselves): a read that fails is tried
 * again a few times before its socket is closed at the transport (its client resumes with since).
 */
async function catchUpAll(sockets: ChannelSocket[], logger: Logger): Promise<void> {
  let pending = sockets;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const failed: ChannelSocket[] = [];
    let cause: unknown;
    await Promise.all(
      pending.map((s) =>
        s.data.catchUp(s).catch((err: unknown) => {
          cause = err;
          failed.push(s);
        }),
      ),
    );
    if (failed.length === 0) return;
    if (attempt === CATCH_UP_TRIES) {
      logger.warn(
        { sockets: failed.length, err: { message: cause instanceof Error ? cause.message : String(cause) } },
        "the history missed during a feed outage could not be read: sockets closed, to resume with since",
      );
      for (const s of failed) dropConnection(s);
      return;
    }
    await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    pending = failed.filter((s) => s.connected);
  }
}

/** The Socket.IO room of an app's sockets on a node (never a socket id: those have no colon). */
function appRoom(app: string): string {
  return `app:${app}`;
}
