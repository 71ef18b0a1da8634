// GET {base_url}/.well-known/oauth-authorization-server — RFC 8414 metadata.
import type { Request, Response } from "express";
import type { Config } from "../../config.js";

export function metadataDocument(config: Config) {
  return {
    issuer: config.baseUrl,
    authorization_endpoint: `${config.authUrl}/authorize`,
    token_endpoint: `${config.baseUrl}/token`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    scopes_supported: ["profile"],
    service_documentation: `${config.baseUrl}/openapi.json`,
  };
}

export function metadataEndpoint(config: Config) {
  const doc = JSON.stringify(metadataDocument(config));
  return (_req: Request, res: Response) => {
    res.set({ "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" }).type("json").send(doc);
  };
}
