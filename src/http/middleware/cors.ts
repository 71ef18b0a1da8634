// CORS for the routes browser apps call directly (docs/http-api.md#cors), the route table's rows
// with cors: "browsers" (http/routes.ts): any origin unless CORS_ORIGINS lists them; no cookies.
// A preflight is answered with the methods the table gives the path, then goes on to the route's
// OPTIONS answer (204 + Allow), like any OPTIONS request.
import cors from "cors";
import type { RequestHandler } from "express";
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
  return cors({
    origin: origins === undefined ? "*" : [...origins],
    methods: [...methods],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: ["Retry-After", "X-Request-Id", "WWW-Authenticate"],
    credentials: false,
    maxAge: 600,
    preflightContinue: true,
  });
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
