// Validating a use case's input, whatever the transport brought it: the same zod schemas that the
// OpenAPI document is generated from, and one way a failure becomes an error (invalid_request).
import { z } from "zod";
import { invalidRequest } from "../errors.js";
import { codePointLength } from "./text.js";

/** A string field of min..max Unicode code points (what JSON Schema's lengths count, too). */
export function textField(name: string, min: number, max: number, description: string) {
  const msg = `${name} must be ${min} to ${max} characters.`;
  return z
    .string({ error: (iss) => (iss.input === undefined ? `${name} is required.` : `${name} must be text.`) })
    .refine((s) => {
      const n = codePointLength(s);
      return n >= min && n <= max;
    }, msg)
    .meta({ minLength: min, maxLength: max, description });
}

/** Validates values against a schema; the first problem becomes a 400 invalid_request. */
export function parseInput<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  const r = schema.safeParse(values);
  if (r.success) return r.data;
  throw invalidRequest(r.error.issues[0]?.message ?? "The request is malformed.");
}
