// Every route a node serves. The JSON API is one table (`api`): one row per endpoint and method,
// a JsonRoute (http/route.ts) — its OpenAPI operation (path, method, schemas), who may call it
// from other origins (`cors`), and how it is served (`handle`: JSON in and out, by express and the
// fast path; or `express` handlers). Its express routes with 405/OPTIONS, /openapi.json, the CORS
// middleware and the fast path are all made from this table (http/app.ts), so a JSON route is
// added here and nowhere else. Everything else (pages, redirects, files, the operations
// endpoints) is an ordinary express router in `routers`, mounted after it in this order.
// docs/architecture.md ("Adding a route") says which to pick.
import type { Router } from "express";
import type { Config } from "../config.js";
import type { Services } from "../domain/services.js";
import type { Metrics } from "../metrics.js";
import { VERSION } from "../version.js";
import { challengeOwner } from "./challenges/index.js";
import { newChallengeRoute } from "./challenges/new.js";
import { getQuestion, getQuestionSpec } from "./challenges/question.js";
import { solveRoute } from "./challenges/solve.js";
import { clientBundleRoutes } from "./client-bundle.js";
import { idTokenForRefresh } from "./oauth/index.js";
import { introspectEndpoint, introspectSpec } from "./oauth/introspect.js";
import { jwksEndpoint, jwksSpec } from "./oauth/jwks.js";
import {
  metadataEndpoint,
  metadataSpec,
  openIdConfigurationEndpoint,
  openIdConfigurationSpec,
} from "./oauth/metadata.js";
import { deviceAuthorizationEndpoint, deviceAuthorizationSpec } from "./oauth/device.js";
import { revokeEndpoint, revokeSpec } from "./oauth/revoke.js";
import { noStore, tokenBodyParser, tokenRoute } from "./oauth/token.js";
import { userRoute } from "./oauth/user.js";
import { userinfoPostRoute, userinfoRoute } from "./oauth/userinfo.js";
import { openApiDocument } from "./openapi.js";
import { opsRoutes } from "./ops.js";
import { pageRoutes, pageStack } from "./pages/index.js";
import type { PagesDeps } from "./pages/context.js";
import { passkeyRoutes } from "./passkeys-api.js";
import { publishHandlers, publishSpec } from "./realtime-publish.js";
import type { JsonRoute } from "./route.js";

export interface RouteDeps {
  config: Config;
  services: Services;
  metrics: Metrics;
}

/** What the pages get of a node's services (a test mounting page middleware gets the same). */
export function pagesDeps(config: Config, services: Services): PagesDeps {
  return {
    config,
    pageSessions: services.pageSessions,
    accounts: services.accounts,
    accountLife: services.accountLife,
    apps: services.apps,
    oauth: services.oauth,
    customTokens: services.customTokens,
    openid: services.openid,
    passkeys: services.passkeys,
    email: services.email,
    twoFactor: services.twoFactor,
    stepUp: services.stepUp,
    audit: services.audit,
    securityMails: services.securityMails,
    groups: services.groups,
    invitations: services.invitations,
    eventEndpoints: services.eventEndpoints,
    upstreams: services.upstreams,
    upstreamAccounts: services.upstreamAccounts,
    upstreamProviders: services.upstreamProviders,
  };
}

export function routes(deps: RouteDeps): { api: JsonRoute[]; routers: Router[] } {
  const { config, services, metrics } = deps;
  const { accounts, apps, oauth, customTokens, challenges, openid, clientAuth } = services;
  const { baseUrl } = config;
  const pages = pagesDeps(config, services);
  const beforePages = pageStack(pages);
  const tokenParse = [noStore, tokenBodyParser];

  const api: JsonRoute[] = [
    // Challenges (docs/http-api.md#challenges)
    { ...newChallengeRoute(challenges, challengeOwner(customTokens)), cors: "browsers" },
    { ...solveRoute(challenges), cors: "browsers" },
    { spec: getQuestionSpec, cors: "browsers", express: [getQuestion(challenges)] },
    // OAuth 2.0 and OpenID Connect (docs/http-api.md#sign-in-with-sigil)
    { ...userRoute({ accounts, apps, oauth, baseUrl }), cors: "browsers" },
    { ...userinfoRoute({ oauth, baseUrl }), cors: "browsers" },
    { ...userinfoPostRoute({ oauth, baseUrl }), cors: "browsers" },
    tokenRoute({ clientAuth, oauth, idTokens: openid.idTokens, idTokenForRefresh: idTokenForRefresh(openid) }),
    {
      spec: deviceAuthorizationSpec,
      cors: "public clients",
      express: [...tokenParse, deviceAuthorizationEndpoint({ clientAuth, oauth, config })],
    },
    {
      spec: revokeSpec,
      cors: "public clients",
      express: [...tokenParse, revokeEndpoint({ clientAuth, oauth, audit: services.audit })],
    },
    { spec: introspectSpec, express: [...tokenParse, introspectEndpoint({ clientAuth, oauth, issuer: baseUrl })] },
    // These three send `Access-Control-Allow-Origin: *` themselves: public documents.
    { spec: jwksSpec, express: [jwksEndpoint(openid.keys, config.keyActivationDelay)] },
    { spec: metadataSpec, express: [metadataEndpoint(config)] },
    { spec: openIdConfigurationSpec, express: [openIdConfigurationEndpoint(config)] },
    // The apps' own channels (docs/http-api.md#post-base_urlrealtimepublish): servers publish, never browsers.
    { spec: publishSpec, express: publishHandlers(services.channels) },
    // The passkey ceremonies of the pages (docs/http-api.md#passkeys): eight POST endpoints.
    ...passkeyRoutes(pages, beforePages),
  ];

  const openApi = () =>
    openApiDocument(
      api.map((r) => r.spec),
      { title: "Sigil", version: VERSION, serverUrl: baseUrl },
    );
  return {
    api,
    routers: [
      pageRoutes(pages, beforePages),
      opsRoutes({ readiness: services.readiness, metrics, openApi }),
      clientBundleRoutes(config),
    ],
  };
}
