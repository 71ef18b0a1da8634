// The fast path: the route table's JSON-in-JSON-out rows (http/routes.ts; JsonRoute with `handle`,
// http/route.ts) served on node's own request and
// response, without express's router and request/response prototypes, which profiling showed to
// cost more than the Redis round trips on the busiest endpoints (docs/benchmarks.md).
//
// It is not a second pipeline: it runs the same middleware list as express (http/middleware/
// index.ts, the entries whose paths cover the route), then the same route object through the same
// serveJson as the express handler, and maps errors with the same sendError. It takes a request
// only when the URL is exactly a declared path (no query string, no trailing slash, same case),
// the method is the declared one and there is no body (Content-Length: 0 counts as none) — or,
// for a route with body readers of its own (the OAuth endpoints' form bodies), a body of a
// declared length, read by the same readers as on express, then the same "public clients" CORS
// step. Anything else goes to express, which serves it from the same declaration. HOT_ROUTES=off
// sends everything to express.
// test/hot-routes.test.ts compares every header, the status and the body of both ways.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import { sendError } from "./middleware/errors.js";
import { appliesTo, type Middleware } from "./middleware/index.js";
import { isHot, routeHeaders, serveJson, type HotRoute, type JsonRoute, type PublicClientCors } from "./route.js";

/** Serves a request and returns true, or returns false to leave it to express. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

const NO_QUERY: Readonly<Record<string, unknown>> = Object.freeze({});

interface Entry {
  route: HotRoute;
  /** The middleware entries that apply to the route's path, in order. */
  chain: RequestHandler[];
  /** The same without the body readers (Middleware.bodyOnly), for requests that announce no body. */
  bare: RequestHandler[];
  /** The route reads bodies of its own (HotRoute.bodyReaders): it takes requests with one. */
  bodies: boolean;
}

export function fastPath(deps: {
  routes: readonly JsonRoute[];
  middleware: readonly Middleware[];
  clientAddress: (req: IncomingMessage) => string;
  /** The "public clients" CORS steps, the same as express's router runs (route.ts apiRouter). */
  publicClientCors: () => PublicClientCors;
}): FastPath {
  // path → method → the route and its middleware.
  const table = new Map<string, Map<string, Entry>>();
  for (const route of deps.routes.filter(isHot)) {
    const { method, path } = route.spec;
    const applying = deps.middleware.filter((m) => appliesTo(m, path));
    const own = route.bodyReaders ? [routeHeaders(route), ...route.bodyReaders] : [];
    // As on express, the "public clients" CORS step comes after the body is read (it reads client_id).
    if (route.cors === "public clients") own.push(deps.publicClientCors().request);
    const entry: Entry = {
      route,
      chain: [...applying.map((m) => m.handle), ...own],
      bare: [...applying.filter((m) => !m.bodyOnly).map((m) => m.handle), ...own],
      bodies: route.bodyReaders !== undefined,
    };
    if (!table.has(path)) table.set(path, new Map());
    table.get(path)!.set(method.toUpperCase(), entry);
  }

  return (req, res) => {
    const entry = table.get(req.url ?? "")?.get(req.method ?? "");
    if (entry === undefined) return false;
    // A body (or a body of unknown length) goes to express; Content-Length: 0 (what browsers
    // send) stays, through the body readers, which make {} of it as they would on express.
    const h = req.headers;
    if (h["transfer-encoding"] !== undefined) return false;
    const length = h["content-length"];
    if (length !== undefined && length !== "0" && !entry.bodies) return false;
    const { route } = entry;
    const chain = length === undefined ? entry.bare : entry.chain;
    const path = route.spec.path;
    // The fields express's router would set and the middleware read: the route (metrics label
    // it) and the path (the access log).
    const r = req as Request;
    Object.assign(r, { baseUrl: "", route: { path }, path });
    const w = res as Response;
    const fail = (err: unknown) => sendError(r, w, err);
    let i = 0;
    const next = (err?: unknown): void => {
      if (err) return fail(err); // as express: next(), next(null) and next(undefined) go on
      const mw = chain[i++];
      if (mw === undefined) {
        serveJson(route, r, w, NO_QUERY, deps.clientAddress(req)).catch(fail);
        return;
      }
      try {
        void mw(r, w, next);
      } catch (e) {
        fail(e);
      }
    };
    next();
    return true;
  };
}
