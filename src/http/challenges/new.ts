// POST /challenge/new — create a challenge (docs/http-api.md#post-challengenew).
import type { IncomingHttpHeaders } from "node:http";
import type { Challenges } from "../../domain/challenges.js";
import { NewChallengeInput, NewChallengeOutput, type Unchecked } from "../../domain/challenge-inputs.js";
import { headerText, wholeNumber } from "../input.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import type { JsonRoute } from "../route.js";
import { NewChallengeHeaders } from "./schemas.js";

/** Resolves the optional owner of a new challenge from its Authorization header (custom token). */
export type OwnerResolver = (req: { headers: IncomingHttpHeaders }) => Promise<string | undefined>;

/** The use case's input as HTTP carries it: each header when present, else the JSON body's field. */
export function newChallengeInput(
  req: { headers: IncomingHttpHeaders },
  body: Record<string, unknown>,
): Unchecked<typeof NewChallengeInput> {
  return {
    question: headerText(req, "question") ?? body.question,
    answer: headerText(req, "answer") ?? body.answer,
    // A header is text: a whole number in it (or in the body as text) is read as one.
    ttl: wholeNumber(headerText(req, "ttl") ?? body.ttl, "ttl"),
  };
}

/** POST /challenge/new, declared once for express and the fast path (http/route.ts). */
export function newChallengeRoute(challenges: Challenges, resolveOwner: OwnerResolver): JsonRoute {
  return {
    spec: newChallengeSpec,
    handle: async (req) => ({
      status: 201,
      body: await challenges.newChallenge(newChallengeInput(req, req.body), () => resolveOwner(req)),
    }),
  };
}

export const newChallengeSpec: ApiOperation & { method: "post" } = {
  method: "post",
  path: "/challenge/new",
  summary:
    "Create a challenge: a question with a secret answer. Values come from headers, or from the JSON body when a header is absent.",
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
