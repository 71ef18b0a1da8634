// createServer(deps) builds one Sigil node: the express app, the HTTP server and (later) the
// realtime channel. It never reads process.env: main.ts and the tests pass everything in.
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import proxyaddr from "proxy-addr";
import express, { type Express, type RequestHandler } from "express";
import type { Config } from "./config.js";
import { causeForLog, type ErrorBody } from "./errors.js";
import { Accounts } from "./domain/accounts.js";
import { appExistsIn, Apps } from "./domain/apps.js";
import { ChannelEvents } from "./domain/channel-events.js";
import { Challenges } from "./domain/challenges.js";
import { bearerToken, CustomTokens, type AppExists } from "./domain/custom-tokens.js";
import { OAuth } from "./domain/oauth.js";
import { openIdFor } from "./domain/oidc-setup.js";
import { challengeEndpoints, challengeRoutes } from "./http/challenges/index.js";
import type { OwnerResolver } from "./http/challenges/new.js";
import { clientBundleRoutes } from "./http/client-bundle.js";
import { hotRoutes } from "./http/hot-routes.js";
import { USER_HEADERS, userInfo } from "./http/oauth/user.js";
import { apiCors } from "./http/middleware/cors.js";
import { requestContext } from "./http/middleware/context.js";
import { errorHandler, notFoundHandler } from "./http/middleware/errors.js";
import { ApiRegistry } from "./http/openapi.js";
import { oauthRoutes } from "./http/oauth/index.js";
import { opsRoutes } from "./http/ops.js";
import { pageRoutes } from "./http/pages/index.js";
import type { Logger } from "./log.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { attachRealtime } from "./realtime/index.js";
import type { ChannelServer } from "./realtime/types.js";
import type { Store } from "./store/port.js";
import type { RealtimeClients } from "./store/port.js";
import { VERSION } from "./version.js";

export interface ServerDeps {
  config: Config;
  store: Store;
  logger: Logger;
  metrics?: Metrics;
  /** The realtime channel's feed and adapter clients (store/port.ts; opened by openStore). */
  realtime: RealtimeClients;
  /**
   * Whether an app (client_id) exists, for issuing CUSTOM TOKENs. Defaults to the registered
   * apps; the channel tests pass their own directory of app ids.
   */
  appExists?: AppExists;
  /**
   * Whether listen() makes the ID token signing key when the store has none (default true: the
   * first node to start makes it). The in-process test nodes pass false, so that the hundreds of
   * nodes a test run starts do not each pay for an RSA key; they make it when first needed.
   */
  signingKeyAtStart?: boolean;
}

export interface SigilServer {
  app: Express;
  httpServer: HttpServer;
  api: ApiRegistry;
  /** The realtime channel's Socket.IO server. */
  io: ChannelServer;
  /** CUSTOM TOKENs: create, list, revoke (for /developers and the CLI). */
  customTokens: CustomTokens;
  /** Starts listening; resolves with the address (http://host:port). Port 0 picks a free one. */
  listen(port?: number, host?: string): Promise<string>;
  /** Drains: stops accepting, lets in-flight requests finish (up to the shutdown timeout). */
  close(): Promise<void>;
}

/** Headers in all: 16 KB (docs/http-api.md#conventions); bodies: 64 KB. */
export const MAX_HEADER_BYTES = 16 * 1024;
export const MAX_BODY = "64kb";

