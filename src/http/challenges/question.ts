// GET /challenge/q — a challenge's question as plain text (docs/http-api.md#get-challengeq).
import type { Request, Response } from "express";
import type { Challenges } from "../../domain/challenges.js";
import { QuestionInput } from "../../domain/challenge-inputs.js";
import { headerText } from "../input.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import { z } from "zod";

export function getQuestion(challenges: Challenges) {
  return async (req: Request, res: Response) => {
    const question = await challenges.readQuestion({ key: headerText(req, "key") });
    res.type("text/plain; charset=utf-8").send(question);
  };
}

export const getQuestionSpec: ApiOperation = {
  method: "get",
  path: "/challenge/q",
  summary: "Read a challenge's question.",
  tags: ["challenges"],
  headers: QuestionInput,
  responses: {
    200: { description: "the question, as given", contentType: "text/plain", schema: z.string() },
    400: errorResponse("the key is missing or malformed"),
    404: errorResponse("no challenge has this key, or it has expired"),
    503: errorResponse("the store cannot be reached"),
  },
};
