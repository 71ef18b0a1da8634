// The OAuth API on {base_url}: /token, /revoke, /introspect and the RFC 8414 metadata.
// (/authorize is a page: http/pages/index.ts; /auth/user is a JSON route, http/oauth/user.ts,
// listed in http/routes.ts.)
import { Router } from "express";
import type { Config } from "../../config.js";
import type { Accounts } from "../../domain/accounts.js";
import type { Apps } from "../../domain/apps.js";
import type { OAuth } from "../../domain/oauth.js";
import type { Store } from "../../store/port.js";
import type { ApiRegistry } from "../openapi.js";
import { route } from "../route.js";
import { clientAuthLimiter } from "./client-auth.js";
import { introspectEndpoint, introspectSpec } from "./introspect.js";
import { metadataEndpoint } from "./metadata.js";
import { publicClientCors } from "./public-cors.js";
import { revokeEndpoint, revokeSpec } from "./revoke.js";
import { noStore, tokenBodyParser, tokenEndpoint, tokenSpec } from "./token.js";

export function oauthRoutes(
  deps: { config: Config; store: Store; accounts: Accounts; apps: Apps; oauth: OAuth },
  api: ApiRegistry,
): Router {
  const router = Router();
  // One failure count for client authentication, wherever it fails.
  const limiter = clientAuthLimiter(deps.store);
  const cors = publicClientCors(deps);
  router.options(["/token", "/revoke"], cors.preflight);
  route(router, "/token", { post: [noStore, tokenBodyParser, cors.request, tokenEndpoint({ ...deps, limiter })] });
  route(router, "/revoke", { post: [noStore, tokenBodyParser, cors.request, revokeEndpoint({ ...deps, limiter })] });
  route(router, "/introspect", {
    post: [noStore, tokenBodyParser, introspectEndpoint({ ...deps, limiter, issuer: deps.config.baseUrl })],
  });
  route(router, "/.well-known/oauth-authorization-server", { get: metadataEndpoint(deps.config) });
  api.add(tokenSpec, revokeSpec, introspectSpec);
  return router;
}
