// POST {base_url}/token — trades an authorization code for an access token (docs/http-api.md#post-base_urltoken,
// RFC 6749 §4.1.3/§5, RFC 7636 §4.6). Form or JSON bodies; never cached.
import express, { type NextFunction, type Request, type Response } from "express";
import { z } from "zod";
import type { Apps } from "../../domain/apps.js";
import type { OAuth } from "../../domain/oauth.js";
import type { IdTokens } from "../../domain/oidc.js";
import { SigilError, invalidRequest } from "../../errors.js";
import type { OpenIdTokenResponse, TokenResponse } from "../../protocol.js";
import type { Store } from "../../store/port.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import { authenticateClient, readCredentials } from "./client-auth.js";

export const TokenRequest = z.object({
  grant_type: z.string().optional().meta({ description: "authorization_code (the default)" }),
  code: z.string().meta({ description: "the code from the redirect" }),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  redirect_uri: z.string().optional(),
  code_verifier: z.string().optional(),
});
export const TokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  scope: z.string().meta({ description: '"profile" (plain OAuth), or the granted scopes, space-separated' }),
  id_token: z
    .string()
    .optional()
    .meta({ description: "when the granted scope holds openid: the ID token (RS256 JWS)" }),
});

const str = (v: unknown, name: string): string | undefined => {
  if (v === undefined || v === "") return undefined;
  if (typeof v !== "string") throw invalidRequest(`${name} must be given once, as text.`);
  return v;
};

export const tokenBodyParser = express.urlencoded({ extended: false, limit: "64kb", parameterLimit: 50 });

export function tokenEndpoint(deps: { apps: Apps; oauth: OAuth; store: Store; idTokens: IdTokens }) {
  const limiter = deps.store.limiter({ name: "token-client-auth", points: 19, windowSeconds: 600 });
  return async (req: Request, res: Response) => {
    res.set({ "Cache-Control": "no-store", Pragma: "no-cache" });
    const body = (req.body && typeof req.body === "object" && !Array.isArray(req.body) ? req.body : {}) as Record<
      string,
      unknown
    >;
    const grantType = str(body.grant_type, "grant_type") ?? "authorization_code";
    const creds = readCredentials(req, body);
    const app = await authenticateClient(deps.apps, limiter, creds, req.ip ?? "");
    if (grantType !== "authorization_code") {
      throw new SigilError(400, "unsupported_grant_type", "Only grant_type=authorization_code is supported.");
    }
    const code = str(body.code, "code");
    if (!code) throw invalidRequest("code is required.");
    const issued = await deps.oauth.redeem({
      code,
      clientId: app.clientId,
      redirectUri: str(body.redirect_uri, "redirect_uri"),
      codeVerifier: str(body.code_verifier, "code_verifier"),
    });
    const out: TokenResponse = {
      access_token: issued.accessToken,
      token_type: "Bearer",
      expires_in: issued.expiresIn,
      scope: "profile",
    };
    // OpenID Connect (the granted scope holds openid): the granted scopes and an ID token.
    const { scope, nonce, authTime, amr } = issued.code;
    if (scope?.includes("openid")) {
      const idToken = await deps.idTokens.sign({
        clientId: app.clientId,
        userId: issued.code.userId,
        scope,
        nonce,
        authTime: authTime ?? Math.floor(Date.now() / 1000),
        amr: amr ?? ["pwd"],
        accessToken: issued.accessToken,
      });
      const oidc: OpenIdTokenResponse = { ...out, scope: scope.join(" "), id_token: idToken };
      return void res.status(200).json(oidc);
    }
    res.status(200).json(out);
  };
}

/** Keeps Cache-Control: no-store on token errors too. */
export function noStore(_req: Request, res: Response, next: NextFunction) {
  res.set({ "Cache-Control": "no-store", Pragma: "no-cache" });
  next();
}

export const tokenSpec: ApiOperation = {
  method: "post",
  path: "/token",
  summary: "Trade an authorization code for an access token (client_secret_basic or client_secret_post).",
  tags: ["oauth"],
  body: {
    schema: TokenRequest,
    contentTypes: ["application/x-www-form-urlencoded", "application/json"],
    required: true,
  },
  security: [{ basic: [] }, {}],
  responses: {
    200: { description: "the access token", schema: TokenResponseSchema },
    400: errorResponse("invalid_request, invalid_grant or unsupported_grant_type"),
    401: errorResponse("invalid_client"),
    429: errorResponse("too many failed client authentications"),
    503: errorResponse("the store cannot be reached"),
  },
};
