// GET/POST {auth_url}/logout — RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0;
// docs/http-api.md#logout). With a valid id_token_hint for the signed-in user (or nobody signed
// in), the session ends at once and the browser goes to the app's registered
// post_logout_redirect_uri with `state`. Without one nothing proves the app sent the request, so
// it never redirects: the person is asked first (a form with CSRF) when signed in, and the end is
// a signed-out page with a link back to the app. A destination the app has not registered is a
// 400 page.
import type { Request, RequestHandler, Response } from "express";
import type { IdTokenHint } from "../../domain/oidc.js";
import { codePointLength } from "../../domain/text.js";
import { toRef, type PlainErrorId } from "../../errors.js";
import type { AppRecord, UserRecord } from "../../store/port.js";
import { ErrorPage } from "../../views/consent.js";
import { LogoutConfirmPage, SignedOutPage } from "../../views/logout.js";
import { currentUser, page, type PagesDeps } from "../pages/context.js";
import { sendPage } from "../pages/send-page.js";
import { pageUi } from "../pages/ui.js";
import { csrfCheck, csrfToken, endSession } from "../pages/session.js";

const PARAMS = ["id_token_hint", "post_logout_redirect_uri", "state", "client_id", "ui_locales"] as const;
type Params = Partial<Record<(typeof PARAMS)[number], string>>;

interface Checked {
  p: Params;
  hint: IdTokenHint | undefined;
  app: AppRecord | undefined;
  /** Where to go once signed out (with state), when the app named one it registered. */
  destination: string | undefined;
}

/**
 * Whether the end may be a redirect: only a valid hint (signed by this service for the app)
 * naming whoever is signed out here (or nobody signed in). Without it anyone could send a browser
 * through any self-registered app's URL.
 */
const mayRedirect = (c: Checked, userId: string | undefined) =>
  c.hint !== undefined && (userId === undefined || c.hint.sub === userId);

/** The link back to the app on the signed-out page: the URL it named (registered), else its homepage. */
function linkBack(c: Checked): { name: string; href: string } | undefined {
  const href = c.destination ?? c.app?.homepage;
  return c.app && href ? { name: c.app.name, href } : undefined;
}

async function check(
  deps: PagesDeps,
  req: Request,
  res: Response,
  source: Record<string, unknown>,
): Promise<Checked | undefined> {
  const bad = (id: PlainErrorId) => {
    const ui = pageUi(req, deps.config);
    sendPage(res, 400, ErrorPage({ ui, title: ui.t("error.brokenLogoutLink"), message: ui.message(toRef(id)).text }));
  };
  const p: Params = {};
  for (const k of PARAMS) {
    const v = source[k];
    if (v === undefined || v === "") continue;
    if (typeof v !== "string") return void bad("err.repeated");
    p[k] = v;
  }
  if (p.state !== undefined && codePointLength(p.state) > 2000) return void bad("err.stateTooLong");
  const hint = p.id_token_hint ? ((await deps.openid.idTokens.verifyHint(p.id_token_hint)) ?? undefined) : undefined;
  if (hint && p.client_id !== undefined && p.client_id !== hint.aud) {
    return void bad("err.hintMismatch");
  }
  const clientId = hint?.aud ?? p.client_id;
  const app = clientId ? ((await deps.apps.byClientId(clientId)) ?? undefined) : undefined;
  let destination: string | undefined;
  if (p.post_logout_redirect_uri !== undefined) {
    if (!app) return void bad("err.logoutNeedsApp");
    if (!(app.postLogoutRedirectUris ?? []).includes(p.post_logout_redirect_uri)) {
      return void bad("err.logoutUnregistered");
    }
    const url = new URL(p.post_logout_redirect_uri);
    if (p.state !== undefined) url.searchParams.append("state", p.state);
    destination = url.href;
  }
  return { p, hint, app, destination };
}

async function signOutAndLeave(
  deps: PagesDeps,
  req: Request,
  res: Response,
  c: Checked,
  user: UserRecord | undefined,
): Promise<void> {
  const redirect = c.destination !== undefined && mayRedirect(c, user?.id);
  if (req.session.userId) {
    await endSession(req, deps.audit);
    res.clearCookie("sigil.sid", { path: "/" });
  }
  if (redirect) return res.redirect(303, c.destination!);
  sendPage(res, 200, SignedOutPage({ ui: pageUi(req, deps.config), back: linkBack(c) }));
}

/**
 * The logout request itself: GET, or a POST from the app (RP-Initiated Logout §2 allows both;
 * such a POST carries no _csrf, and is answered exactly as the GET).
 */
async function logoutRequest(deps: PagesDeps, req: Request, res: Response, source: Record<string, unknown>) {
  const c = await check(deps, req, res, source);
  if (!c) return;
  const user = await currentUser(req, deps);
  // Nobody to sign out, or the hint proves the app signed this very user in: no question.
  if (!user || mayRedirect(c, user.id)) return signOutAndLeave(deps, req, res, c, user);
  const hidden: Record<string, string> = {};
  for (const k of ["post_logout_redirect_uri", "state", "ui_locales"] as const) {
    const v = c.p[k];
    if (v !== undefined) hidden[k] = v;
  }
  if (c.app) hidden.client_id = c.app.clientId;
  sendPage(
    res,
    200,
    LogoutConfirmPage({ ui: pageUi(req, deps.config), csrf: await csrfToken(req), appName: c.app?.name, hidden }),
  );
}

export function logoutGet(deps: PagesDeps) {
  return page((req, res) => logoutRequest(deps, req, res, req.query as Record<string, unknown>));
}

/**
 * POST: the confirmation form (it carries _csrf, checked before anything else), or the app's
 * own logout request sent as a form (no _csrf: answered as the GET, so it signs out only with a
 * valid id_token_hint for the signed-in user, and asks otherwise).
 */
export function logoutPost(deps: PagesDeps): RequestHandler {
  const confirmed = page(async (req, res) => {
    const c = await check(deps, req, res, (req.body ?? {}) as Record<string, unknown>);
    if (!c) return;
    await signOutAndLeave(deps, req, res, c, await currentUser(req, deps));
  });
  const asRequest = page((req, res) => logoutRequest(deps, req, res, (req.body ?? {}) as Record<string, unknown>));
  return (req, res, next) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body._csrf === undefined) return asRequest(req, res, next);
    csrfCheck(req, res, (err?: unknown) => (err ? next(err) : confirmed(req, res, next)));
  };
}
