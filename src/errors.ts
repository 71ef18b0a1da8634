// The one error family of Sigil (CONTRACT §2). Domain code throws these; http/ maps them to a
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
export const rateLimited = (retryAfterSeconds: number, d = "Too many attempts; try again later.") =>
  new SigilError(429, "rate_limited", d, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
export const unavailable = () =>
  new SigilError(503, "unavailable", "The service cannot reach its store right now; try again shortly.", {
    "Retry-After": "1",
  });
export const serverError = () => new SigilError(500, "server_error", "Something went wrong on our side.");

/** Any thrown value → a SigilError safe to show (unexpected errors lose their detail). */
export function toSigilError(err: unknown): SigilError {
  if (err instanceof SigilError) return err;
  if (err instanceof StoreUnavailableError) return unavailable();
  return serverError();
}
