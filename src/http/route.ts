// Routes on express: route() maps one path to its handlers, and any other method gets 405 with
// Allow (OPTIONS: 204 + Allow). jsonRoutes() mounts JSON routes declared as JsonRoute: one object
// per endpoint (its OpenAPI operation — method, path, input schemas, responses —, the headers it
// sets and its handler), which the fast path (http/hot-routes.ts) serves from the same object.
// See docs/architecture.md, "Adding a route".
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Router, type Request, type RequestHandler, type Response } from "express";
import { SigilError } from "../errors.js";
import { bodyObject } from "./input.js";
import type { ApiOperation, ApiRegistry } from "./openapi.js";

type Method = "get" | "post" | "put" | "delete" | "patch";

export function route(
  router: Router,
  path: string,
  handlers: Partial<Record<Method, RequestHandler | RequestHandler[]>>,
) {
  const r = router.route(path);
  const allowed: string[] = [];
  for (const [m, h] of Object.entries(handlers) as Array<[Method, RequestHandler | RequestHandler[]]>) {
    r[m](...(Array.isArray(h) ? h : [h]));
    allowed.push(m.toUpperCase());
    if (m === "get") allowed.push("HEAD");
  }
  allowed.push("OPTIONS");
  const allow = allowed.join(", ");
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

/** A JSON endpoint, declared once. */
export interface JsonRoute {
  /** Its OpenAPI operation: method (get or post), path, input schemas, responses. */
  spec: ApiOperation & { method: "get" | "post" };
  /** Response headers of every answer, errors included. */
  headers?: Readonly<Record<string, string>>;
  /** Serves the request: the reply's status and JSON body; a throw is mapped by errorReply. */
  handle(req: JsonRequest): Promise<{ status: number; body: unknown }>;
  /**
   * Other methods on the same path that only express serves (say, a POST whose body is not JSON),
   * so that they do not get the 405 of a path with one declared method. The fast path ignores
   * them; their OpenAPI operations are the caller's to add.
   */
  express?: Partial<Record<Method, RequestHandler | RequestHandler[]>>;
}

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
  route: JsonRoute,
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

/** A router serving these JSON routes through express (405/OPTIONS as route() does); adds them to the OpenAPI document. */
export function jsonRoutes(
  routes: readonly JsonRoute[],
  api: ApiRegistry,
  clientAddress: (req: IncomingMessage) => string,
): Router {
  const router = Router();
  const byPath = new Map<string, Partial<Record<Method, RequestHandler | RequestHandler[]>>>();
  for (const r of routes) {
    const handler = async (req: Request, res: Response) =>
      serveJson(r, req, res, req.query as Record<string, unknown>, clientAddress(req));
    byPath.set(r.spec.path, { ...byPath.get(r.spec.path), [r.spec.method]: handler, ...r.express });
    api.add(r.spec);
  }
  for (const [path, handlers] of byPath) route(router, path, handlers);
  return router;
}
