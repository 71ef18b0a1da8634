// Validating a use case's input, whatever the transport brought it: the same zod schemas that the
// OpenAPI document is generated from, and one way a failure becomes an error (invalid_request).
// A schema's messages are catalog messages (i18n/message-ids.ts): zod carries a message as text,
// so issue() encodes one and parseInput() reads it back.
import { z } from "zod";
import { SigilError, message, type ErrorId, type MessageRef, type ParamArgs } from "../errors.js";
import { codePointLength } from "./text.js";

const PREFIX = "sigil-message:";

/** A catalog message as zod's error text, for a schema's checks. */
export function issue<K extends ErrorId>(id: K, ...params: ParamArgs<K>): string {
  return PREFIX + JSON.stringify(message(id, ...params));
}

function fromIssue(text: string | undefined): MessageRef {
  if (text?.startsWith(PREFIX)) return JSON.parse(text.slice(PREFIX.length)) as MessageRef;
  return message("err.malformed");
}

/** A string field of min..max Unicode code points (what JSON Schema's lengths count, too). */
export function textField(name: string, min: number, max: number, description: string) {
  return z
    .string({
      error: (iss) => (iss.input === undefined ? issue("err.required", { name }) : issue("err.notText", { name })),
    })
    .refine(
      (s) => {
        const n = codePointLength(s);
        return n >= min && n <= max;
      },
      issue("err.lengthRange", { name, min: String(min), max: String(max) }),
    )
    .meta({ minLength: min, maxLength: max, description });
}

/** Validates values against a schema; the first problem becomes a 400 invalid_request. */
export function parseInput<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  const r = schema.safeParse(values);
  if (r.success) return r.data;
  throw SigilError.of(400, "invalid_request", fromIssue(r.error.issues[0]?.message));
}
