// POST {base_url}/revoke — token revocation (docs/http-api.md#post-base_urlrevoke, RFC 7009). Client
// authentication as /token. A refresh token revokes its whole grant, an access token itself; 200
// also for a token that is unknown, expired or another client's (§2.2: nothing to tell).
import type { Request, Response } from "express";
import { z } from "zod";
import type { ClientAuth } from "../../domain/client-auth.js";
import type { AuditLog } from "../../domain/audit.js";
import type { OAuth } from "../../domain/oauth.js";
import { invalidRequest } from "../../errors.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import { readCredentials } from "./client-auth.js";
import { changeOrigin } from "../pages/user-agent.js";
import { bodyOf, str } from "./fields.js";

export const RevokeRequest = z.object({
  token: z.string().meta({ description: "the access token or refresh token to revoke" }),
  token_type_hint: z
    .string()
    .optional()
    .meta({ description: "access_token or refresh_token; a hint only, every kind is looked up" }),
  client_id: z.string().optional(),
  client_secret: z.string().optional().meta({ description: "absent for a public client" }),
});

export function revokeEndpoint(deps: { clientAuth: ClientAuth; oauth: OAuth; audit: AuditLog }) {
  return async (req: Request, res: Response) => {
    const body = bodyOf(req);
    const app = await deps.clientAuth.authenticate(readCredentials(req, body), req.ip ?? "");
    const token = str(body.token, "token");
    if (!token) throw invalidRequest("err.required", { name: "token" });
    str(body.token_type_hint, "token_type_hint");
    const ended = await deps.oauth.grants.revoke(token, app.clientId);
    // Recorded when something live ended (the app is the actor; never the token). A client
    // credentials token is no user's: nothing for a user's audit log.
    if (ended && !ended.m2m)
      deps.audit.record({
        type: "token.revoked",
        userId: ended.userId,
        actor: { kind: "app", id: app.clientId },
        clientId: app.clientId,
        method: ended.kind,
        origin: changeOrigin(req),
      });
    res.status(200).json({});
  };
}

export const revokeSpec: ApiOperation = {
  method: "post",
  path: "/revoke",
  summary:
    "Revoke a token (RFC 7009): a refresh token ends its whole grant, an access token itself; 200 for unknown tokens too.",
  tags: ["oauth"],
  body: {
    schema: RevokeRequest,
    contentTypes: ["application/x-www-form-urlencoded", "application/json"],
    required: true,
  },
  security: [{ basic: [] }, {}],
  responses: {
    200: { description: "revoked (or nothing to revoke)", schema: z.object({}) },
    400: errorResponse("invalid_request"),
    401: errorResponse("invalid_client"),
    429: errorResponse("too many failed client authentications"),
    503: errorResponse("the store cannot be reached"),
  },
};
