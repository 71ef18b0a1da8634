// The client's one error class. Every failure an app can meet — an HTTP error of the API, a
// refused socket, an error ack, an OAuth error on the callback URL, a network failure — arrives
// as a SigilError carrying the service's `error` code (docs/errors.md), so an app handles them all
// in one place: `if (e instanceof SigilError && e.code === "rate_limited") wait(e.retryAfter)`.
import type { ErrorCode, ErrorObject } from "../../src/protocol.js";

/** The codes of docs/errors.md, plus the ones the client itself raises. */
export type SigilErrorCode =
  | ErrorCode
  // Raised by the client, never sent by the server:
  | "network_error" // the request or socket could not reach the service
  | "invalid_response" // the service answered something its documentation does not allow
  | "state_mismatch" // the callback's `state` is not the one this sign-in sent (CSRF)
  | "issuer_mismatch" // the callback's `iss` is missing or names another issuer (mix-up)
  | "timeout" // no acknowledgement in time
  | "closed"; // the realtime connection was closed by the app

/** HTTP status of each server code, for errors that did not come over HTTP (socket acks). */
const STATUS: Partial<Record<string, number>> = {
  invalid_request: 400,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  invalid_client: 401,
  invalid_token: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  server_error: 500,
};

export class SigilError extends Error {
  /** The service's `error` code (an unknown future code is kept as sent). */
  readonly code: SigilErrorCode | (string & {});
  /** The service's `error_description`: one human sentence. */
  readonly description: string;
  /** HTTP status; for errors that did not come from an HTTP response, the status the code has over HTTP, or 0. */
  readonly status: number;
  /** Seconds to wait before trying again (from `Retry-After`), when the service said so. */
  readonly retryAfter: number | undefined;

  constructor(code: SigilErrorCode | (string & {}), description: string, status?: number, retryAfter?: number) {
    super(`${code}: ${description}`);
    this.name = "SigilError";
    this.code = code;
    this.description = description;
    this.status = status ?? STATUS[code] ?? 0;
    this.retryAfter = retryAfter;
  }

  /** The wire form (docs/errors.md); client-side codes keep the same shape. */
  toJSON(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.description };
  }

  /** An error object of the service (an ack, `connect_error.data`) as a SigilError. */
  static fromObject(value: unknown, status?: number, retryAfter?: number): SigilError {
    if (isErrorObject(value)) return new SigilError(value.error, value.error_description, status, retryAfter);
    return new SigilError("invalid_response", "The service sent an error the client cannot read.", status, retryAfter);
  }
}

export function isErrorObject(value: unknown): value is ErrorObject {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ErrorObject).error === "string" &&
    typeof (value as ErrorObject).error_description === "string"
  );
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const v = header.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** A non-2xx response → SigilError (the JSON error body when there is one). */
export async function errorFromResponse(res: Response): Promise<SigilError> {
  const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (isErrorObject(body)) return SigilError.fromObject(body, res.status, retryAfter);
  return new SigilError(
    "invalid_response",
    `The service answered ${res.status} without an error object.`,
    res.status,
    retryAfter,
  );
}
