// {auth_url}/admin (docs/pages.md#administration, CONTRACT §14): the gate of every admin page and
// the guards of every admin action. Signed out: the sign-in page, coming back here. Not an admin:
// 403. An admin without two-factor or a passkey while ADMIN_REQUIRE_2FA is on: a page asking them
// to set one up first. Every admin action (a POST) also needs a fresh "Confirm it's you" proof
// (§13, step-up.ts): adminAction() is the list of guards the admin forms of later pages use.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { UserRecord } from "../../store/port.js";
import { AdminForbiddenPage, AdminHomePage, AdminNeedsSecondFactorPage } from "../../views/admin.js";
import { currentUser, page, signInUrl, type PagesDeps } from "./context.js";
import { passkeyScriptFor } from "./passkeys.js";
import { sendPage } from "./send-page.js";
import { csrfCheck, csrfToken } from "./session.js";
import { freshProof } from "./step-up.js";
import { pageUi } from "./ui.js";

/** The admin a request passed adminOnly() as (set by it, for the handlers after it). */
export function adminOf(res: Response): UserRecord {
  const admin = (res.locals as { admin?: UserRecord }).admin;
  if (!admin) throw new Error("adminOf() before adminOnly()");
  return admin;
}

/** Whether the user signs in with more than a password: two-factor on, or a passkey. */
async function hasSecondFactor(deps: PagesDeps, user: UserRecord): Promise<boolean> {
  return (await deps.twoFactor.isOn(user.id)) || (await deps.passkeys.list(user.id)).length > 0;
}

/**
 * The gate of every /admin route: it answers itself (sign in, 403, set up two-factor first), or
 * notes the admin (adminOf) and goes on. A form sent signed out comes back to /admin after sign-in.
 */
export function adminOnly(deps: PagesDeps): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const user = await currentUser(req, deps);
      if (!user) {
        const back = req.method === "GET" || req.method === "HEAD" ? signInUrl(req) : "/signin?return_to=%2Fadmin";
        return res.redirect(303, back);
      }
      const ui = pageUi(req, deps.config);
      const signedIn = { ui, user, csrf: await csrfToken(req) };
      if (user.admin !== true) return sendPage(res, 403, AdminForbiddenPage(signedIn));
      if (deps.config.adminRequire2fa && !(await hasSecondFactor(deps, user))) {
        const passkeys = !!passkeyScriptFor(deps.passkeys);
        return sendPage(res, 403, AdminNeedsSecondFactorPage({ ...signedIn, passkeys }));
      }
      (res.locals as { admin?: UserRecord }).admin = user;
      next();
    })().catch(next);
  };
}

/**
 * The guards of an admin action (a POST form on an /admin page), in order: the CSRF check, the
 * gate, and a fresh "Confirm it's you" proof (without one, nothing runs: the browser confirms and
 * comes back to returnTo, the form's page; a function of the request for a page per item). Use: route(router, "/admin/x", { post: [...adminAction(deps, "/admin/x"), handler] }).
 */
export function adminAction(deps: PagesDeps, returnTo: string | ((req: Request) => string)): RequestHandler[] {
  return [csrfCheck, adminOnly(deps), freshProof(deps, { returnTo })];
}

/** GET /admin: the admin home (after adminOnly). */
export function adminHome(deps: PagesDeps): RequestHandler {
  return page(async (req, res) => {
    const admin = adminOf(res);
    sendPage(res, 200, AdminHomePage({ ui: pageUi(req, deps.config), user: admin, csrf: await csrfToken(req) }));
  });
}
