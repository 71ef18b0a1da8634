// Operations endpoints (docs/http-api.md#operations): liveness, readiness, metrics, the OpenAPI document.
import { Router } from "express";
import type { Store } from "../store/port.js";
import type { Metrics } from "../metrics.js";
import type { ApiRegistry } from "./openapi.js";
import { route } from "./route.js";
import { StoreUnavailableError } from "../errors.js";

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("timeout")), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}

export function opsRoutes(deps: {
  store: Store;
  metrics: Metrics;
  api: ApiRegistry;
  baseUrl: string;
  version: string;
}): Router {
  const router = Router();
  route(router, "/healthz", { get: (_req, res) => void res.json({ status: "ok" }) });
  route(router, "/readyz", {
    get: async (_req, res) => {
      try {
        await withTimeout(deps.store.ping(), 1000);
      } catch (err) {
        // Logged once (with the cause) and answered 503 by the error mapping.
        throw err instanceof StoreUnavailableError ? err : new StoreUnavailableError(err);
      }
      res.json({ status: "ready", store: deps.store.kind });
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
      doc ??= deps.api.document({ title: "Sigil", version: deps.version, serverUrl: deps.baseUrl });
      res.json(doc);
    },
  });
  return router;
}
