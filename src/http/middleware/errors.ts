// The one place where errors become HTTP responses (CONTRACT §2).
import type { NextFunction, Request, Response } from "express";
import { SigilError, StoreUnavailableError, invalidRequest, notFound, toSigilError } from "../../errors.js";
import type { Logger } from "../../log.js";

/** body-parser and other http-errors style failures → the contract's errors. */
function fromHttpError(err: unknown): SigilError | undefined {
  // The router's 400 for a path parameter that is not valid percent-encoding (e.g. /pictures/%E0).
  if (err instanceof URIError && (err as { status?: unknown }).status === 400) return invalidRequest("The address could not be read.");
  if (!err || typeof err !== "object" || !("type" in err)) return undefined;
  const type = (err as { type?: unknown }).type;
  switch (type) {
    case "entity.too.large":
      return new SigilError(413, "request_too_large", "The body is larger than this endpoint accepts.");
    case "entity.parse.failed":
      return invalidRequest("The body is not valid JSON.");
    case "entity.verify.failed":
    case "encoding.unsupported":
    case "charset.unsupported":
    case "parameters.too.many":
    case "request.size.invalid":
      return invalidRequest("The body cannot be read: check its encoding and Content-Type.");
    default:
      return undefined;
  }
}

export function notFoundHandler(_req: Request, _res: Response, next: NextFunction) {
  next(notFound());
}

/** Maps any thrown value to the error to send, logging what an operator must see. */
export function errorReply(err: unknown, log: Logger | undefined): SigilError {
  const mapped = fromHttpError(err) ?? toSigilError(err);
  if (err instanceof StoreUnavailableError) {
    log?.warn({ err: { message: (err.cause as Error | undefined)?.message } }, "store unavailable");
  } else if (mapped.status >= 500) {
    log?.error({ err }, "unexpected error");
  }
  return mapped;
}

export function errorHandler(err: unknown, req: Request, res: Response, next: NextFunction) {
  if (res.headersSent) {
    next(err);
    return;
  }
  const mapped = errorReply(err, req.log);
  res.status(mapped.status).set(mapped.headers).json(mapped.toBody());
}