export function createServer(deps: ServerDeps): SigilServer {
  const { config, store, logger } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const api = new ApiRegistry();
  let draining = false;

  const accounts = new Accounts(store);
  // Deleting an app revokes its CUSTOM TOKENs first (a token check does not look the app up).
  const apps = new Apps({
    store,
    secret: config.secret,
    gracePeriod: config.secretGracePeriod,
    onDelete: (clientId) => customTokens.revokeAll(clientId),
  });
  const appExists: AppExists = deps.appExists ?? appExistsIn(store);
  const customTokens = new CustomTokens({ store, secret: config.secret, appExists });
  const oauth = new OAuth({
    store,
    secret: config.secret,
    codeTtl: config.codeTtl,
    accessTokenTtl: config.accessTokenTtl,
    refreshTokenTtl: config.refreshTokenTtl,
  });
  const openid = openIdFor(config, store);
  const events = new ChannelEvents(store, config);
  const challenges = new Challenges({
    store,
    secret: config.secret,
    limits: config.solveLimits,
    history: config,
  });
  // Authorization: Bearer <CUSTOM TOKEN> makes the challenge that token's app's (docs/http-api.md#challenges).
  const resolveOwner: OwnerResolver = async (req) => {
    const h = req.headers.authorization;
    if (h === undefined) return undefined;
    return (await customTokens.verify(bearerToken(h))).app;
  };
  const challengeApi = challengeEndpoints(challenges, resolveOwner);

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxy);
  app.set("etag", false);
  const context = requestContext(logger, metrics);
  const drainFlag: RequestHandler = (_req, res, next) => {
    if (draining) res.setHeader("Connection", "close");
    next();
  };
  const cors = apiCors(config);
  app.use(context);
  app.use(drainFlag);
  app.use(["/challenge", "/auth/user", "/userinfo"], cors);
  app.use(express.json({ limit: MAX_BODY, strict: false, type: ["application/json", "application/*+json"] }));

  app.use(challengeRoutes(challenges, challengeApi, api));
  app.use(oauthRoutes({ config, store, accounts, apps, oauth, openid }, api));
  app.use(pageRoutes({ config, store, accounts, apps, oauth, customTokens, openid }));
  app.use(opsRoutes({ store, metrics, api, baseUrl: config.baseUrl, version: VERSION }));
  app.use(clientBundleRoutes());

  app.use(notFoundHandler);
  app.use(errorHandler);

  // POST /challenge/solve and /challenge/new, and GET /auth/user, without a body: the same code
  // without express's router and prototypes (see http/hot-routes.ts); everything else goes to express.
  const userDeps = { accounts, apps, oauth, baseUrl: config.baseUrl };
  const hot = hotRoutes({
    app,
    before: [context, drainFlag, cors],
    routes: {
      "/challenge/solve": { run: (req, address) => challengeApi.solveChallenge(req, {}, address) },
      "/challenge/new": { anonymousOnly: true, run: (req, address) => challengeApi.newChallenge(req, {}, address) },
      "/auth/user": {
        method: "GET",
        headers: USER_HEADERS,
        run: async (req) => ({ status: 200, body: await userInfo(userDeps, req) }),
      },
    },
  });
  const httpServer = createHttpServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    if (!hot(req, res)) app(req, res);
  });
  // An Expect other than 100-continue (node answers that one itself): 417 in the documented error form, not
  // node's bare 417. The request is not served and its body is not read, so the connection closes.
  httpServer.on("checkExpectation", (req, res) => {
    const body = JSON.stringify({
      error: "expectation_failed",
      error_description: "The Expect header is not supported; only 100-continue is.",
    } satisfies ErrorBody);
    res.writeHead(417, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      Connection: "close",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  httpServer.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    if (err.code === "HPE_HEADER_OVERFLOW") {
      const body = JSON.stringify({
        error: "request_too_large",
        error_description: "The request headers are larger than 16 KB in all.",
      });
      // A response to HEAD has no body: a client would read it as the start of another response.
      const raw = (err as { rawPacket?: unknown }).rawPacket;
      const head = Buffer.isBuffer(raw) && raw.subarray(0, 5).toString("latin1") === "HEAD ";
      socket.end(
        `HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? "" : body}`,
      );
      return;
    }
    socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
  });

  const trustProxy = app.get("trust proxy fn") as (addr: string, hop: number) => boolean;
  const realtime = attachRealtime(httpServer, {
    config,
    logger,
    tokens: customTokens,
    events,
    challenges,
    clients: deps.realtime,
    metrics,
    clientAddress: (req) => proxyaddr(req, trustProxy),
  });

  return {
    app,
    httpServer,
    api,
    io: realtime.io,
    customTokens,
    async listen(port = config.port, host = config.host) {
      // Hear the feed before taking connections; do not wait forever for a Redis that is away.
      await Promise.race([realtime.ready.catch(() => {}), new Promise((r) => setTimeout(r, 3000).unref())]);
      // The first node to start makes the signing key (nodes starting with it wait for its key);
      // a node that cannot reach the store now makes it when first needed.
      if (deps.signingKeyAtStart !== false) {
        await openid.keys
          .ensure()
          .catch((err: unknown) => logger.warn({ cause: causeForLog(err) }, "signing key: not checked at start"));
      }
      return new Promise((resolve, reject) => {
        httpServer.once("error", reject);
        httpServer.listen(port, host, () => {
          httpServer.off("error", reject);
          const a = httpServer.address() as AddressInfo;
          const h = a.family === "IPv6" ? `[${a.address}]` : a.address;
          resolve(`http://${h === "[::]" || h === "0.0.0.0" ? "127.0.0.1" : h}:${a.port}`);
        });
      });
    },
    async close() {
      draining = true;
      await realtime.close();
      return new Promise<void>((resolve) => {
        if (!httpServer.listening) {
          resolve();
          return;
        }
        const force = setTimeout(() => httpServer.closeAllConnections(), config.shutdownTimeout * 1000);
        force.unref();
        // A keep-alive connection whose request was in flight becomes idle only later: keep
        // closing idle ones so that the drain ends when the last response does.
        const sweep = setInterval(() => httpServer.closeIdleConnections(), 50);
        sweep.unref();
        httpServer.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          resolve();
        });
        httpServer.closeIdleConnections();
      });
    },
  };
}
