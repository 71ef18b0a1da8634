// {auth_url}/developers — the app console (docs/http-api.md#developers). A new or rotated secret, or a new CUSTOM
// TOKEN, is shown once, in the response to the POST that made it (never stored, never in a URL).
import type { Request, Response } from "express";
import { FormError } from "../../domain/accounts.js";
import type { UserRecord } from "../../store/port.js";
import type { ShownToken } from "../../views/custom-tokens.js";
import { DevelopersPage, type ShownSecret } from "../../views/developers.js";
import { sendPage } from "./send-page.js";
import { currentUser, page, signInUrl, type PagesDeps } from "./context.js";
import { csrfToken } from "./session.js";

/** What one response shows beyond the console itself: a secret or token (once), or an error. */
export interface ConsoleExtras {
  shown?: ShownSecret;
  shownToken?: ShownToken;
  error?: string;
}

/** Renders the console: the user's apps, each with its CUSTOM TOKENs (records, never values). */
export async function renderConsole(
  req: Request,
  res: Response,
  deps: PagesDeps,
  user: UserRecord,
  status: number,
  extra: ConsoleExtras = {},
) {
  const apps = await deps.apps.listByOwner(user.id);
  const tokens = new Map(
    await Promise.all(apps.map(async (a) => [a.clientId, await deps.customTokens.list(a.clientId)] as const)),
  );
  sendPage(res, status, DevelopersPage({ user, apps, tokens, csrf: await csrfToken(req), now: Date.now(), ...extra }));
}

/** Every redirect_uri (or post_logout_redirect_uri) field, each split on line breaks. */
function redirectUris(req: Request, field = "redirect_uri"): string[] {
  const v: unknown = (req.body as Record<string, unknown> | undefined)?.[field];
  const list = Array.isArray(v) ? v : [v];
  return list.filter((x): x is string => typeof x === "string").flatMap((s) => s.split(/\r?\n/));
}

export function developersPage(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, signInUrl(req));
    await renderConsole(req, res, deps, user, 200, {});
  });
}

export function createApp(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const body = req.body as Record<string, unknown> | undefined;
    const name = body?.name;
    try {
      const { app, clientSecret } = await deps.apps.create(
        user.id,
        typeof name === "string" ? name : "",
        redirectUris(req),
        {
          public: body?.client_type === "public",
          postLogoutRedirectUris: redirectUris(req, "post_logout_redirect_uri"),
        },
      );
      await renderConsole(req, res, deps, user, 201, {
        shown: { clientId: app.clientId, clientSecret, what: `Registered ${app.name}.` },
      });
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await renderConsole(req, res, deps, user, err.status, { error: err.description });
    }
  });
}

export function rotateSecret(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const app = await deps.apps.owned(user.id, String(req.params.clientId));
    if (!app) return renderConsole(req, res, deps, user, 404, { error: "There is no such app." });
    if (app.public) return renderConsole(req, res, deps, user, 400, { error: "A public client has no secret." });
    const revokeNow = (req.body as Record<string, unknown> | undefined)?.revoke_old === "1";
    const clientSecret = await deps.apps.rotateSecret(app, revokeNow);
    const what = revokeNow
      ? "New secret; the old one no longer works."
      : "New secret; the old one keeps working for the grace period.";
    await renderConsole(req, res, deps, user, 200, { shown: { clientId: app.clientId, clientSecret, what } });
  });
}

export function deleteApp(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const app = await deps.apps.owned(user.id, String(req.params.clientId));
    if (app) await deps.apps.delete(app);
    res.redirect(303, "/developers");
  });
}
