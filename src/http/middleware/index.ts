// The middleware list: what every request goes through before its route, in order. It is the one
// list for both ways a request is served: http/app.ts mounts it on express, and the fast path
// (http/hot-routes.ts) runs the same entries on the requests it takes. A header, a check or a log
// field that every answer needs goes here, never in an app.use of its own (test/hot-routes.test.ts
// compares every header of both ways).
//
// Each entry must work on node's own request and response: read req.headers, req.method, req.url
// and the fields set here (req.id, req.baseLog), write with res.setHeader / res.statusCode / res.end,
// and call next() or next(err) — no express helpers such as res.set or req.get.
import type { RequestHandler } from "express";
import express from "express";
import type { Config } from "../../config.js";
import type { Logger } from "../../log.js";
import type { Metrics } from "../../metrics.js";
import { requestContext } from "./context.js";
import type { JsonRoute } from "../route.js";
import { corsMiddleware } from "./cors.js";
import { isPublishRequest } from "../realtime-publish.js";

export interface Middleware {
  /** For the reader and for errors at start: what it does. */
  name: string;
  /** Path prefixes it applies to, as express's app.use(paths) reads them; none: every request. */
  paths?: readonly string[];
  /**
   * It reads the request body and does nothing else: on a request that announces none (no
   * Content-Length, no Transfer-Encoding) it only sets req.body = undefined, so the fast path
   * skips it there.
   */
  bodyOnly?: boolean;
  handle: RequestHandler;
}

/** Bodies: 64 KB (docs/http-api.md#conventions). */
export const MAX_BODY = "64kb";

export function middlewareList(deps: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** True once the node drains: answers then say Connection: close. */
  draining: () => boolean;
  /** The route table (http/routes.ts): its "browsers" CORS rows get the CORS entries. */
  api: readonly JsonRoute[];
}): Middleware[] {
  const drainFlag: RequestHandler = (_req, res, next) => {
    if (deps.draining()) res.setHeader("Connection", "close");
    next();
  };
  const json = express.json({ limit: MAX_BODY, strict: false, type: ["application/json", "application/*+json"] });
  return [
    { name: "request context (X-Request-Id, access log, metrics)", handle: requestContext(deps.logger, deps.metrics) },
    { name: "Connection: close while draining", handle: drainFlag },
    ...corsMiddleware(deps.config, deps.api),
    {
      name: "JSON body",
      bodyOnly: true,
      // Not POST /realtime/publish's: it reads its own (larger) body once the app is authenticated.
      handle: (req, res, next) => {
        if (isPublishRequest(req.url)) next();
        else void json(req, res, next);
      },
    },
  ];
}

/** Whether a middleware entry applies to a request path (express's rule: a whole-segment prefix, any case). */
export function appliesTo(m: Middleware, path: string): boolean {
  if (m.paths === undefined) return true;
  const p = path.toLowerCase();
  return m.paths.some((prefix) => {
    const q = prefix.toLowerCase();
    return p === q || p.startsWith(q.endsWith("/") ? q : q + "/");
  });
}
