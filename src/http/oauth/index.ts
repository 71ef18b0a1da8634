// The OAuth API on {base_url}: /token, /auth/user and the RFC 8414 metadata. (/authorize is a
// page: http/pages/index.ts.)
import { Router } from "express";
import type { Config } from "../../config.js";
import type { Accounts } from "../../domain/accounts.js";
import type { Apps } from "../../domain/apps.js";
import type { OAuth } from "../../domain/oauth.js";
import type { Store } from "../../store/port.js";
import type { ApiRegistry } from "../openapi.js";
import { route } from "../route.js";
import type { OpenId } from "../../domain/oidc-setup.js";
import { jwksEndpoint, jwksSpec } from "./jwks.js";
import { discoverySpecs, metadataEndpoint, openIdConfigurationEndpoint } from "./metadata.js";
import { noStore, tokenBodyParser, tokenEndpoint, tokenSpec } from "./token.js";
import { userEndpoint, userSpec } from "./user.js";
import { userinfoBodyParser, userinfoEndpoint, userinfoSpecs } from "./userinfo.js";

export function oauthRoutes(
  deps: { config: Config; store: Store; accounts: Accounts; apps: Apps; oauth: OAuth; openid: OpenId },
  api: ApiRegistry,
): Router {
  const router = Router();
  const { config, openid } = deps;
  route(router, "/token", { post: [noStore, tokenBodyParser, tokenEndpoint({ ...deps, idTokens: openid.idTokens })] });
  route(router, "/auth/user", {
    get: userEndpoint({ accounts: deps.accounts, apps: deps.apps, oauth: deps.oauth, baseUrl: config.baseUrl }),
  });
  const userinfo = userinfoEndpoint({ oauth: deps.oauth, baseUrl: config.baseUrl });
  route(router, "/userinfo", { get: userinfo, post: [userinfoBodyParser, userinfo] });
  route(router, "/jwks", { get: jwksEndpoint(openid.keys, config.keyActivationDelay) });
  route(router, "/.well-known/oauth-authorization-server", { get: metadataEndpoint(config) });
  route(router, "/.well-known/openid-configuration", { get: openIdConfigurationEndpoint(config) });
  api.add(tokenSpec, userSpec, ...userinfoSpecs, jwksSpec, ...discoverySpecs);
  return router;
}
