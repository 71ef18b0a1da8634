// The challenge endpoints' header parameters, for the OpenAPI document: the domain's input fields
// (domain/challenge-inputs.ts), as header strings.
import { z } from "zod";
import {
  challengeKey,
  NewChallengeInput,
  SolveInput,
  TTL_DEFAULT,
  TTL_MAX,
  TTL_MIN,
} from "../../domain/challenge-inputs.js";

export const NewChallengeHeaders = z.object({
  question: NewChallengeInput.shape.question.optional(),
  answer: NewChallengeInput.shape.answer.optional(),
  ttl: z
    .string()
    .regex(/^\d+$/)
    .optional()
    .meta({ description: `seconds, ${TTL_MIN} to ${TTL_MAX}; default ${TTL_DEFAULT}` }),
  authorization: z
    .string()
    .optional()
    .meta({ description: "Bearer <CUSTOM TOKEN>: the challenge belongs to that token's app" }),
});
export const SolveHeaders = z.object({
  key: challengeKey.optional(),
  a: SolveInput.shape.a.optional(),
});
