// POST {base_url}/token — trades an authorization code (or an approved device code, RFC 8628) for an
// access token (docs/http-api.md#post-base_urltoken, RFC 6749 §4.1.3/§5, RFC 7636 §4.6), a refresh
// token for a new pair (refresh.ts), or an app's own credentials for a token of its own (client
// credentials, RFC 6749 §4.4). Form or JSON bodies; never cached.
import express, { type NextFunction, type Request, type Response } from "express";
import type { HotRoute, JsonRequest } from "../route.js";
import { z } from "zod";
import type { ClientAuth } from "../../domain/client-auth.js";
import { DEVICE_GRANT } from "../../domain/device-flow.js";
import { scopeOf } from "../../domain/grants.js";
import type { OAuth } from "../../domain/oauth.js";
import type { IdTokens } from "../../domain/oidc.js";
import { SigilError, invalidRequest } from "../../errors.js";
import type { OpenIdTokenResponse, TokenResponse } from "../../protocol.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import { readCredentials } from "./client-auth.js";
import { str } from "./fields.js";
import { refreshGrant, type IdTokenForRefresh } from "./refresh.js";

export const TokenRequest = z.object({
  grant_type: z.string().optional().meta({
    description:
      "authorization_code (the default), refresh_token, client_credentials or urn:ietf:params:oauth:grant-type:device_code",
  }),
  device_code: z
    .string()
    .optional()
    .meta({ description: "the device grant: the device_code of /device_authorization" }),
  code: z.string().optional().meta({ description: "authorization_code: the code from the redirect" }),
  client_id: z.string().optional(),
  client_secret: z.string().optional().meta({ description: "absent for a public client" }),
  redirect_uri: z.string().optional(),
  code_verifier: z.string().optional(),
  refresh_token: z.string().optional().meta({ description: "refresh_token: the newest refresh token of the grant" }),
  scope: z.string().optional().meta({
    description:
      "refresh_token: a subset of the granted scopes; client_credentials: of the scopes an admin allowed the app (default: all of them); space-separated",
  }),
});
export const TokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  scope: z.string().meta({ description: '"profile" (plain OAuth), or the granted scopes, space-separated' }),
  refresh_token: z.string().optional().meta({ description: "when the granted scope holds offline_access" }),
  id_token: z.string().optional().meta({
    description:
      "when the granted scope holds openid: the ID token (a JWS: RS256, or ES256/EdDSA by ID_TOKEN_SIGNING_ALG)",
  }),
});

export const tokenBodyParser = express.urlencoded({ extended: false, limit: "64kb", parameterLimit: 50 });

/** No caching of tokens, nor of their errors (RFC 6749 §5.1). */
const NO_STORE: Readonly<Record<string, string>> = { "Cache-Control": "no-store", Pragma: "no-cache" };

/**
 * POST /token in the route table: a form (or JSON) body read by tokenBodyParser, JSON out. Its
 * plainest requests (no query string) are served on the fast path
 * (http/hot-routes.ts): services trading client credentials call it as often as /auth/user.
 */
export function tokenRoute(deps: {
  /** Client authentication, its failures counted with /revoke's and /introspect's. */
  clientAuth: ClientAuth;
  oauth: OAuth;
  /** The ID token of a refresh response (OpenID Connect), once signing keys exist. */
  idTokenForRefresh?: IdTokenForRefresh;
  /** Signs the ID token of an OpenID Connect code's answer. */
  idTokens: IdTokens;
}): HotRoute {
  return {
    spec: tokenSpec,
    cors: "public clients",
    headers: NO_STORE,
    bodyReaders: [tokenBodyParser],
    handle: async (req) => ({ status: 200, body: await tokenAnswer(deps, req) }),
  };
}

async function tokenAnswer(deps: Parameters<typeof tokenRoute>[0], req: JsonRequest): Promise<unknown> {
  const { body } = req;
  const grantType = str(body.grant_type, "grant_type") ?? "authorization_code";
  const creds = readCredentials(req, body);
  const app = await deps.clientAuth.authenticate(creds, req.address);
  if (grantType === "refresh_token") return refreshGrant(deps, app, body);
  if (grantType === "client_credentials") {
    // RFC 6749 §4.4.3: an access token alone, no refresh token (nor ID token: there is no user).
    const issued = await deps.oauth.clientCredentials.issue(app, str(body.scope, "scope"));
    const out: TokenResponse = {
      access_token: issued.accessToken,
      token_type: "Bearer",
      expires_in: issued.expiresIn,
      scope: issued.scope.join(" "),
    };
    return out;
  }
  if (grantType === DEVICE_GRANT) {
    const deviceCode = str(body.device_code, "device_code");
    if (!deviceCode) throw invalidRequest("err.required", { name: "device_code" });
    return codeAnswer(deps, app.clientId, await deps.oauth.device.poll(deviceCode, app.clientId));
  }
  if (grantType !== "authorization_code") {
    throw new SigilError(400, "unsupported_grant_type", "err.grantType", {});
  }
  const code = str(body.code, "code");
  if (!code) throw invalidRequest("err.required", { name: "code" });
  const issued = await deps.oauth.redeem({
    code,
    clientId: app.clientId,
    redirectUri: str(body.redirect_uri, "redirect_uri"),
    codeVerifier: str(body.code_verifier, "code_verifier"),
    publicClient: app.public === true,
  });
  return codeAnswer(deps, app.clientId, issued);
}

/** The answer for a redeemed code (of /authorize or of an approved device). */
async function codeAnswer(
  deps: { idTokens: IdTokens },
  clientId: string,
  issued: Awaited<ReturnType<OAuth["redeem"]>>,
): Promise<TokenResponse | OpenIdTokenResponse> {
  const out: TokenResponse = {
    access_token: issued.accessToken,
    token_type: "Bearer",
    expires_in: issued.expiresIn,
    scope: scopeOf(issued.code.scope).join(" "),
    ...(issued.refreshToken !== undefined ? { refresh_token: issued.refreshToken } : {}),
  };
  // OpenID Connect (the granted scope holds openid): an ID token beside the access token.
  const { scope, nonce, authTime, amr, sid } = issued.code;
  if (!scope?.includes("openid")) return out;
  const idToken = await deps.idTokens.sign({
    clientId,
    userId: issued.code.userId,
    scope,
    nonce,
    authTime: authTime ?? Math.floor(Date.now() / 1000),
    amr: amr ?? ["pwd"],
    sid,
    accessToken: issued.accessToken,
  });
  return { ...out, id_token: idToken };
}

/** Keeps Cache-Control: no-store on token errors too. */
export function noStore(_req: Request, res: Response, next: NextFunction) {
  res.set({ "Cache-Control": "no-store", Pragma: "no-cache" });
  next();
}

export const tokenSpec: ApiOperation = {
  method: "post",
  path: "/token",
  summary:
    "Trade an authorization code, a refresh token, or a confidential app's own credentials (client_credentials) for an access token (client_secret_basic, client_secret_post, or none for a public client).",
  tags: ["oauth"],
  body: {
    schema: TokenRequest,
    contentTypes: ["application/x-www-form-urlencoded", "application/json"],
    required: true,
  },
  security: [{ basic: [] }, {}],
  responses: {
    200: { description: "the access token", schema: TokenResponseSchema },
    400: errorResponse(
      "invalid_request, invalid_grant, invalid_scope, unauthorized_client, unsupported_grant_type; the device grant: authorization_pending, slow_down, access_denied, expired_token",
    ),
    401: errorResponse("invalid_client"),
    429: errorResponse("too many failed client authentications"),
    503: errorResponse("the store cannot be reached"),
  },
};
