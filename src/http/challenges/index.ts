// What the /challenge/* rows of the route table (http/routes.ts) share: the owner of a new challenge.
import { bearerToken, type CustomTokens } from "../../domain/custom-tokens.js";
import type { OwnerResolver } from "./new.js";

/** Authorization: Bearer <CUSTOM TOKEN> makes the challenge that token's app's (docs/http-api.md#challenges). */
export function challengeOwner(customTokens: CustomTokens): OwnerResolver {
  return async (req) => {
    const h = req.headers.authorization;
    if (h === undefined) return undefined;
    return (await customTokens.verify(bearerToken(h))).app;
  };
}
