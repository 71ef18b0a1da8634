// {auth_url}/developers — the app console (CONTRACT §4). A new or rotated secret is shown once,
// in the response to the POST that made it (never stored in clear, never in a URL).
import type { Request, Response } from "express";
import { FormError } from "../../domain/accounts.js";
import type { AppRecord, UserRecord } from "../../store/signin-port.js";
import { DevelopersPage, type ShownSecret } from "../../views/developers.js";
import { sendPage } from "../../views/layout.js";
import { currentUser, page, signInUrl, type PagesDeps } from "./context.js";
import { csrfToken } from "./session.js";

/** Hook for more per-app sections (CUSTOM TOKENs); set by whoever wires those in. */
export type AppExtras = (app: AppRecord, req: Request) => import("preact").ComponentChildren;

async function render(req: Request, res: Response, deps: PagesDeps, user: UserRecord, status: number, extra: { shown?: ShownSecret; error?: string } = {}, appExtras?: AppExtras) {
  const apps = await deps.apps.listByOwner(user.id);
  sendPage(res, status, DevelopersPage({ user, apps, csrf: await csrfToken(req), ...extra, appExtras: appExtras && ((a) => appExtras(a, req)) }));
}

/** Every redirect_uri field, each split on line breaks. */
function redirectUris(req: Request): string[] {
  const v: unknown = (req.body as Record<string, unknown> | undefined)?.redirect_uri;
  const list = Array.isArray(v) ? v : [v];
  return list.filter((x): x is string => typeof x === "string").flatMap((s) => s.split(/\r?\n/));
}

export function developersPage(deps: PagesDeps, appExtras?: AppExtras) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, signInUrl(req));
    await render(req, res, deps, user, 200, {}, appExtras);
  });
}

export function createApp(deps: PagesDeps, appExtras?: AppExtras) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const name = (req.body as Record<string, unknown> | undefined)?.name;
    try {
      const { app, clientSecret } = await deps.apps.create(user.id, typeof name === "string" ? name : "", redirectUris(req));
      await render(req, res, deps, user, 201, { shown: { clientId: app.clientId, clientSecret, what: `Registered ${app.name}.` } }, appExtras);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await render(req, res, deps, user, err.status, { error: err.description }, appExtras);
    }
  });
}

export function rotateSecret(deps: PagesDeps, appExtras?: AppExtras) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const app = await deps.apps.owned(user.id, String(req.params.clientId));
    if (!app) return render(req, res, deps, user, 404, { error: "There is no such app." }, appExtras);
    const revokeNow = (req.body as Record<string, unknown> | undefined)?.revoke_old === "1";
    const clientSecret = await deps.apps.rotateSecret(app, revokeNow);
    const what = revokeNow ? "New secret; the old one no longer works." : "New secret; the old one keeps working for the grace period.";
    await render(req, res, deps, user, 200, { shown: { clientId: app.clientId, clientSecret, what } }, appExtras);
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
