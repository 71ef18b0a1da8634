// The hot routes — POST /challenge/solve, POST /challenge/new without a custom token, and GET
// /auth/user (exactly that path: no query string) — when the request has no body, are served on node's own request and response, without express's
// router, body parser or request/response prototypes. Profiling showed those cost more than
// the Redis round trips: a handler that answered at once without touching Redis still served
// ~40% of the raw baseline when it went through express (express sets the prototype of every
// request and response, and res.json goes through several layers).
// What stays the same: the middleware (request context, drain flag, CORS) — functions that use
// only node's req/res and the fields set below —, the endpoint code (the challenge routes run the
// same JsonEndpoint as their express handlers, http/challenges/endpoint.ts, and so the same domain
// use case), the error mapping (errorReply) and the JSON the client gets. Anything else (a body, a query string,
// another method, a custom token, the trailing-slash or case variants express accepts) goes
// through express as before. test/hot-routes.test.ts checks that both paths answer alike.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express, Request, RequestHandler, Response } from "express";
import type { Logger } from "../log.js";
import { errorReply } from "./middleware/errors.js";

export interface HotRoute {
  /** Serves the request: the reply's status and JSON body. */
  run(req: IncomingMessage, address: string): Promise<{ status: number; body: unknown }>;
  /** Leave requests with an Authorization header to express (the owner resolver takes express's request). */
  anonymousOnly?: boolean;
  /** The method served (default POST); any other goes to express. */
  method?: "GET" | "POST";
  /** Response headers of every answer, errors included (set where the express handler sets them). */
  headers?: Readonly<Record<string, string>>;
}

export interface HotRoutesDeps {
  app: Express;
  /** path → route. */
  routes: Record<string, HotRoute>;
  /** Middleware run first, in order, on node's req/res; each must call next() synchronously. */
  before: RequestHandler[];
}

const EMPTY_JSON_TYPE = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;

/** True when the request certainly has no body (so express.json would leave req.body empty). */
function noBody(req: IncomingMessage): boolean {
  const h = req.headers;
  // A Content-Encoding, even on an empty body, is express.json's to judge (400 when unreadable).
  if (h["transfer-encoding"] !== undefined || h["content-encoding"] !== undefined) return false;
  const len = h["content-length"];
  if (len === undefined) return true;
  // Content-Length: 0 (what browsers send): the JSON parser would make {} of it, the same result.
  return len === "0" && (h["content-type"] === undefined || EMPTY_JSON_TYPE.test(h["content-type"]));
}

/** What res.json does: Content-Type, Content-Length, the JSON text. */
function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Readonly<Record<string, string>>,
): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  if (headers) for (const k of Object.keys(headers)) res.setHeader(k, headers[k]!);
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/** Returns a function that serves a hot request and returns true, or returns false to let express. */
export function hotRoutes(deps: HotRoutesDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { app, routes, before } = deps;
  const table = new Map(Object.entries(routes));
  // The client address as express computes it (req.ip, honouring "trust proxy").
  const trusting = app.get("trust proxy") !== false;
  const addressOf = (req: IncomingMessage): string => {
    if (!trusting) return req.socket.remoteAddress ?? "unknown";
    const view = Object.create(app.request) as Request;
    Object.assign(view, { headers: req.headers, socket: req.socket, connection: req.socket });
    return view.ip ?? "unknown";
  };

  return (req, res) => {
    const url = req.url ?? "";
    const route = table.get(url);
    if (route === undefined || req.method !== (route.method ?? "POST") || !noBody(req)) return false;
    if (route.anonymousOnly && req.headers.authorization !== undefined) return false;

    // The fields the middleware reads from express's request: the route (metrics label it), path.
    const r = req as unknown as Request;
    Object.assign(r, { baseUrl: "", route: { path: url }, path: url, body: undefined });
    const fail = (err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const e = errorReply(err, (r as { log?: Logger }).log);
      sendJson(res, e.status, e.toBody(), e.headers);
    };
    let i = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined) return fail(err);
      const mw = before[i++];
      if (mw) {
        try {
          mw(r, res as unknown as Response, next);
        } catch (e) {
          fail(e);
        }
        return;
      }
      if (route.headers) for (const k of Object.keys(route.headers)) res.setHeader(k, route.headers[k]!);
      route.run(req, addressOf(req)).then((out) => sendJson(res, out.status, out.body), fail);
    };
    next();
    return true;
  };
}
