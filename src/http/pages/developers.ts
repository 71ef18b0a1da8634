// {auth_url}/developers — the app console (docs/http-api.md#developers). A new or rotated secret, or a new CUSTOM
// TOKEN, is shown once, in the response to the POST that made it (never stored, never in a URL).
import type { Request, Response } from "express";
import { FormError } from "../../domain/accounts.js";
import type { UserRecord } from "../../store/port.js";
import { mustConfirmEmailFirst } from "../../domain/email-address.js";
import type { ShownToken } from "../../views/custom-tokens.js";
import type { EditForm } from "../../views/app-edit.js";
import type { EventsForm } from "../../views/app-events.js";
import { DevelopersPage, type ShownSecret } from "../../views/developers.js";
import { sendPage } from "./send-page.js";
import { currentUser, field, page, signInUrl, type PagesDeps } from "./context.js";
import { csrfToken } from "./session.js";
import { pageUi, problem } from "./ui.js";
import { changeOrigin } from "./user-agent.js";
import { message, type MessageRef } from "../../errors.js";

/** What one response shows beyond the console itself: a secret or token (once), or an error. */
export interface ConsoleExtras {
  shown?: ShownSecret;
  shownToken?: ShownToken;
  /** The English message the service raised (shown in the page's language). */
  error?: MessageRef;
  /** The registration form as it was sent, when it was refused. */
  form?: {
    name: string;
    redirectUris: string;
    postLogoutRedirectUris: string;
    homepage: string;
    publicClient: boolean;
  };
  /** One app's edit form as it was sent, when it was refused. */
  editForm?: EditForm;
  /** What happened (an app was edited), in the page's language. */
  done?: string;
  /** A webhook signing secret just made (shown this once, in its app's section). */
  shownWebhookSecret?: { app: string; secret: string };
  /** One app's events form as it was sent, when it was refused. */
  eventsForm?: EventsForm;
  /** The app whose events form was just sent (shown open). */
  eventsOpen?: string;
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
  const deliveries = new Map(
    await Promise.all(apps.map(async (a) => [a.clientId, await deps.eventEndpoints.recent(a)] as const)),
  );
  const ui = pageUi(req, deps.config);
  const { error, ...rest } = extra;
  sendPage(
    res,
    status,
    DevelopersPage({
      ui,
      user,
      apps,
      tokens,
      deliveries,
      csrf: await csrfToken(req),
      now: Date.now(),
      mayRegister: mayRegister(deps, user),
      confirmEmailFirst: mustConfirmEmailFirst(user),
      ...rest,
      error: error === undefined ? undefined : problem(ui, error),
    }),
  );
}

/**
 * Whether this user may register a new app: APP_REGISTRATION (everyone, or admins only), and not
 * an account that must confirm its address first (SIGNUP_EMAIL_DOMAINS).
 */
const mayRegister = (deps: PagesDeps, user: UserRecord) =>
  (deps.config.appRegistration === "everyone" || user.admin === true) && !mustConfirmEmailFirst(user);

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

/** An owner's change to their app, for the audit log: who (the owner, acting as a user) and from where. */
export function byOwner(req: Request, user: UserRecord) {
  return {
    userId: user.id,
    username: user.username,
    actor: { kind: "user" as const, id: user.id },
    origin: changeOrigin(req),
  };
}

export function createApp(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    // APP_REGISTRATION=admins, or an address to confirm first: refused, nothing made; the console
    // (403) says why where the form was.
    if (!mayRegister(deps, user)) return renderConsole(req, res, deps, user, 403);
    const name = field(req, "name");
    const homepage = field(req, "homepage");
    const isPublic = field(req, "client_type") === "public";
    try {
      const { app, clientSecret } = await deps.apps.create(user.id, name, redirectUris(req), {
        public: isPublic,
        postLogoutRedirectUris: redirectUris(req, "post_logout_redirect_uri"),
        homepage,
      });
      deps.audit.record({ type: "app.created", ...byOwner(req, user), clientId: app.clientId });
      const what = pageUi(req, deps.config).t("dev.registered", { app: app.name });
      await renderConsole(req, res, deps, user, 201, { shown: { clientId: app.clientId, clientSecret, what } });
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await renderConsole(req, res, deps, user, err.status, {
        error: err,
        form: {
          name: name.slice(0, 200),
          redirectUris: redirectUris(req).join("\n").slice(0, 8000),
          postLogoutRedirectUris: redirectUris(req, "post_logout_redirect_uri").join("\n").slice(0, 8000),
          homepage: homepage.slice(0, 2000),
          publicClient: isPublic,
        },
      });
    }
  });
}

export function rotateSecret(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const app = await deps.apps.owned(user.id, String(req.params.clientId));
    if (!app) return renderConsole(req, res, deps, user, 404, { error: message("err.noSuchApp") });
    if (app.public) return renderConsole(req, res, deps, user, 400, { error: message("err.publicNoSecret") });
    const revokeNow = (req.body as Record<string, unknown> | undefined)?.revoke_old === "1";
    const clientSecret = await deps.apps.rotateSecret(app, revokeNow);
    deps.audit.record({ type: "app.secret_rotated", ...byOwner(req, user), clientId: app.clientId });
    const what = pageUi(req, deps.config).t(revokeNow ? "dev.rotatedRevoked" : "dev.rotated");
    await renderConsole(req, res, deps, user, 200, { shown: { clientId: app.clientId, clientSecret, what } });
  });
}

export function deleteApp(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const app = await deps.apps.owned(user.id, String(req.params.clientId));
    if (app) {
      await deps.apps.delete(app);
      deps.audit.record({ type: "app.deleted", ...byOwner(req, user), clientId: app.clientId });
    }
    res.redirect(303, "/developers");
  });
}
