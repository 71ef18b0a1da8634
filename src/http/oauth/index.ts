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
import { metadataEndpoint } from "./metadata.js";
import { noStore, tokenBodyParser, tokenEndpoint, tokenSpec } from "./token.js";
import { userEndpoint, userSpec } from "./user.js";

export function oauthRoutes(
  deps: { config: Config; store: Store; accounts: Accounts; apps: Apps; oauth: OAuth },
  api: ApiRegistry,
): Router {
  const router = Router();
  route(router, "/token", { post: [noStore, tokenBodyParser, tokenEndpoint(deps)] });
  route(router, "/auth/user", {
    get: userEndpoint({ accounts: deps.accounts, apps: deps.apps, oauth: deps.oauth, baseUrl: deps.config.baseUrl }),
  });
  route(router, "/.well-known/oauth-authorization-server", { get: metadataEndpoint(deps.config) });
  api.add(tokenSpec, userSpec);
  return router;
}
