// POST {base_url}/device_authorization (RFC 8628 §3.1/3.2; docs/http-api.md#device-authorization):
// a device without a browser asks for a device code to poll /token with and a user code for its
// user to type on {auth_url}/device. Client authentication as at /token: a public client sends
// its client_id alone.
import type { Request, Response } from "express";
import { z } from "zod";
import type { Config } from "../../config.js";
import type { ClientAuth } from "../../domain/client-auth.js";
import { showUserCode } from "../../domain/device-flow.js";
import type { OAuth } from "../../domain/oauth.js";
import { errorResponse, type ApiOperation } from "../openapi.js";
import { invalidRequest } from "../../errors.js";
import { readCredentials } from "./client-auth.js";
import { SCOPE } from "./refresh.js";
import { bodyOf, str } from "./fields.js";

export const DeviceAuthorizationRequest = z.object({
  client_id: z.string().optional(),
  client_secret: z.string().optional().meta({ description: "absent for a public client" }),
  scope: z.string().optional().meta({
    description: "space-separated, as at /authorize: with openid, an OpenID Connect request; otherwise profile",
  }),
});
export const DeviceAuthorizationResponse = z.object({
  device_code: z.string().meta({ description: "what the device polls /token with (256 random bits)" }),
  user_code: z.string().meta({ description: "8 letters without vowels, shown XXXX-XXXX" }),
  verification_uri: z.string().meta({ description: "{auth_url}/device" }),
  verification_uri_complete: z.string().meta({ description: "the same, with the user code filled in" }),
  expires_in: z.number().int().meta({ description: "DEVICE_CODE_TTL" }),
  interval: z.number().int().meta({ description: "seconds between polls (5)" }),
});

export function deviceAuthorizationEndpoint(deps: { clientAuth: ClientAuth; oauth: OAuth; config: Config }) {
  return async (req: Request, res: Response) => {
    const body = bodyOf(req);
    const app = await deps.clientAuth.authenticate(readCredentials(req, body), req.ip ?? "");
    const scope = str(body.scope, "scope");
    if (scope !== undefined && (scope.length > 1000 || !SCOPE.test(scope))) throw invalidRequest("err.scopeFormat");
    const started = await deps.oauth.device.start(app.clientId, scope, req.ip ?? "");
    const shown = showUserCode(started.userCode);
    const verification = `${deps.config.authUrl}/device`;
    res.status(200).json({
      device_code: started.deviceCode,
      user_code: shown,
      verification_uri: verification,
      verification_uri_complete: `${verification}?${new URLSearchParams({ user_code: shown })}`,
      expires_in: started.expiresIn,
      interval: started.interval,
    });
  };
}

export const deviceAuthorizationSpec: ApiOperation = {
  method: "post",
  path: "/device_authorization",
  summary:
    "Start a device authorization (RFC 8628): a device code to poll /token with, a user code for the user to enter at /device.",
  tags: ["oauth"],
  body: {
    schema: DeviceAuthorizationRequest,
    contentTypes: ["application/x-www-form-urlencoded", "application/json"],
    required: true,
  },
  security: [{ basic: [] }, {}],
  responses: {
    200: { description: "the codes", schema: DeviceAuthorizationResponse },
    400: errorResponse("invalid_request"),
    401: errorResponse("invalid_client"),
    429: errorResponse("too many failed client authentications, or device authorizations from this address"),
    503: errorResponse("the store cannot be reached"),
  },
};
