// GET {base_url}/jwks — the public keys ID tokens are signed with (RFC 7517), read from the store
// on every request, so a rotation on any node shows at once (docs/http-api.md#keys).
import type { Request, Response } from "express";
import { z } from "zod";
import type { SigningKeys } from "../../domain/keys.js";
import { errorResponse, type ApiOperation } from "../openapi.js";

/**
 * Relying parties may cache the set for as long as they wait before a pending key signs:
 * at most five minutes, and never longer than KEY_ACTIVATION_DELAY.
 */
export function jwksEndpoint(keys: SigningKeys, activationDelay: number) {
  const maxAge = Math.min(300, activationDelay);
  return async (_req: Request, res: Response) => {
    const set = await keys.jwks();
    res
      .set({ "Cache-Control": `public, max-age=${maxAge}`, "Access-Control-Allow-Origin": "*" })
      .type("application/jwk-set+json")
      .send(JSON.stringify(set));
  };
}

const Jwk = z.union([
  z.object({
    kty: z.literal("RSA"),
    kid: z.string(),
    alg: z.literal("RS256"),
    use: z.literal("sig"),
    n: z.string(),
    e: z.string(),
  }),
  z.object({
    kty: z.literal("EC"),
    kid: z.string(),
    alg: z.literal("ES256"),
    use: z.literal("sig"),
    crv: z.literal("P-256"),
    x: z.string(),
    y: z.string(),
  }),
  z.object({
    kty: z.literal("OKP"),
    kid: z.string(),
    alg: z.literal("EdDSA"),
    use: z.literal("sig"),
    crv: z.literal("Ed25519"),
    x: z.string(),
  }),
]);

export const jwksSpec: ApiOperation = {
  method: "get",
  path: "/jwks",
  summary: "The public keys ID tokens are signed with (JWK Set).",
  tags: ["openid"],
  responses: {
    200: {
      description: "the JWK Set",
      contentType: "application/jwk-set+json",
      schema: z.object({ keys: z.array(Jwk) }),
    },
    503: errorResponse("the store cannot be reached"),
  },
};
