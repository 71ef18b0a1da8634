// POST /challenge/solve — try an answer (docs/http-api.md#post-challengesolve).
import type { IncomingHttpHeaders } from "node:http";
import type { Challenges } from "../../domain/challenges.js";
import { SolveInput, SolveOutput, type Unchecked } from "../../domain/challenge-inputs.js";
import { headerText } from "../input.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import type { JsonRoute } from "../route.js";
import { SolveHeaders } from "./schemas.js";

/** The use case's input as HTTP carries it: each header when present, else the JSON body's field. */
export function solveInput(
  req: { headers: IncomingHttpHeaders },
  body: Record<string, unknown>,
): Unchecked<typeof SolveInput> {
  return { key: headerText(req, "key") ?? body.key, a: headerText(req, "a") ?? body.a };
}

/** POST /challenge/solve, declared once for express and the fast path (http/route.ts). */
export function solveRoute(challenges: Challenges): JsonRoute {
  return {
    spec: solveChallengeSpec,
    handle: async (req) => ({
      status: 200,
      body: await challenges.solveChallenge(solveInput(req, req.body), req.address),
    }),
  };
}

export const solveChallengeSpec: ApiOperation & { method: "post" } = {
  method: "post",
  path: "/challenge/solve",
  summary:
    "Try an answer. A wrong answer is not an error. Values come from headers, or from the JSON body when a header is absent.",
  tags: ["challenges"],
  headers: SolveHeaders,
  body: { schema: SolveInput.partial(), contentTypes: ["application/json"] },
  responses: {
    200: { description: "whether the answer was right", schema: SolveOutput },
    400: errorResponse("the key or answer is missing, empty, too long or malformed"),
    404: errorResponse("no challenge has this key, or it has expired"),
    429: errorResponse("too many wrong answers; see Retry-After"),
    503: errorResponse("the store cannot be reached"),
  },
};
