// The one error family of Sigil (docs/errors.md). Domain code throws these, with a message id of
// the catalogs and its values (i18n/message-ids.ts), never English text; logFailure maps any thrown
// value to one and logs a 5xx, for http/ (middleware/errors.ts) and realtime/ (acks, connect_error).

import {
  english,
  toRef,
  type PlainErrorId,
  type ErrorId,
  type MessageRef,
  type Param,
  type ParamArgs,
  type ParamsOf,
} from "./i18n/message-ids.js";
import type { Logger } from "./log.js";
import type { ErrorCode } from "./protocol.js";

export type { ErrorCode };

export interface ErrorBody {
  error: ErrorCode;
  error_description: string;
}

export type { ErrorId, MessageRef, ParamArgs, ParamsOf, PlainErrorId } from "./i18n/message-ids.js";
export { english, message, toRef } from "./i18n/message-ids.js";

type Headers = Readonly<Record<string, string>>;

/**
 * An error with its HTTP status, its protocol code and its message as data: the id of an `err.*`
 * entry of the catalogs and the values of its placeholders (docs/errors.md#messages). The JSON
 * API's `error_description` is the English rendering; pages and mails render the id in their
 * own language (i18n/index.ts message()), never by reading the English text back.
 */
export class SigilError<K extends ErrorId = ErrorId> extends Error implements MessageRef {
  readonly status: number;
  readonly code: ErrorCode;
  readonly id: K;
  readonly params: Readonly<Record<string, Param>>;
  /** Extra response headers (Retry-After, WWW-Authenticate, Allow). */
  readonly headers: Headers;

  constructor(status: number, code: ErrorCode, id: K, params: ParamsOf<K>, headers: Headers = {}) {
    const values = params as Readonly<Record<string, Param>>;
    // A 4xx is an answer, not a fault: nobody reads its stack, and capturing one was 2–3% of a
    // request refused under load (a wrong answer past the limit). A 5xx keeps it for the log.
    const limit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    try {
      super(english({ id, params: values }));
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = "SigilError";
    this.status = status;
    this.code = code;
    this.id = id;
    this.params = values;
    this.headers = headers;
  }

  /** An error for a message held as data (a rule's problem, a message inside a message). */
  static of(status: number, code: ErrorCode, ref: MessageRef, headers: Headers = {}): SigilError {
    return new SigilError(status, code, ref.id, ref.params as never, headers);
  }

  /** The message in English: the JSON API's `error_description` (and the CLI's, and the log's). */
  get description(): string {
    return this.message;
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

const args = <K extends ErrorId>(a: ParamArgs<K>): ParamsOf<K> => (a[0] ?? {}) as ParamsOf<K>;

export const invalidRequest = <K extends ErrorId>(id: K, ...params: ParamArgs<K>) =>
  new SigilError(400, "invalid_request", id, args(params));
export const notFound = <K extends ErrorId = "err.nothingHere">(
  id: K = "err.nothingHere" as K,
  ...params: ParamArgs<K>
) => new SigilError(404, "not_found", id, args(params));
const INVALID_TOKEN = { "WWW-Authenticate": 'Bearer error="invalid_token"' };
export const invalidToken = <K extends ErrorId = "err.invalidToken">(
  id: K = "err.invalidToken" as K,
  ...params: ParamArgs<K>
) => new SigilError(401, "invalid_token", id, args(params), INVALID_TOKEN);
/** RFC 6750 §3.1: the token is good but its grant does not cover what is asked. */
export const insufficientScope = (scope: string) =>
  new SigilError(
    403,
    "insufficient_scope",
    "err.insufficientScope",
    { scope },
    { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${scope}"` },
  );
export const rateLimited = <K extends ErrorId>(retryAfterSeconds: number, id: K, ...params: ParamArgs<K>) =>
  new SigilError(429, "rate_limited", id, args(params), {
    "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
/** RFC 6749 §5.2: the code or refresh token presented is not good (and the scope asked for). */
export const invalidGrant = (id: PlainErrorId) => SigilError.of(400, "invalid_grant", toRef(id));
export const invalidScope = (id: PlainErrorId) => SigilError.of(400, "invalid_scope", toRef(id));
export const unavailable = () => new SigilError(503, "unavailable", "err.unavailable", {}, { "Retry-After": "1" });
export const serverError = () => new SigilError(500, "server_error", "err.serverError", {});

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
  if (err instanceof URIError && status === 400) return invalidRequest("err.addressUnreadable");
  if (e.expose !== true) return undefined;
  if (status === 413) return new SigilError(413, "request_too_large", "err.bodyTooLarge", {});
  if (e.type === "entity.parse.failed") return invalidRequest("err.badJson");
  return invalidRequest("err.unreadableBody");
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

/**
 * Maps any thrown value to the error to answer with, and logs every 5xx once: HTTP on the
 * request's logger (its request id), the channel with the socket's id and event. The client
 * gets the mapped error only (server_error says nothing of the cause); the line holds the cause
 * as causeForLog reads it, never the error's other fields (a library error can carry secrets).
 * The store being away is a warning (the 503 says so), a deliberate 5xx a warning, anything
 * else an error. Both adapters call it once per failure (docs/errors.md#logs).
 */
export function logFailure(
  err: unknown,
  /** The logger, or how to get it: asked only when there is a line to write (a 5xx). */
  logger: Logger | undefined | (() => Logger | undefined),
  where: Record<string, string> = {},
): SigilError {
  const mapped = toSigilError(err);
  if (mapped.status < 500) return mapped;
  const log = typeof logger === "function" ? logger() : logger;
  const cause = err instanceof StoreUnavailableError ? (err.cause ?? err) : err;
  // Under `cause`, not `err`: pino's err serializer would copy every field of the error.
  const line = { ...where, status: mapped.status, error: mapped.code, cause: causeForLog(cause) };
  if (err instanceof StoreUnavailableError) log?.warn(line, "store unavailable");
  else if (err instanceof SigilError) log?.warn(line, mapped.description);
  else log?.error(line, "unexpected error");
  return mapped;
}
