// GET {base_url}/.well-known/openid-configuration (OpenID Connect Discovery 1.0) and
// GET {base_url}/.well-known/oauth-authorization-server (RFC 8414): one set of endpoints, two
// documents (docs/http-api.md#discovery).
import type { Request, Response } from "express";
import { z } from "zod";
import type { Config } from "../../config.js";
import { ID_TOKEN_CLAIMS, SCOPES, SCOPE_CLAIMS } from "../../domain/oidc.js";
import { DEVICE_GRANT } from "../../domain/device-flow.js";
import type { ApiOperation } from "../openapi.js";

const AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"];

/** What both documents say: the endpoints and what they take. */
function endpoints(config: Config) {
  return {
    issuer: config.baseUrl,
    authorization_endpoint: `${config.authUrl}/authorize`,
    token_endpoint: `${config.baseUrl}/token`,
    userinfo_endpoint: `${config.baseUrl}/userinfo`,
    jwks_uri: `${config.baseUrl}/jwks`,
    revocation_endpoint: `${config.baseUrl}/revoke`,
    introspection_endpoint: `${config.baseUrl}/introspect`,
    device_authorization_endpoint: `${config.baseUrl}/device_authorization`,
    end_session_endpoint: `${config.authUrl}/logout`,
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", "client_credentials", DEVICE_GRANT],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: AUTH_METHODS,
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${config.baseUrl}/openapi.json`,
  };
}

/** RFC 8414 (§3 of the contract): the same endpoints. */
export function metadataDocument(config: Config) {
  return endpoints(config);
}

/** OpenID Connect Discovery 1.0 §3. */
export function openIdConfiguration(config: Config) {
  const claims = new Set<string>(["sub", ...ID_TOKEN_CLAIMS]);
  for (const s of SCOPES) for (const c of SCOPE_CLAIMS[s]) claims.add(c);
  return {
    ...endpoints(config),
    subject_types_supported: ["public"],
    // The algorithm of the keys this service makes; RS256 too, as Discovery §3 requires (the keys
    // made before a switch sign until the next key activates).
    id_token_signing_alg_values_supported: [...new Set([config.idTokenSigningAlg, "RS256"])],
    userinfo_signing_alg_values_supported: [],
    prompt_values_supported: ["none", "login", "consent", "select_account"],
    claims_supported: [...claims],
    claim_types_supported: ["normal"],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    require_request_uri_registration: false,
    display_values_supported: ["page"],
    ui_locales_supported: ["en", "fr", "de", "es", "ja"],
    // Back-Channel Logout 1.0 (docs/events.md#back-channel-logout): ID tokens carry the session's
    // `sid`, and a logout token names the user (`sub`) and, when one session ended, its `sid`.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
  };
}

/** Serves a fixed JSON document; cached five minutes, readable from any origin. */
export function staticJson(doc: unknown) {
  const body = JSON.stringify(doc);
  return (_req: Request, res: Response) => {
    res.set({ "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" }).type("json").send(body);
  };
}

export const metadataEndpoint = (config: Config) => staticJson(metadataDocument(config));
export const openIdConfigurationEndpoint = (config: Config) => staticJson(openIdConfiguration(config));

export const openIdConfigurationSpec: ApiOperation = {
  method: "get",
  path: "/.well-known/openid-configuration",
  summary: "OpenID Connect Discovery 1.0: the issuer, its endpoints and what they take.",
  tags: ["openid"],
  responses: {
    200: { description: "the OpenID Provider metadata", schema: z.looseObject({ issuer: z.string() }) },
  },
};

export const metadataSpec: ApiOperation = {
  method: "get",
  path: "/.well-known/oauth-authorization-server",
  summary: "RFC 8414 authorization server metadata: the same endpoints.",
  tags: ["oauth"],
  responses: {
    200: { description: "the authorization server metadata", schema: z.looseObject({ issuer: z.string() }) },
  },
};
