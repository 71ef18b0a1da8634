// GET and POST {base_url}/userinfo — OpenID Connect Core §5.3: the claims of an OpenID Connect
// access token's scopes. The token comes as `Authorization: Bearer`, or as `access_token` in a
// form-encoded POST body (RFC 6750 §2.2); errors as RFC 6750 §3 (docs/http-api.md#userinfo).
import express, { type Request, type Response } from "express";
import { z } from "zod";
import type { OAuth } from "../../domain/oauth.js";
import { scopeClaims } from "../../domain/oidc.js";
import { invalidRequest, invalidToken } from "../../errors.js";
import { errorResponse, type ApiOperation } from "../openapi.js";

export const userinfoBodyParser = express.urlencoded({ extended: false, limit: "64kb", parameterLimit: 50 });

/** The one token of the request; two ways at once, or one in the URL, is invalid_request (RFC 6750 §2). */
function readToken(req: Request): string {
  if ("access_token" in (req.query as object)) {
    throw invalidRequest("Send the access token in the Authorization header or a form body, never in the URL.");
  }
  const header = req.headers.authorization?.trim();
  const body = req.method === "POST" && req.is("application/x-www-form-urlencoded") ? (req.body as unknown) : undefined;
  const fromBody = body && typeof body === "object" ? (body as Record<string, unknown>).access_token : undefined;
  if (fromBody !== undefined && typeof fromBody !== "string") throw invalidRequest("access_token must be given once.");
  if (header && fromBody !== undefined) throw invalidRequest("Send the access token one way only.");
  if (fromBody !== undefined) {
    if (fromBody === "") throw invalidToken("An access token is required.");
    return fromBody;
  }
  if (!header) throw invalidToken("An access token is required (Authorization: Bearer <token>).");
  const m = /^Bearer +(\S+)$/i.exec(header);
  if (!m) throw invalidToken("The Authorization header must be Bearer <access_token>.");
  return m[1]!;
}

export function userinfoEndpoint(deps: { oauth: OAuth; baseUrl: string }) {
  return async (req: Request, res: Response) => {
    res.set({ "Cache-Control": "no-store", Pragma: "no-cache" });
    const { token, user } = await deps.oauth.openIdTokenUser(readToken(req));
    res.json({ sub: user.id, ...scopeClaims(user, token.scope ?? [], deps.baseUrl) });
  };
}

export const UserinfoSchema = z.object({
  sub: z.string().meta({ description: "the user's stable id (the id of /auth/user)" }),
  name: z.string().optional().meta({ description: "profile: the display name" }),
  preferred_username: z.string().optional().meta({ description: "profile" }),
  picture: z.string().optional().meta({ description: "profile: absolute URL" }),
  email: z.string().optional().meta({ description: "email: only when the user has one" }),
  email_verified: z.boolean().optional().meta({ description: "email" }),
});

const responses = {
  200: { description: "the claims of the token's scopes", schema: UserinfoSchema },
  400: errorResponse("the token in the URL, or sent two ways"),
  401: errorResponse('invalid_token (WWW-Authenticate: Bearer error="invalid_token")'),
  503: errorResponse("the store cannot be reached"),
};

export const userinfoSpecs: ApiOperation[] = [
  {
    method: "get",
    path: "/userinfo",
    summary: "The claims of an OpenID Connect access token's scopes.",
    tags: ["openid"],
    headers: z.object({ authorization: z.string().meta({ description: "Bearer <access_token>" }) }),
    security: [{ bearer: [] }],
    responses,
  },
  {
    method: "post",
    path: "/userinfo",
    summary: "The same, with the token as Bearer or in a form body (RFC 6750 §2.2).",
    tags: ["openid"],
    body: {
      schema: z.object({ access_token: z.string().optional() }),
      contentTypes: ["application/x-www-form-urlencoded"],
    },
    security: [{ bearer: [] }, {}],
    responses,
  },
];
