// GET {auth_url}/ — the landing page (docs/http-api.md#the-landing-page). `/` was a JSON 404 before
// it was a page, and API clients may still knock on it: only a GET or HEAD that takes HTML at
// least as much as JSON enters this route; anything else (Accept: application/json, another
// method) leaves it and gets the JSON 404 (and JSON errors) as before. With BASE_URL and AUTH_URL
// on two hosts, a browser that opens the API's host is sent to the pages' host, where its session
// cookie lives.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { HomePage, homeLinks } from "../../views/home.js";
import { currentUser, page, type PagesDeps } from "./context.js";
import { sendPage } from "./send-page.js";
import { csrfToken } from "./session.js";
import { pageUi } from "./ui.js";

/** Whether the request takes a page: it accepts HTML at least as much as JSON (no Accept: it does). */
export const prefersPage = (req: Request): boolean => req.accepts(["html", "json"]) === "html";

/** The landing page's first step: a request that is not a browser's GET or HEAD leaves the route (a JSON 404). */
export const pageOnly: RequestHandler = (req: Request, _res: Response, next: NextFunction) =>
  next((req.method === "GET" || req.method === "HEAD") && prefersPage(req) ? undefined : "route");

export function homePage(deps: PagesDeps): RequestHandler {
  const { authUrl, baseUrl } = deps.config;
  const authHost = new URL(authUrl).host;
  const baseHost = new URL(baseUrl).host;
  return page(async (req, res) => {
    // req.host: the Host header, or X-Forwarded-Host from a trusted proxy (TRUST_PROXY).
    if (baseHost !== authHost && req.host === baseHost) return res.redirect(303, `${authUrl}/`);
    const user = await currentUser(req, deps);
    const ui = pageUi(req, deps.config);
    // A CSRF token only for the header's sign-out form: a signed-out visit sets no cookie at all.
    const csrf = user ? await csrfToken(req) : undefined;
    // Admins also see the administration console (CONTRACT §14).
    const admin = user?.admin
      ? { href: "/admin", label: ui.t("home.admin"), hint: ui.t("home.adminHint", { service: ui.service.name }) }
      : undefined;
    sendPage(
      res,
      200,
      HomePage({ ui, user, csrf, links: homeLinks(ui, { admin }), signupOpen: deps.config.signup === "open" }),
    );
  });
}
