// CORS for the routes browser apps call directly (docs/http-api.md#cors), the route table's rows
// with cors: "browsers" (http/routes.ts): any origin unless CORS_ORIGINS lists them; no cookies.
// A preflight is answered with the methods the table gives the path, then goes on to the route's
// OPTIONS answer (204 + Allow), like any OPTIONS request.
import cors from "cors";
import type { Request, RequestHandler, Response } from "express";
import type { Config } from "../../config.js";
import { allowOf, type JsonRoute } from "../route.js";

export const CORS_ALLOWED_HEADERS = [
  "question",
  "answer",
  "key",
  "a",
  "ttl",
  "authorization",
  "client_id",
  "content-type",
];

export function apiCors(config: Config, methods: readonly string[]): RequestHandler {
  const origins = config.corsOrigins;
  const handler = cors({
    origin: origins === undefined ? "*" : [...origins],
    methods: [...methods],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: ["Retry-After", "X-Request-Id", "WWW-Authenticate"],
    credentials: false,
    maxAge: 600,
    preflightContinue: true,
  });
  if (origins !== undefined) return handler;
  // Any origin allowed: the package's headers for a request that is not a preflight depend on
  // nothing in the request. They are asked of it once and set on each such request, without the
  // options object, closures and header list it makes per request (a solve's busiest middleware
  // step; test/cors.test.ts compares both ways).
  const fixed = simpleRequestHeaders(handler);
  return (req, res, next) => {
    if (req.method === "OPTIONS") return handler(req, res, next);
    for (const [name, value] of fixed) res.setHeader(name, value);
    next();
  };
}

/** The headers a cors() handler sets on a request that is not a preflight, asked once. */
function simpleRequestHeaders(handler: RequestHandler): Array<[string, string]> {
  const set: Array<[string, string]> = [];
  let passed = false;
  const res = {
    getHeader: (name: string) => set.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1],
    setHeader: (name: string, value: unknown) => void set.push([name, String(value)]),
  };
  void handler({ method: "POST", headers: {} } as Request, res as unknown as Response, () => {
    passed = true;
  });
  if (!passed || set.some(([k]) => k.toLowerCase() === "vary"))
    throw new Error("CORS: the headers for any origin were expected not to depend on the request");
  return set;
}

/**
 * The CORS entries of the middleware list: for the table's "browsers" paths, one entry per set of
 * methods (Access-Control-Allow-Methods: the path's methods, GET with HEAD).
 */
export function corsMiddleware(
  config: Config,
  table: readonly JsonRoute[],
): Array<{ name: string; paths: string[]; handle: RequestHandler }> {
  const methodsOf = new Map<string, Array<JsonRoute["spec"]["method"]>>();
  for (const r of table) {
    if (r.cors === "browsers") methodsOf.set(r.spec.path, [...(methodsOf.get(r.spec.path) ?? []), r.spec.method]);
  }
  const pathsOf = new Map<string, string[]>();
  for (const [path, methods] of methodsOf) {
    const allow = allowOf(methods).replace(", OPTIONS", "");
    pathsOf.set(allow, [...(pathsOf.get(allow) ?? []), path]);
  }
  return [...pathsOf].map(([allow, paths]) => ({
    name: `CORS (${allow}): ${paths.join(", ")}`,
    paths,
    handle: apiCors(config, allow.split(", ")),
  }));
}
