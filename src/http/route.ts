// Mapping one path to its handlers; any other method gets 405 with Allow (OPTIONS: 204 + Allow).
import type { RequestHandler, Router } from "express";
import { SigilError } from "../errors.js";

type Method = "get" | "post" | "put" | "delete" | "patch";

export function route(
  router: Router,
  path: string,
  handlers: Partial<Record<Method, RequestHandler | RequestHandler[]>>,
) {
  const r = router.route(path);
  const allowed: string[] = [];
  for (const [m, h] of Object.entries(handlers) as Array<[Method, RequestHandler | RequestHandler[]]>) {
    r[m](...(Array.isArray(h) ? h : [h]));
    allowed.push(m.toUpperCase());
    if (m === "get") allowed.push("HEAD");
  }
  allowed.push("OPTIONS");
  const allow = allowed.join(", ");
  r.all((req, res, next) => {
    if (req.method === "OPTIONS") {
      res.set("Allow", allow).status(204).end();
      return;
    }
    next(
      new SigilError(405, "method_not_allowed", `${req.method} is not allowed here; use ${allow}.`, { Allow: allow }),
    );
  });
}
