// The hot routes (POST /challenge/solve and /challenge/new without a body) skip express's router
// and body parser: the router walks every layer and the JSON parser runs per request, and on a
// route that does one to three Redis round trips that is most of the cost. Everything else stays
// the same code: the request is made an express request exactly as app.handle does, then the same
// middleware (request context, drain flag, CORS), the same handler and the same error mapping run.
// A request with a body, a query string or any other shape goes through express as before.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express, NextFunction, Request, RequestHandler, Response } from "express";

type Handler = (req: Request, res: Response) => Promise<void>;

export interface HotRoutesDeps {
  app: Express;
  /** path → handler; POST only. */
  routes: Record<string, Handler>;
  /** Middleware run before the handler, in order; each must call next() synchronously or end. */
  before: RequestHandler[];
  errorHandler: (err: unknown, req: Request, res: Response, next: NextFunction) => void;
}

const EMPTY_JSON_TYPE = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;

/** True when the request certainly has no body (so express.json would leave req.body undefined). */
function noBody(req: IncomingMessage): boolean {
  const h = req.headers;
  if (h["transfer-encoding"] !== undefined) return false;
  const len = h["content-length"];
  if (len === undefined) return true;
  // Content-Length: 0 (what browsers send): the JSON parser would make {} of it, same result.
  return len === "0" && (h["content-type"] === undefined || EMPTY_JSON_TYPE.test(h["content-type"]));
}

/** Returns a function that serves a hot request and returns true, or returns false to let express. */
export function hotRoutes(deps: HotRoutesDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { app, routes, before, errorHandler } = deps;
  const table = new Map(Object.entries(routes));
  return (rawReq, rawRes) => {
    if (rawReq.method !== "POST") return false;
    const handler = table.get(rawReq.url ?? "");
    if (handler === undefined || !noBody(rawReq)) return false;

    // What app.handle does before routing.
    const req = rawReq as Request;
    const res = rawRes as Response;
    (req as { res?: Response }).res = res;
    (res as { req?: Request }).req = req;
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    res.locals ??= Object.create(null);
    // What the router would have set: the route (metrics label it) and an empty body.
    req.baseUrl = "";
    (req as { route?: { path: string } }).route = { path: rawReq.url! };
    req.body = undefined;

    const fail = (err: unknown) => errorHandler(err, req, res, () => res.destroy());
    let i = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined) return fail(err);
      const mw = before[i++];
      if (mw) {
        try {
          mw(req, res, next);
        } catch (e) {
          fail(e);
        }
        return;
      }
      handler(req, res).catch(fail);
    };
    next();
    return true;
  };
}
