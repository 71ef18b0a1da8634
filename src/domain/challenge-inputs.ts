// The inputs and outputs of the challenge use cases, with their limits. HTTP and the socket channel
// validate with these (through domain/challenges.ts); the OpenAPI document is generated from them.
import { z } from "zod";
import { issue, textField } from "./input.js";

export const challengeKey = z
  .string({
    error: (iss) =>
      iss.input === undefined ? issue("err.required", { name: "key" }) : issue("err.notText", { name: "key" }),
  })
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, issue("err.challengeKey"))
  .transform((k) => k.toLowerCase())
  .meta({ description: "the challenge key returned on creation", format: "uuid" });

export const TTL_MIN = 60;
export const TTL_MAX = 2_592_000;
export const TTL_DEFAULT = 86_400;
const WHOLE_TTL = issue("err.wholeSeconds", { name: "ttl" });
const TTL_RANGE = issue("err.secondsRange", { name: "ttl", min: String(TTL_MIN), max: String(TTL_MAX) });

export const NewChallengeInput = z.object({
  question: textField("question", 1, 1000, "the question text"),
  answer: textField("answer", 1, 200, "the expected answer (kept only as a keyed hash)"),
  ttl: z
    .number({ error: WHOLE_TTL })
    .int(WHOLE_TTL)
    .min(TTL_MIN, TTL_RANGE)
    .max(TTL_MAX, TTL_RANGE)
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
