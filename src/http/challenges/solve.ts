// POST /challenge/solve — try an answer (docs/http-api.md#post-challengesolve).
import type { IncomingHttpHeaders } from "node:http";
import type { Request, Response } from "express";
import type { Challenges } from "../../domain/challenges.js";
import { bodyObject, headerText, parseInput } from "../input.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import { SolveHeaders, SolveInput, SolveOutput } from "./schemas.js";

/** The endpoint without express: headers, JSON body (or {}) and client address in, reply out. */
export async function solve(
  challenges: Challenges,
  req: { headers: IncomingHttpHeaders },
  body: Record<string, unknown>,
  address: string,
): Promise<{ correct: boolean }> {
  const input = parseInput(SolveInput, {
    key: headerText(req, "key") ?? body.key,
    a: headerText(req, "a") ?? body.a,
  });
  const { correct } = await challenges.solve(input.key, input.a, address);
  return { correct };
}

export function solveChallenge(challenges: Challenges) {
  return async (req: Request, res: Response) => {
    res.json(await solve(challenges, req, bodyObject(req), req.ip ?? "unknown"));
  };
}

export const solveChallengeSpec: ApiOperation = {
  method: "post",
  path: "/challenge/solve",
  summary: "Try an answer. A wrong answer is not an error. Values come from headers, or from the JSON body when a header is absent.",
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
