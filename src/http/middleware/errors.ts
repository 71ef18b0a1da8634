// The one place where errors become HTTP responses (docs/errors.md), for the JSON API, the hot
// routes and the pages alike (sendError): the mapping and the log line are logFailure (errors.ts),
// which the socket channel uses too.
import type { NextFunction, Request, Response } from "express";
import { SigilError, causeForLog, logFailure, notFound } from "../../errors.js";
import { logOf } from "./context.js";
import { sendJson } from "../route.js";

export function notFoundHandler(_req: Request, _res: Response, next: NextFunction) {
  next(notFound());
}

/** Maps any thrown value to the error to send, logging a 5xx once with the request id (logFailure). */
export function errorReply(err: unknown, req: Parameters<typeof logOf>[0]): SigilError {
  return logFailure(err, () => logOf(req));
}

/**
 * Sends the error response for a failed request (express's error handler and the fast path both
 * end here): the mapped status, headers and JSON body, or, when the response has already started,
 * a log line and a cut connection, as express's own final handler would (which would print the
 * stack outside the JSON log).
 */
export function sendError(req: Request, res: Response, err: unknown): void {
  if (res.headersSent) {
    logOf(req)?.error({ cause: causeForLog(err) }, "error after the response started");
    res.destroy();
    return;
  }
  const mapped = errorReply(err, req);
  sendJson(res, mapped.status, mapped.toBody(), mapped.headers);
}

export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction) {
  sendError(req, res, err);
}
