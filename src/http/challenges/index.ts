// /challenge/* routes.
import { Router } from "express";
import type { Challenges } from "../../domain/challenges.js";
import type { ApiRegistry } from "../openapi.js";
import { route } from "../route.js";
import { expressHandler, type JsonEndpoint } from "./endpoint.js";
import { newChallenge, newChallengeSpec, type OwnerResolver } from "./new.js";
import { getQuestion, getQuestionSpec } from "./question.js";
import { solveChallenge, solveChallengeSpec } from "./solve.js";

/** The JSON endpoints that the hot routes serve too (server.ts), built once for both. */
export interface ChallengeEndpoints {
  newChallenge: JsonEndpoint;
  solveChallenge: JsonEndpoint;
}

export function challengeEndpoints(challenges: Challenges, resolveOwner: OwnerResolver): ChallengeEndpoints {
  return { newChallenge: newChallenge(challenges, resolveOwner), solveChallenge: solveChallenge(challenges) };
}

export function challengeRoutes(challenges: Challenges, endpoints: ChallengeEndpoints, api: ApiRegistry): Router {
  const router = Router();
  route(router, "/challenge/new", { post: expressHandler(endpoints.newChallenge) });
  route(router, "/challenge/q", { get: getQuestion(challenges) });
  route(router, "/challenge/solve", { post: expressHandler(endpoints.solveChallenge) });
  api.add(newChallengeSpec, getQuestionSpec, solveChallengeSpec);
  return router;
}
