// Operations endpoints (docs/http-api.md#operations): liveness, readiness, metrics, the OpenAPI document.
import { Router } from "express";
import type { Readiness } from "../domain/readiness.js";
import type { Metrics } from "../metrics.js";
import { route } from "./route.js";

export function opsRoutes(deps: {
  readiness: Readiness;
  metrics: Metrics;
  /** The OpenAPI document (http/openapi.ts, of the route table), made on first request. */
  openApi: () => unknown;
}): Router {
  const router = Router();
  route(router, "/healthz", { get: (_req, res) => void res.json({ status: "ok" }) });
  route(router, "/readyz", {
    get: async (_req, res) => {
      res.json({ status: "ready", store: await deps.readiness.check() });
    },
  });
  route(router, "/metrics", {
    get: async (_req, res) => {
      res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
    },
  });
  let doc: unknown;
  route(router, "/openapi.json", {
    get: (_req, res) => {
      doc ??= deps.openApi();
      res.json(doc);
    },
  });
  return router;
}
