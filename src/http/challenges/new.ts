// POST /challenge/new — create a challenge (docs/http-api.md#post-challengenew).
import type { IncomingHttpHeaders } from "node:http";
import type { Request, Response } from "express";
import type { Challenges } from "../../domain/challenges.js";
import { bodyObject, headerText, parseInput, wholeNumber } from "../input.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import { NewChallengeHeaders, NewChallengeInput, NewChallengeOutput } from "./schemas.js";

/** Resolves the optional owner of a new challenge from its Authorization header (custom token). */
export type OwnerResolver = (req: Request) => Promise<string | undefined>;

/** The endpoint's input, validated: headers first, then the JSON body (or {}). */
export function newChallengeInput(req: { headers: IncomingHttpHeaders }, body: Record<string, unknown>) {
  return parseInput(NewChallengeInput, {
    question: headerText(req, "question") ?? body.question,
    answer: headerText(req, "answer") ?? body.answer,
    ttl: wholeNumber(headerText(req, "ttl") ?? body.ttl, "ttl"),
  });
}

/** Creates the challenge; the reply body of a 201. */
export async function createChallenge(
  challenges: Challenges,
  input: ReturnType<typeof newChallengeInput>,
  owner: string | undefined,
): Promise<{ key: string }> {
  const key = await challenges.create({
    question: input.question,
    answer: input.answer,
    ttlSeconds: input.ttl,
    ...(owner !== undefined ? { owner } : {}),
  });
  return { key };
}

export function newChallenge(challenges: Challenges, resolveOwner: OwnerResolver) {
  return async (req: Request, res: Response) => {
    const input = newChallengeInput(req, bodyObject(req));
    const owner = await resolveOwner(req);
    res.status(201).json(await createChallenge(challenges, input, owner));
  };
}

export const newChallengeSpec: ApiOperation = {
  method: "post",
  path: "/challenge/new",
  summary: "Create a challenge: a question with a secret answer. Values come from headers, or from the JSON body when a header is absent.",
  tags: ["challenges"],
  headers: NewChallengeHeaders,
  body: { schema: NewChallengeInput.partial(), contentTypes: ["application/json"] },
  responses: {
    201: { description: "created", schema: NewChallengeOutput },
    400: errorResponse("a value is missing, empty, too long or malformed"),
    401: errorResponse("the custom token is unknown, expired or revoked"),
    413: errorResponse("the body is over 64 KB"),
    503: errorResponse("the store cannot be reached"),
  },
};
