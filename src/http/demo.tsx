// GET /demo — the page that shows the bundled client at work (views/demo.tsx), in the pages'
// frame, look and language. Its CSP is the pages' (http/pages/session.ts pagesCsp) plus what it
// runs: /client.js, its one inline script (by hash), and the realtime channel on this host.
import type { Request, Response } from "express";
import type { Config } from "../config.js";
import { DemoPage, DEMO_SCRIPT_SOURCE } from "../views/demo.js";
import { renderPage } from "../views/layout.js";
import { pagesCsp } from "./pages/session.js";
import { pageUi } from "./pages/ui.js";

export function demoPage(config: Config) {
  const csp = [
    pagesCsp(config),
    `script-src 'self' ${DEMO_SCRIPT_SOURCE}`,
    // The realtime channel (Socket.IO, polling then WebSocket): 'self' covers ws(s) to this host.
    "connect-src 'self'",
    "form-action 'none'",
  ].join("; ");
  return (req: Request, res: Response): void => {
    res
      .set({
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": csp,
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Cache-Control": "no-cache",
        Vary: "Accept-Language, Cookie",
      })
      // The language menu comes back to /demo itself: nothing of the request's URL reaches the page.
      .send(renderPage(<DemoPage ui={{ ...pageUi(req, config), here: "/demo" }} />));
  };
}
