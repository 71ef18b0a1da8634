// POST {base_url}/introspect — token introspection (docs/http-api.md#post-base_urlintrospect, RFC 7662).
// Client authentication as /token; a client sees only its own tokens (others: {"active": false}),
// but a confidential app also sees another app's client credentials tokens (the service called asks).
import type { Request, Response } from "express";
import { z } from "zod";
import type { ClientAuth } from "../../domain/client-auth.js";
import type { OAuth } from "../../domain/oauth.js";
import { invalidRequest } from "../../errors.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import { readCredentials } from "./client-auth.js";
import { bodyOf, str } from "./fields.js";

export const IntrospectRequest = z.object({
  token: z.string(),
  token_type_hint: z.string().optional().meta({ description: "access_token or refresh_token; a hint only" }),
  client_id: z.string().optional(),
  client_secret: z.string().optional().meta({ description: "absent for a public client" }),
});
export const IntrospectResponse = z.object({
  active: z.boolean(),
  scope: z.string().optional(),
  client_id: z.string().optional(),
  sub: z
    .string()
    .optional()
    .meta({ description: "the user's stable id (the id of /auth/user); a client credentials token's: its client id" }),
  username: z.string().optional(),
  exp: z.number().int().optional(),
  iat: z.number().int().optional(),
  token_type: z.enum(["Bearer", "refresh_token"]).optional(),
  iss: z.string().optional(),
  groups: z
    .array(z.string())
    .optional()
    .meta({ description: "with the scope groups: the names of the user's groups, sorted" }),
});

export function introspectEndpoint(deps: { clientAuth: ClientAuth; oauth: OAuth; issuer: string }) {
  return async (req: Request, res: Response) => {
    const body = bodyOf(req);
    const app = await deps.clientAuth.authenticate(readCredentials(req, body), req.ip ?? "");
    const token = str(body.token, "token");
    if (!token) throw invalidRequest("err.required", { name: "token" });
    str(body.token_type_hint, "token_type_hint");
    const found = await deps.oauth.grants.introspect(token, app.clientId, app.public !== true);
    res.status(200).json(found.active ? { ...found, iss: deps.issuer } : found);
  };
}

export const introspectSpec: ApiOperation = {
  method: "post",
  path: "/introspect",
  summary: "What a token is (RFC 7662): active or not, and for the client's own live tokens whose and what for.",
  tags: ["oauth"],
  body: {
    schema: IntrospectRequest,
    contentTypes: ["application/x-www-form-urlencoded", "application/json"],
    required: true,
  },
  security: [{ basic: [] }, {}],
  responses: {
    200: { description: "the token's state", schema: IntrospectResponse },
    400: errorResponse("invalid_request"),
    401: errorResponse("invalid_client"),
    429: errorResponse("too many failed client authentications"),
    503: errorResponse("the store cannot be reached"),
  },
};
