// Reading request input into a use case's input object: header values as UTF-8 text, the JSON
// body as the fallback when a header is absent. Validation is the domain's (domain/input.ts).
import type { IncomingHttpHeaders } from "node:http";
import { invalidRequest } from "../errors.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A header's value as text. Node hands header bytes over as latin1; header values are UTF-8
 * (docs/http-api.md#conventions), so the bytes are decoded again, strictly: invalid UTF-8 is a 400.
 */
export function headerText(req: { headers: IncomingHttpHeaders }, name: string): string | undefined {
  const raw = req.headers[name];
  if (raw === undefined) return undefined;
  const s = Array.isArray(raw) ? raw.join(", ") : raw;
  // Pure ASCII needs no re-decoding (the common case, and the hot path).
  if (!/[^\x00-\x7f]/.test(s)) return s;
  try {
    return utf8.decode(Buffer.from(s, "latin1"));
  } catch {
    throw invalidRequest("err.headerUtf8", { name });
  }
}

/** The JSON body as an object (empty when there is none); any other JSON value is a 400. */
export function bodyObject(req: { body?: unknown }): Record<string, unknown> {
  const b: unknown = req.body;
  if (b === undefined || b === null) return {};
  if (typeof b === "object" && !Array.isArray(b)) return b as Record<string, unknown>;
  throw invalidRequest("err.bodyObject");
}

/** A whole number given as a header string or a JSON number. */
export function wholeNumber(raw: unknown, name: string): unknown {
  if (typeof raw === "string") {
    if (!/^\d{1,10}$/.test(raw)) throw invalidRequest("err.wholeSeconds", { name });
    return Number(raw);
  }
  return raw;
}
