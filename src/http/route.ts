// Routes on express: route() maps one path to its handlers, and any other method gets 405 with
// Allow (OPTIONS: 204 + Allow). The JSON API is one table of JsonRoute objects (http/routes.ts):
// one object per endpoint and method — its OpenAPI operation (method, path, input schemas,
// responses), who may call it from other origins, and how it is served. Everything else is
// derived from that table: the express routes with their 405/OPTIONS (apiRouter below), the
// OpenAPI document (http/openapi.ts), the CORS middleware's paths and methods
// (http/middleware/cors.ts) and the fast path (http/hot-routes.ts).
// See docs/architecture.md, "Adding a route".
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import {
  Router,
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import { SigilError } from "../errors.js";
import { bodyObject } from "./input.js";
import type { ApiOperation } from "./openapi.js";

type Method = "get" | "post" | "put" | "delete" | "patch";

/** The Allow header of a path serving these methods: GET brings HEAD, and OPTIONS is always there. */
export function allowOf(methods: readonly Method[]): string {
  const allowed: string[] = [];
  for (const m of methods) {
    allowed.push(m.toUpperCase());
    if (m === "get") allowed.push("HEAD");
  }
  allowed.push("OPTIONS");
  return allowed.join(", ");
}

/** A step of a route: a handler, or an error handler for the steps before it (express runs it only on an error). */
type Step = RequestHandler | ErrorRequestHandler;

export function route(
  router: Router,
  path: string,
  /** Each method's steps; an error handler among them handles what the steps before it raised. */
  handlers: Partial<Record<Method, RequestHandler | Step[]>>,
  /** Steps for every request to the path, whatever its method, 405 and OPTIONS included. */
  before: readonly RequestHandler[] = [],
) {
  const r = router.route(path);
  if (before.length > 0) r.all(...before);
  for (const [m, h] of Object.entries(handlers) as Array<[Method, RequestHandler | Step[]]>) {
    r[m](...(Array.isArray(h) ? h : [h]));
  }
  const allow = allowOf(Object.keys(handlers) as Method[]);
  r.all((req, res, next) => {
    if (req.method === "OPTIONS") {
      res.set("Allow", allow).status(204).end();
      return;
    }
    next(
      new SigilError(
        405,
        "method_not_allowed",
        "err.methodNotAllowed",
        { method: req.method, allow },
        { Allow: allow },
      ),
    );
  });
}

/** What a JSON route's handler is given, whichever way the request came. */
export interface JsonRequest {
  headers: IncomingHttpHeaders;
  /** The query string's parameters (express's parser; empty on the fast path, which takes none). */
  query: Readonly<Record<string, unknown>>;
  /** The JSON body as an object, {} when there is none (any other JSON value is a 400). */
  body: Record<string, unknown>;
  /** The client's address (http/client-address.ts). */
  address: string;
}

/**
 * Who may call a route from a page on another origin (docs/http-api.md#cors):
 * - "browsers": any origin, or the CORS_ORIGINS (the middleware list's CORS entries);
 * - "public clients": the origins of public clients' redirect URLs (http/oauth/public-cors.ts);
 * absent: no CORS headers (a route may still send its own `Access-Control-Allow-Origin: *`).
 */
export type CorsPolicy = "browsers" | "public clients";

interface RouteCommon {
  /** Its OpenAPI operation: method, path, input schemas, responses — the one place both are written. */
  spec: ApiOperation;
  cors?: CorsPolicy;
}

/** A JSON endpoint, declared once, in the table of http/routes.ts. */
export type JsonRoute = RouteCommon &
  (
    | {
        /**
         * JSON in, JSON out: the reply's status and JSON body; a throw is mapped by sendError.
         * Express serves it, and the fast path too (its plainest requests, HOT_ROUTES=on).
         */
        handle(req: JsonRequest): Promise<{ status: number; body: unknown }>;
        /** Response headers of every answer, errors included (a body that cannot be read too). */
        headers?: Readonly<Record<string, string>>;
        /**
         * Readers of a body the middleware list's JSON reader leaves alone (the OAuth endpoints'
         * form bodies), run after it on both ways. Without them the fast path takes no body.
         */
        bodyReaders?: readonly RequestHandler[];
        /**
         * The fast path runs the middleware list, the body readers, the "public clients" CORS
         * step (after the body, as express) and this handler, nothing else.
         */
        cors?: CorsPolicy;
        express?: undefined;
        before?: undefined;
      }
    | {
        /**
         * Served by express only, by these handlers in order (a body parser, then the endpoint):
         * for what is not JSON in and out (a form body, a text answer, the pages' sessions). The
         * "public clients" CORS step runs just before the last one, after the body is read.
         */
        express: RequestHandler[];
        /**
         * Steps every request to the path goes through first, whatever its method (a 405 and
         * OPTIONS too): the pages' headers and session for the passkey endpoints.
         */
        before?: readonly RequestHandler[];
        handle?: undefined;
        headers?: undefined;
        bodyReaders?: undefined;
      }
  );

/** A route the fast path can serve: JSON in, JSON out. */
export type HotRoute = Extract<JsonRoute, { handle: unknown }>;

export const isHot = (r: JsonRoute): r is HotRoute => r.handle !== undefined;

/** What res.json does, on node's response: Content-Type, Content-Length, the JSON text. */
export function sendJson(
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

/**
 * Serves a JSON route on node's request and response (express's are the same objects): the
 * route's headers, its handler, the JSON reply. A throw is left to the caller's error path.
 */
export async function serveJson(
  route: HotRoute,
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  query: Readonly<Record<string, unknown>>,
  address: string,
): Promise<void> {
  const { headers } = route;
  if (headers) for (const k of Object.keys(headers)) res.setHeader(k, headers[k]!);
  const out = await route.handle({ headers: req.headers, query, body: bodyObject(req), address });
  sendJson(res, out.status, out.body);
}

/** A step that sets the route's headers before its body is read: a body that cannot be read is answered with them too. */
export function routeHeaders(route: HotRoute): RequestHandler {
  const { headers } = route;
  return (_req, res, next) => {
    if (headers) for (const k of Object.keys(headers)) res.setHeader(k, headers[k]!);
    next();
  };
}

/** The steps of the "public clients" CORS policy (http/oauth/public-cors.ts). */
export interface PublicClientCors {
  /** OPTIONS: a preflight's CORS headers, then next() (the route's 204 + Allow). */
  preflight: RequestHandler;
  /** Before the endpoint, after its body is read: the CORS headers for the client it names. */
  request: RequestHandler;
}

/**
 * The express side of the table: every path's methods, with 405 + Allow for any other method and
 * 204 + Allow for OPTIONS (route()), the "public clients" preflight, and the JSON error format for
 * every failure on these paths, whatever router comes after (the pages' error page never sees them).
 */
export function apiRouter(
  table: readonly JsonRoute[],
  deps: {
    clientAddress: (req: IncomingMessage) => string;
    publicClientCors: () => PublicClientCors;
    /** The JSON API's error handler (http/middleware/errors.ts). */
    errorHandler: ErrorRequestHandler;
  },
): Router {
  const router = Router();
  const byPath = new Map<string, JsonRoute[]>();
  for (const r of table) byPath.set(r.spec.path, [...(byPath.get(r.spec.path) ?? []), r]);
  let publicCors: PublicClientCors | undefined;
  for (const [path, routes] of byPath) {
    const handlers: Partial<Record<Method, RequestHandler[]>> = {};
    for (const r of routes) {
      const { method } = r.spec;
      if (handlers[method]) throw new Error(`the route table has ${method.toUpperCase()} ${path} twice`);
      const steps = isHot(r)
        ? [
            ...(r.bodyReaders ? [routeHeaders(r), ...r.bodyReaders] : []),
            (req: Request, res: Response, next: NextFunction) =>
              serveJson(r, req, res, req.query as Record<string, unknown>, deps.clientAddress(req)).catch(next),
          ]
        : [...r.express];
      if (r.cors === "public clients") {
        publicCors ??= deps.publicClientCors();
        steps.splice(steps.length - 1, 0, publicCors.request);
      }
      handlers[method] = steps;
    }
    if (routes.some((r) => r.cors === "public clients")) router.options(path, publicCors!.preflight);
    const before = routes.find((r) => r.before)?.before;
    if (before && routes.some((r) => r.before !== before)) throw new Error(`the rows of ${path} differ in before`);
    route(router, path, handlers, before);
  }
  const paths = [...byPath.keys()];
  if (paths.length > 0) {
    // Exactly these paths (express mounts by prefix: the rest of the URL is req.path then).
    router.use(paths, (err: unknown, req: Request, res: Response, next: NextFunction) => {
      if (req.path === "/") deps.errorHandler(err, req, res, next);
      else next(err);
    });
  }
  return router;
}
