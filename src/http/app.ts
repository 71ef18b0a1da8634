// The HTTP side of a node: the middleware list and the routes (http/routes.ts) assembled into one
// request handler. Express serves every route (the route table's first, by apiRouter); the fast
// path (http/hot-routes.ts, unless HOT_ROUTES=off) takes the table's JSON routes' plainest
// requests first, through the same middleware list and the same route objects.
import type { IncomingMessage, ServerResponse } from "node:http";
import express from "express";
import type { Config } from "../config.js";
import type { Services } from "../domain/services.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { clientAddressOf, compileTrust } from "./client-address.js";
import { fastPath } from "./hot-routes.js";
import { errorHandler, notFoundHandler } from "./middleware/errors.js";
import { middlewareList } from "./middleware/index.js";
import { publicClientCors } from "./oauth/public-cors.js";
import { apiRouter, type PublicClientCors } from "./route.js";
import { routes } from "./routes.js";

export interface HttpAppDeps {
  config: Config;
  services: Services;
  logger: Logger;
  metrics: Metrics;
  /** True once the node drains (answers then say Connection: close). */
  draining: () => boolean;
}

export interface HttpApp {
  /** node's request listener for the HTTP server. */
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** The client address of a request (TRUST_PROXY), for the realtime channel's handshake too. */
  clientAddress: (req: IncomingMessage) => string;
}

export function createHttpApp(deps: HttpAppDeps): HttpApp {
  const { config } = deps;
  const trust = compileTrust(config.trustProxy);
  const clientAddress = clientAddressOf(config.trustProxy);
  const { api, routers } = routes(deps);
  const middleware = middlewareList({ ...deps, api });

  const app = express();
  app.disable("x-powered-by");
  // The same trust function as clientAddress: req.ip (the few handlers that read it) agrees.
  app.set("trust proxy", trust);
  app.set("etag", false);
  for (const m of middleware) {
    if (m.paths) app.use([...m.paths], m.handle);
    else app.use(m.handle);
  }
  // The "public clients" CORS steps, one for both ways (express's router and the fast path).
  let publicCors: PublicClientCors | undefined;
  const publicClientCorsSteps = () => (publicCors ??= publicClientCors(deps.services));
  app.use(apiRouter(api, { clientAddress, publicClientCors: publicClientCorsSteps, errorHandler }));
  for (const r of routers) app.use(r);
  app.use(notFoundHandler);
  app.use(errorHandler);

  if (!config.hotRoutes) return { handle: app, clientAddress };
  const fast = fastPath({ routes: api, middleware, clientAddress, publicClientCors: publicClientCorsSteps });
  return {
    handle: (req, res) => {
      if (!fast(req, res)) app(req, res);
    },
    clientAddress,
  };
}
