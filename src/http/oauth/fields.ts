// Reading the fields of a form or JSON body at /token, /revoke and /introspect.
import type { Request } from "express";
import { invalidRequest } from "../../errors.js";

/** A field given once as text, or undefined when absent or empty; invalid_request otherwise. */
export const str = (v: unknown, name: string): string | undefined => {
  if (v === undefined || v === "") return undefined;
  if (typeof v !== "string") throw invalidRequest("err.givenOnceText", { name });
  return v;
};

/** The body of a form or JSON request, as an object (anything else: empty). */
export function bodyOf(req: Request): Record<string, unknown> {
  const b: unknown = req.body;
  return (b && typeof b === "object" && !Array.isArray(b) ? b : {}) as Record<string, unknown>;
}
