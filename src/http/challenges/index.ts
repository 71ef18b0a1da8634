// /challenge/* routes.
import { Router } from "express";
import type { Challenges } from "../../domain/challenges.js";
import type { ApiRegistry } from "../openapi.js";
import { route } from "../route.js";
import { newChallenge, newChallengeSpec, type OwnerResolver } from "./new.js";
import { getQuestion, getQuestionSpec } from "./question.js";
import { solveChallenge, solveChallengeSpec } from "./solve.js";

export function challengeRoutes(challenges: Challenges, resolveOwner: OwnerResolver, api: ApiRegistry): Router {
  const router = Router();
  route(router, "/challenge/new", { post: newChallenge(challenges, resolveOwner) });
  route(router, "/challenge/q", { get: getQuestion(challenges) });
  route(router, "/challenge/solve", { post: solveChallenge(challenges) });
  api.add(newChallengeSpec, getQuestionSpec, solveChallengeSpec);
  return router;
}
