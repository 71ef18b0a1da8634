// CORS for /token and /revoke (docs/http-api.md#public-clients): answered only for the origins of
// a public client's redirect URLs. The preflight carries no client_id, so it asks whether any
// public client has the origin; the request itself gets the header only when the client_id it
// names is a public client with a redirect URL on that origin. No cookies are involved.
// Both steps use node's own request and response only (as the middleware list does), so the fast
// path runs the request step as express does (http/hot-routes.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction } from "express";
import vary from "vary";
import type { Apps } from "../../domain/apps.js";

type Req = IncomingMessage & { body?: unknown };

/** The Origin header when it is one serialized http(s) origin, as browsers send it. */
function originOf(req: Req): string | undefined {
  const o = req.headers.origin;
  if (o === undefined || o.length > 300) return undefined;
  try {
    return new URL(o).origin === o ? o : undefined;
  } catch {
    return undefined;
  }
}

export function publicClientCors(deps: { apps: Apps }) {
  return {
    /** OPTIONS: the CORS headers of the preflight of a browser's POST, then on to the route's 204. */
    async preflight(req: Req, res: ServerResponse, next: NextFunction) {
      if (req.headers["access-control-request-method"] === undefined) return next();
      vary(res, "Origin");
      const origin = originOf(req);
      if (origin && (await deps.apps.publicOriginKnown(origin))) {
        res.setHeader("Access-Control-Allow-Origin", origin);
        res.setHeader("Access-Control-Allow-Methods", "POST");
        res.setHeader("Access-Control-Allow-Headers", "content-type");
        res.setHeader("Access-Control-Max-Age", "600");
      }
      next(); // the route's OPTIONS answer: 204 + Allow (http/route.ts)
    },
    /** POST, after the body is read: the header when the named client is public and has the origin. */
    async request(req: Req, res: ServerResponse, next: NextFunction) {
      vary(res, "Origin");
      const origin = originOf(req);
      const id: unknown = (req.body as Record<string, unknown> | undefined)?.client_id;
      if (origin && typeof id === "string" && (await deps.apps.publicClientOn(id, origin))) {
        res.setHeader("Access-Control-Allow-Origin", origin);
        res.setHeader("Access-Control-Expose-Headers", "Retry-After, WWW-Authenticate");
      }
      next();
    },
  };
}
