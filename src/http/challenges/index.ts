// /challenge/* routes: new and solve are JSON routes (served by express and the fast path from
// one declaration each); the question is an ordinary express route (plain text).
import { Router } from "express";
import type { Challenges } from "../../domain/challenges.js";
import { bearerToken, type CustomTokens } from "../../domain/custom-tokens.js";
import type { ApiRegistry } from "../openapi.js";
import { route, type JsonRoute } from "../route.js";
import { newChallengeRoute, type OwnerResolver } from "./new.js";
import { getQuestion, getQuestionSpec } from "./question.js";
import { solveRoute } from "./solve.js";

/** POST /challenge/new and POST /challenge/solve. */
export function challengeJsonRoutes(challenges: Challenges, customTokens: CustomTokens): JsonRoute[] {
  // Authorization: Bearer <CUSTOM TOKEN> makes the challenge that token's app's (docs/http-api.md#challenges).
  const resolveOwner: OwnerResolver = async (req) => {
    const h = req.headers.authorization;
    if (h === undefined) return undefined;
    return (await customTokens.verify(bearerToken(h))).app;
  };
  return [newChallengeRoute(challenges, resolveOwner), solveRoute(challenges)];
}

/** GET /challenge/q. */
export function challengeRoutes(challenges: Challenges, api: ApiRegistry): Router {
  const router = Router();
  route(router, "/challenge/q", { get: getQuestion(challenges) });
  api.add(getQuestionSpec);
  return router;
}
