// GET and POST {base_url}/userinfo — OpenID Connect Core §5.3: the claims of an OpenID Connect
// access token's scopes. The token comes as `Authorization: Bearer`, or as `access_token` in a
// form-encoded POST body (RFC 6750 §2.2); errors as RFC 6750 §3 (docs/http-api.md#userinfo).
// GET is JSON in and out (http/route.ts), on the fast path too; POST is served by express only.
import type { IncomingHttpHeaders } from "node:http";
import express, { type Request, type Response } from "express";
import { z } from "zod";
import type { OAuth } from "../../domain/oauth.js";
import { scopeClaims } from "../../domain/oidc.js";
import { invalidRequest, invalidToken } from "../../errors.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import type { JsonRoute } from "../route.js";

export const userinfoBodyParser = express.urlencoded({ extended: false, limit: "64kb", parameterLimit: 50 });

/**
 * The one token of the request; two ways at once, or one in the URL, is invalid_request (RFC 6750
 * §2). `form` is the parsed form body of a form-encoded POST, undefined otherwise.
 */
function readToken(query: Readonly<Record<string, unknown>>, headers: IncomingHttpHeaders, form: unknown): string {
  if ("access_token" in query) {
    throw invalidRequest("err.tokenInUrl");
  }
  const header = headers.authorization?.trim();
  const fromBody = form && typeof form === "object" ? (form as Record<string, unknown>).access_token : undefined;
  if (fromBody !== undefined && typeof fromBody !== "string")
    throw invalidRequest("err.givenOnce", { name: "access_token" });
  if (header && fromBody !== undefined) throw invalidRequest("err.tokenTwoWays");
  if (fromBody !== undefined) {
    if (fromBody === "") throw invalidToken("err.tokenRequired");
    return fromBody;
  }
  if (!header) throw invalidToken("err.bearerRequired");
  const m = /^Bearer +(\S+)$/i.exec(header);
  if (!m) throw invalidToken("err.bearerFormat");
  return m[1]!;
}

type UserinfoDeps = { oauth: OAuth; baseUrl: string };

/** The response headers of every answer, errors included (OpenID Connect Core §5.3.2; RFC 6750 §5.3). */
const USERINFO_HEADERS: Readonly<Record<string, string>> = { "Cache-Control": "no-store", Pragma: "no-cache" };

async function claims(deps: UserinfoDeps, accessToken: string) {
  const { token, user, groups } = await deps.oauth.openIdTokenUser(accessToken);
  return { sub: user.id, ...scopeClaims(user, token.scope ?? [], deps.baseUrl, groups) };
}

/** POST /userinfo on express (its form body is parsed by userinfoBodyParser, which runs first). */
export function userinfoPost(deps: UserinfoDeps) {
  return async (req: Request, res: Response) => {
    res.set(USERINFO_HEADERS);
    const form = req.is("application/x-www-form-urlencoded") ? (req.body as unknown) : undefined;
    res.json(await claims(deps, readToken(req.query as Record<string, unknown>, req.headers, form)));
  };
}

/** GET /userinfo, served by express and the fast path (http/route.ts). */
export function userinfoRoute(deps: UserinfoDeps): JsonRoute {
  return {
    spec: userinfoGetSpec,
    headers: USERINFO_HEADERS,
    async handle(req) {
      return { status: 200, body: await claims(deps, readToken(req.query, req.headers, undefined)) };
    },
  };
}

/** POST /userinfo, served by express only, since its token may come in a form body. */
export function userinfoPostRoute(deps: UserinfoDeps): JsonRoute {
  return { spec: userinfoPostSpec, express: [userinfoBodyParser, userinfoPost(deps)] };
}

export const UserinfoSchema = z.object({
  sub: z.string().meta({ description: "the user's stable id (the id of /auth/user)" }),
  name: z.string().optional().meta({ description: "profile: the display name" }),
  preferred_username: z.string().optional().meta({ description: "profile" }),
  picture: z.string().optional().meta({ description: "profile: absolute URL" }),
  email: z.string().optional().meta({ description: "email: only when the user has one" }),
  email_verified: z.boolean().optional().meta({ description: "email" }),
  groups: z.array(z.string()).optional().meta({ description: "groups: the names of the user's groups, sorted" }),
});

const responses = {
  200: { description: "the claims of the token's scopes", schema: UserinfoSchema },
  400: errorResponse("the token in the URL, or sent two ways"),
  401: errorResponse('invalid_token (WWW-Authenticate: Bearer error="invalid_token")'),
  503: errorResponse("the store cannot be reached"),
};

export const userinfoGetSpec: ApiOperation & { method: "get" } = {
  method: "get",
  path: "/userinfo",
  summary: "The claims of an OpenID Connect access token's scopes.",
  tags: ["openid"],
  headers: z.object({ authorization: z.string().meta({ description: "Bearer <access_token>" }) }),
  security: [{ bearer: [] }],
  responses,
};

export const userinfoPostSpec: ApiOperation = {
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
};
