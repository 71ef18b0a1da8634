// CORS for the endpoints browser apps call directly (docs/http-api.md#cors): any origin unless
// CORS_ORIGINS lists them; no cookies.
import cors from "cors";
import type { Config } from "../../config.js";

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

export function apiCors(config: Config) {
  const origins = config.corsOrigins;
  return cors({
    origin: origins === undefined ? "*" : [...origins],
    methods: ["GET", "HEAD", "POST", "OPTIONS"],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: ["Retry-After", "X-Request-Id", "WWW-Authenticate"],
    credentials: false,
    maxAge: 600,
  });
}
