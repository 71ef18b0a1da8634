// A challenge endpoint as HTTP sees it, apart from express: the request's headers, its JSON body
// (or {}) and the client's address in; the reply's status and JSON body out. The express handler
// and the hot route (http/hot-routes.ts) both serve the same one.
import type { IncomingHttpHeaders } from "node:http";
import type { Request, Response } from "express";
import { bodyObject } from "../input.js";

export type JsonEndpoint = (
  req: { headers: IncomingHttpHeaders },
  body: Record<string, unknown>,
  address: string,
) => Promise<{ status: number; body: unknown }>;

/** The endpoint behind express: its body parser's object, req.ip. */
export function expressHandler(endpoint: JsonEndpoint) {
  return async (req: Request, res: Response) => {
    const out = await endpoint(req, bodyObject(req), req.ip ?? "unknown");
    res.status(out.status).json(out.body);
  };
}
