// startNode: the one way to start a Sigil node — src/main.ts, the tests (test/support/nodes.ts)
// and the benches (through main.ts) all come here. It builds the domain services on the store it
// is given, the HTTP side (http/app.ts), the HTTP server (http/listener.ts) and the realtime
// channel (realtime/), listens, and returns the node's URL and how to drain it.
import { DeliverySender } from "./domain/deliveries.js";
import type { AddressInfo } from "node:net";
import { listeningOn, type Config } from "./config.js";
import { causeForLog } from "./errors.js";
import type { KeyPairMaker } from "./domain/keys.js";
import { createServices, type Services } from "./domain/services.js";
import { createHttpApp } from "./http/app.js";
import { createHttpServer, drain, listen, type Listening } from "./http/listener.js";
import { webauthnLibrary } from "./domain/webauthn.js";
import { sharpLibrary } from "./domain/pictures.js";
import type { Logger } from "./log.js";
import type { Metrics } from "./metrics.js";
import { attachRealtime } from "./realtime/index.js";
import type { ChannelServer } from "./realtime/types.js";
import type { OpenedNode } from "./store/index.js";
import type { MigrateOptions } from "./store/migrations.js";
import { checkStoreAtStart, type StoreRefusedError } from "./store/start.js";

export interface NodeOptions {
  /** The store and the realtime channel's clients (openStore); the caller closes it after the node. */
  opened: OpenedNode;
  logger: Logger;
  /** Where the node counts requests and sockets (createMetrics; main.ts adds the process metrics). */
  metrics: Metrics;
  /**
   * A store that could not be checked at start (Redis away) and is refused once it answers: a
   * newer data version, or eviction (store/start.ts). main.ts exits; by default it is logged.
   */
  onStoreRefused?: (err: StoreRefusedError) => void;
  /** The code's data version and migrations (tests inject their own; store/migrations.ts). */
  migrate?: MigrateOptions;
  /** How signing keys are made (domain/keys.ts makeKeyPair unless given; tests reuse pairs made ahead). */
  makeKeyPair?: KeyPairMaker;
}

export interface SigilNode {
  /** A URL this machine reaches it at: http://host:port (for every interface, 127.0.0.1). */
  url: string;
  /** Where it listens, as server.address() says: the address bound (http://[::]:3000 for every interface). */
  listening: Listening;
  /** The configuration it runs with (BASE_URL and AUTH_URL with the real port when PORT=0). */
  config: Config;
  services: Services;
  /** The realtime channel's Socket.IO server. */
  io: ChannelServer;
  /** Drains: refuses new sockets and requests, lets in-flight requests finish (up to SHUTDOWN_TIMEOUT). */
  close(): Promise<void>;
}

/** Longest wait for the realtime feed before taking connections (a Redis that is away). */
const FEED_WAIT_MS = 3000;

export async function startNode(given: Config, opts: NodeOptions): Promise<SigilNode> {
  const { logger, opened, metrics } = opts;
  // Before anything listens: a store this code must not serve on (a newer data version, a Redis
  // that evicts) stops the start with StoreRefusedError; an older one is migrated first.
  const storeChecks = await checkStoreAtStart(
    opened,
    given,
    logger,
    opts.onStoreRefused ?? ((err) => logger.fatal(err.message)),
    opts.migrate ? { migrate: opts.migrate } : {},
  );
  let draining = false;
  // The request handler comes below, before the realtime channel (which wraps it for /socket.io/).
  const server = createHttpServer(given.keepAliveTimeout);

  // PORT=0: bind first, so that the URLs that follow the port (config.ts, listeningOn) are known
  // before anything is built on them. No client knows the port before startNode returns.
  let listening: Listening | undefined;
  let config = given;
  if (given.port === 0) {
    listening = await listen(server, 0, given.host);
    config = listeningOn(given, (server.address() as AddressInfo).port);
  }

  let built;
  try {
    const services = createServices(
      config,
      storeChecks.store,
      logger,
      opts.makeKeyPair ? { makeKeyPair: opts.makeKeyPair } : {},
    );
    const http = createHttpApp({ config, services, logger, metrics, draining: () => draining });
    server.on("request", http.handle);
    const realtime = attachRealtime(server, {
      config,
      logger,
      tokens: services.customTokens,
      users: services.oauth.grants.userAccess,
      events: services.events,
      messages: services.channels,
      challenges: services.challenges,
      identity: services.identityEvents,
      presence: services.presence,
      clients: opened.realtime,
      metrics,
      clientAddress: http.clientAddress,
    });
    built = { services, realtime };
  } catch (err) {
    storeChecks.stop();
    server.close(); // e.g. a TRUST_PROXY that proxy-addr cannot read
    throw err;
  }
  const { services, realtime } = built;
  // Identity events' deliveries (webhooks, back-channel logout): every node sends what it takes.
  const sender = new DeliverySender({
    store: storeChecks.store,
    identity: services.identityEvents,
    endpoints: services.eventEndpoints,
    logoutToken: (clientId, sub, sid) => services.openid.idTokens.logoutToken(clientId, sub, sid),
    timeoutMs: config.deliveryTimeout,
    retryBaseMs: config.deliveryRetryBase,
    retryForSeconds: config.deliveryRetryFor,
    pollMs: config.deliveryPoll,
    allowPrivate: config.deliveryAllowPrivate,
    // What failed and why; never a delivery's contents.
    onError: (what, err) => logger.warn({ cause: causeForLog(err) }, what),
  });
  services.identityEvents.onQueued = () => sender.nudge();
  services.channels.onQueued = () => sender.nudge();

  // Hear the feed before taking connections; do not wait forever for a Redis that is away.
  await Promise.race([realtime.ready.catch(() => {}), new Promise((r) => setTimeout(r, FEED_WAIT_MS).unref())]);
  // The first node to start makes the signing key (nodes starting with it wait for its key); a
  // node that cannot reach the store now makes it when first needed (SIGNING_KEY_AT_START).
  if (config.signingKeyAtStart) {
    await services.openid.keys
      .ensure()
      .catch((err: unknown) => logger.warn({ cause: causeForLog(err) }, "signing key: not checked at start"));
  }
  // What the `sigil` command loads only when it needs it (passkeys, pictures), loaded now, while
  // the feed and the key are awaited, so that no request pays for it.
  await Promise.all([webauthnLibrary(), sharpLibrary()]);
  listening ??= await listen(server, config.port, config.host);
  sender.start();

  return {
    url: listening.url,
    listening,
    config,
    services,
    io: realtime.io,
    async close() {
      storeChecks.stop();
      draining = true;
      // No new attempts; those under way (DELIVERY_TIMEOUT at most) end beside the drain. What
      // is still queued is another node's to send (or this one's after a restart).
      const senderStopped = sender.stop();
      await realtime.close();
      await drain(server, config.shutdownTimeout);
      // The audit records and identity events of the last requests, before the caller closes the store.
      await services.audit.settled();
      await services.identityEvents.settled();
      await senderStopped;
    },
  };
}
