// The inputs and outputs of the challenge use cases, with their limits. HTTP and the socket channel
// validate with these (through domain/challenges.ts); the OpenAPI document is generated from them.
import { z } from "zod";
import { textField } from "./input.js";

export const challengeKey = z
  .string({ error: (iss) => (iss.input === undefined ? "key is required." : "key must be text.") })
  .regex(
    /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
    "key must be a challenge key (a UUID).",
  )
  .transform((k) => k.toLowerCase())
  .meta({ description: "the challenge key returned on creation", format: "uuid" });

export const TTL_MIN = 60;
export const TTL_MAX = 2_592_000;
export const TTL_DEFAULT = 86_400;

export const NewChallengeInput = z.object({
  question: textField("question", 1, 1000, "the question text"),
  answer: textField("answer", 1, 200, "the expected answer (kept only as a keyed hash)"),
  ttl: z
    .number({ error: "ttl must be a whole number of seconds." })
    .int("ttl must be a whole number of seconds.")
    .min(TTL_MIN, `ttl must be ${TTL_MIN} to ${TTL_MAX} seconds.`)
    .max(TTL_MAX, `ttl must be ${TTL_MIN} to ${TTL_MAX} seconds.`)
    .default(TTL_DEFAULT)
    .meta({ description: "seconds until the challenge expires" }),
});

export const SolveInput = z.object({
  key: challengeKey,
  a: textField("a", 1, 200, "the attempted answer"),
});

export const QuestionInput = z.object({ key: challengeKey });

export const NewChallengeOutput = z.object({ key: z.string().meta({ format: "uuid" }) });
export const SolveOutput = z.object({ correct: z.boolean() });

/** A use case's input as a transport hands it over: each field as given, not yet checked. */
export type Unchecked<S extends z.ZodObject> = { [K in keyof S["shape"]]?: unknown };
