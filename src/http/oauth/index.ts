// The OAuth and OpenID Connect API on {base_url}: /token, /revoke, /introspect, /jwks and the
// discovery documents. (/authorize is a page: http/pages/index.ts; /auth/user and /userinfo are
// JSON routes, http/oauth/user.ts and userinfo.ts, listed in http/routes.ts.)
import { Router } from "express";
import type { Config } from "../../config.js";
import type { Accounts } from "../../domain/accounts.js";
import type { Apps } from "../../domain/apps.js";
import type { ClientAuth } from "../../domain/client-auth.js";
import type { OAuth } from "../../domain/oauth.js";
import type { ApiRegistry } from "../openapi.js";
import { route } from "../route.js";
import type { OpenId } from "../../domain/oidc-setup.js";
import { introspectEndpoint, introspectSpec } from "./introspect.js";
import { jwksEndpoint, jwksSpec } from "./jwks.js";
import { discoverySpecs, metadataEndpoint, openIdConfigurationEndpoint } from "./metadata.js";
import { publicClientCors } from "./public-cors.js";
import { revokeEndpoint, revokeSpec } from "./revoke.js";
import type { IdTokenForRefresh } from "./refresh.js";
import { noStore, tokenBodyParser, tokenEndpoint, tokenSpec } from "./token.js";
import { userinfoPostSpec } from "./userinfo.js";

export function oauthRoutes(
  deps: { config: Config; accounts: Accounts; apps: Apps; clientAuth: ClientAuth; oauth: OAuth; openid: OpenId },
  api: ApiRegistry,
): Router {
  const router = Router();
  const { config, openid } = deps;
  const cors = publicClientCors(deps);
  // A refresh of an OpenID Connect grant answers with a new ID token too (OpenID Connect Core §12.2).
  const idTokenForRefresh: IdTokenForRefresh = ({ grant, accessToken, scope }) =>
    openid.idTokens.sign({
      clientId: grant.clientId,
      userId: grant.userId,
      scope,
      authTime: grant.authTime ?? Math.floor(Date.now() / 1000),
      amr: grant.amr ?? ["pwd"],
      accessToken,
    });
  router.options(["/token", "/revoke"], cors.preflight);
  route(router, "/token", {
    post: [
      noStore,
      tokenBodyParser,
      cors.request,
      tokenEndpoint({ ...deps, idTokens: openid.idTokens, idTokenForRefresh }),
    ],
  });
  route(router, "/revoke", { post: [noStore, tokenBodyParser, cors.request, revokeEndpoint(deps)] });
  route(router, "/introspect", {
    post: [noStore, tokenBodyParser, introspectEndpoint({ ...deps, issuer: deps.config.baseUrl })],
  });
  route(router, "/jwks", { get: jwksEndpoint(openid.keys, config.keyActivationDelay) });
  route(router, "/.well-known/oauth-authorization-server", { get: metadataEndpoint(config) });
  route(router, "/.well-known/openid-configuration", { get: openIdConfigurationEndpoint(config) });
  api.add(tokenSpec, revokeSpec, introspectSpec, userinfoPostSpec, jwksSpec, ...discoverySpecs);
  return router;
}
