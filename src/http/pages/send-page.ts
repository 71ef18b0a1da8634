// Sending a page (views/ renders it): status, HTML, and no caching (pages may carry CSRF tokens or secrets).
import type { Response } from "express";
import type { VNode } from "preact";
import { renderPage } from "../../views/layout.js";

export function sendPage(res: Response, status: number, page: VNode): void {
  res.status(status).type("html").set("Cache-Control", "no-store").send(renderPage(page));
}
