// Every route a node serves, in one list. JSON routes declared as JsonRoute (http/route.ts) go in
// `json`: express serves them and the fast path serves them too (http/hot-routes.ts). Everything
// else is an ordinary express router in `routers`, mounted in this order. docs/architecture.md
// ("Adding a route") says which to pick.
import type { Router } from "express";
import type { Config } from "../config.js";
import type { Services } from "../domain/services.js";
import type { Metrics } from "../metrics.js";
import { VERSION } from "../version.js";
import { challengeJsonRoutes, challengeRoutes } from "./challenges/index.js";
import { clientBundleRoutes } from "./client-bundle.js";
import { oauthRoutes } from "./oauth/index.js";
import { userRoute } from "./oauth/user.js";
import { userinfoRoute } from "./oauth/userinfo.js";
import type { ApiRegistry } from "./openapi.js";
import { opsRoutes } from "./ops.js";
import { pageRoutes } from "./pages/index.js";
import type { JsonRoute } from "./route.js";

export interface RouteDeps {
  config: Config;
  services: Services;
  metrics: Metrics;
  /** The OpenAPI document's registry: routers add their operations (JSON routes are added for them). */
  api: ApiRegistry;
}

export function routes(deps: RouteDeps): { json: JsonRoute[]; routers: Router[] } {
  const { config, services, metrics, api } = deps;
  const { accounts, accountLife, apps, oauth, customTokens, challenges, openid } = services;
  return {
    json: [
      ...challengeJsonRoutes(challenges, customTokens),
      userRoute({ accounts, apps, oauth, baseUrl: config.baseUrl }),
      userinfoRoute({ oauth, baseUrl: config.baseUrl }),
    ],
    routers: [
      challengeRoutes(challenges, api),
      oauthRoutes({ config, accounts, apps, clientAuth: services.clientAuth, oauth, openid }, api),
      pageRoutes(
        {
          config,
          pageSessions: services.pageSessions,
          accounts,
          accountLife,
          apps,
          oauth,
          customTokens,
          openid,
          passkeys: services.passkeys,
          email: services.email,
          twoFactor: services.twoFactor,
          stepUp: services.stepUp,
        },
        api,
      ),
      opsRoutes({ readiness: services.readiness, metrics, api, baseUrl: config.baseUrl, version: VERSION }),
      clientBundleRoutes(),
    ],
  };
}
