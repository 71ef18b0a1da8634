// GET /demo — a static page that shows the bundled client at work (see views/demo.ts).
import type { Request, Response } from "express";
import { DEMO_CSP, DEMO_HTML } from "../views/demo.js";

export function demoPage(_req: Request, res: Response): void {
  res
    .set({
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": DEMO_CSP,
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-cache",
    })
    .send(DEMO_HTML);
}
