// The one error family of Sigil (docs/errors.md). Domain code throws these; http/ maps them to a
// response once (http/middleware/errors.ts) and realtime/ maps them to an ack or connect_error.

import type { ErrorCode } from "./protocol.js";

export type { ErrorCode };

export interface ErrorBody {
  error: ErrorCode;
  error_description: string;
}

export class SigilError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly description: string;
  /** Extra response headers (Retry-After, WWW-Authenticate, Allow). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: ErrorCode, description: string, headers: Record<string, string> = {}) {
    super(description);
    this.name = "SigilError";
    this.status = status;
    this.code = code;
    this.description = description;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return { error: this.code, error_description: this.description };
  }
}

/** The store (Redis) cannot be reached or did not answer in time. */
export class StoreUnavailableError extends Error {
  constructor(cause?: unknown) {
    super("the store cannot be reached", { cause });
    this.name = "StoreUnavailableError";
  }
}

export const invalidRequest = (d: string) => new SigilError(400, "invalid_request", d);
export const notFound = (d = "There is nothing at this address.") => new SigilError(404, "not_found", d);
export const invalidToken = (d = "The access token is missing, unknown, expired or revoked.") =>
  new SigilError(401, "invalid_token", d, { "WWW-Authenticate": 'Bearer error="invalid_token"' });
/** RFC 6750 §3.1: the token is good but its grant does not cover what is asked. */
export const insufficientScope = (scope: string) =>
  new SigilError(403, "insufficient_scope", `The access token was not granted the "${scope}" scope.`, {
    "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${scope}"`,
  });
export const rateLimited = (retryAfterSeconds: number, d = "Too many attempts; try again later.") =>
  new SigilError(429, "rate_limited", d, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
export const unavailable = () =>
  new SigilError(503, "unavailable", "The service cannot reach its store right now; try again shortly.", {
    "Retry-After": "1",
  });
export const serverError = () => new SigilError(500, "server_error", "Something went wrong on our side.");

/**
 * A client-side error raised by a library that read the request (body-parser, raw-body, zlib
 * behind them, the router): http-errors style, `expose: true` with a 4xx status. Whatever its
 * kind, the request could not be read: 413 stays request_too_large, every other one (a
 * Content-Encoding that is unknown or does not match the bytes, a bad charset, bad JSON) is 400
 * invalid_request (docs/errors.md), so no new library error type can turn into a 500.
 */
function fromClientError(err: unknown): SigilError | undefined {
  if (!err || typeof err !== "object") return undefined;
  const e = err as { status?: unknown; statusCode?: unknown; expose?: unknown; type?: unknown };
  const status = typeof e.status === "number" ? e.status : e.statusCode;
  if (typeof status !== "number" || status < 400 || status > 499) return undefined;
  // The router's 400 for a path parameter that is not valid percent-encoding has no `expose`.
  if (err instanceof URIError && status === 400) return invalidRequest("The address could not be read.");
  if (e.expose !== true) return undefined;
  if (status === 413) return new SigilError(413, "request_too_large", "The body is larger than this endpoint accepts.");
  if (e.type === "entity.parse.failed") return invalidRequest("The body is not valid JSON.");
  return invalidRequest("The body cannot be read: check its Content-Type, charset and Content-Encoding.");
}

/** Any thrown value → a SigilError safe to show (unexpected errors lose their detail). */
export function toSigilError(err: unknown): SigilError {
  if (err instanceof SigilError) return err;
  if (err instanceof StoreUnavailableError) return unavailable();
  return fromClientError(err) ?? serverError();
}

/**
 * What a log line may say about the cause of a 5xx: the error's class, message, code and stack,
 * and the same of its `cause`. Not its other fields: a library error can carry the request's
 * data (a Redis command's arguments, a parser's input) and the log must never hold a secret.
 */
export function causeForLog(err: unknown, depth = 0): Record<string, unknown> {
  if (!(err instanceof Error)) return { type: typeof err, message: String(err).slice(0, 200) };
  const out: Record<string, unknown> = { type: err.name, message: err.message.slice(0, 500) };
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" || typeof code === "number") out.errorCode = code;
  if (err.stack) out.stack = err.stack;
  if (err.cause !== undefined && depth < 3) out.cause = causeForLog(err.cause, depth + 1);
  return out;
}
