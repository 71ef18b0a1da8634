// What a page is rendered with (views/layout.ts Ui): the request's language, chosen as
// docs/pages.md#languages says, with the service's name, logo and stylesheet.
import type { Request } from "express";
import type { Config } from "../../config.js";
import { negotiate, translator, type Locale, type MessageRef } from "../../i18n/index.js";
import type { FormProblem, Ui } from "../../views/layout.js";
import { STYLESHEET_PATH } from "./assets.js";
import { ICON_PATH } from "./icon.js";
import { safeReturnTo } from "./return-to.js";

export const LANG_COOKIE = "lang";

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The value of one cookie of the request (cookie-parser may not have run: error pages). */
function cookie(req: Request, name: string): string | undefined {
  const parsed = (req as { cookies?: Record<string, unknown> }).cookies;
  if (parsed && typeof parsed[name] === "string") return parsed[name];
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/**
 * The app's `ui_locales` for this request: on /authorize itself (query, or the consent form), or
 * carried by the `return_to` of the sign-in and sign-up pages that lead back to it.
 */
function uiLocales(req: Request): string | undefined {
  const direct = str(req.query.ui_locales) ?? str((req.body as Record<string, unknown> | undefined)?.ui_locales);
  if (direct) return direct;
  const back = str(req.query.return_to);
  if (!back?.startsWith("/authorize?")) return undefined;
  return new URLSearchParams(back.slice("/authorize?".length)).get("ui_locales") ?? undefined;
}

/** The page's language: ui_locales, then the `lang` cookie, then Accept-Language, then English. */
export function pageLocale(req: Request): Locale {
  return negotiate({
    uiLocales: uiLocales(req),
    cookie: cookie(req, LANG_COOKIE),
    acceptLanguage: req.headers["accept-language"],
  });
}

/** Where the language menu comes back to: this page (a form's answer: the page it came from). */
function here(req: Request, authUrl: string): string {
  if (req.method === "GET" || req.method === "HEAD") return safeReturnTo(req.originalUrl, authUrl);
  const path = req.path;
  if (path === "/signin" || path === "/signup" || path === "/signin/code" || path === "/confirm")
    return safeReturnTo(req.originalUrl, authUrl);
  if (path.startsWith("/developers")) return "/developers";
  return "/account";
}

export function pageUi(req: Request, config: Config): Ui {
  return {
    ...translator(pageLocale(req)),
    service: { name: config.serviceName, logoUrl: config.serviceLogoUrl },
    stylesheet: STYLESHEET_PATH,
    icon: ICON_PATH,
    here: here(req, config.authUrl),
  };
}

/** A problem the service raised (a SigilError, a MessageRef), in the page's language, with its field. */
export function problem(ui: Ui, raised: MessageRef): FormProblem {
  return ui.message(raised);
}
