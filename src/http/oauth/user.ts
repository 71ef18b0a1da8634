// GET {base_url}/auth/user — the signed-in user's profile for an access token (docs/http-api.md#get-base_urlauthuser).
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import type { Accounts } from "../../domain/accounts.js";
import type { Apps } from "../../domain/apps.js";
import type { OAuth } from "../../domain/oauth.js";
import { invalidRequest, invalidToken } from "../../errors.js";
import type { UserInfo } from "../../protocol.js";
import { headerText } from "../input.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import type { JsonRoute } from "../route.js";
import { pictureUrl } from "../pages/pictures.js";

export const UserInfoSchema = z.object({
  id: z.string(),
  username: z.string(),
  display_name: z.string(),
  profile_picture: z.string().meta({ description: "absolute URL" }),
});

/** The token of `Authorization: Bearer <token>` or a bare `Authorization: <token>`. */
function bearer(req: { headers: IncomingMessage["headers"] }): string {
  const raw = req.headers.authorization?.trim();
  if (!raw) throw invalidToken("err.bearerRequired");
  const m = /^Bearer +(\S+)$/i.exec(raw);
  if (m) return m[1]!; // the group is mandatory
  if (/^\S+$/.test(raw)) return raw;
  throw invalidToken();
}

export type UserDeps = { accounts: Accounts; apps: Apps; oauth: OAuth; baseUrl: string };

/** The response headers of every answer of this endpoint, errors included. */
export const USER_HEADERS: Readonly<Record<string, string>> = { "Cache-Control": "no-store" };

/** The profile for a request's headers (Authorization, client_id); the query is checked by the caller. */
export async function userInfo(deps: UserDeps, req: { headers: IncomingMessage["headers"] }): Promise<UserInfo> {
  const clientId = headerText(req, "client_id");
  if (!clientId) throw invalidRequest("err.clientIdHeader");
  // A deleted app's tokens (and a deleted user's) stop working at once.
  const user = await deps.oauth.tokenUser(bearer(req), clientId);
  return {
    id: user.id,
    username: user.username,
    display_name: user.displayName,
    profile_picture: pictureUrl(deps.baseUrl, user),
  };
}

/** GET /auth/user, declared once for express and the fast path (http/route.ts). */
export function userRoute(deps: UserDeps): JsonRoute {
  return {
    spec: userSpec,
    headers: USER_HEADERS,
    async handle(req) {
      if ("access_token" in req.query) {
        throw invalidRequest("err.tokenInUrlHeader");
      }
      return { status: 200, body: await userInfo(deps, req) };
    },
  };
}

export const userSpec: ApiOperation & { method: "get" } = {
  method: "get",
  path: "/auth/user",
  summary: "The profile of the user an access token was issued for.",
  tags: ["oauth"],
  headers: z.object({
    authorization: z.string().meta({ description: "Bearer <access_token> (a bare token is accepted too)" }),
    client_id: z.string().meta({ description: "the client id the token was issued to" }),
  }),
  security: [{ bearer: [] }],
  responses: {
    200: { description: "the user", schema: UserInfoSchema },
    400: errorResponse("client_id missing, or a token in the query string"),
    401: errorResponse("invalid_token"),
    503: errorResponse("the store cannot be reached"),
  },
};
