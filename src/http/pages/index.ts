// The user-facing pages on {auth_url} (docs/http-api.md#sign-in-with-sigil, docs/http-api.md#pages): sessions, CSRF, page headers, and an
// error handler that answers in HTML.
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { ErrorPage } from "../../views/consent.js";
import { sendPage } from "./send-page.js";
import { errorReply } from "../middleware/errors.js";
import { authorizeGet, authorizePost } from "../oauth/authorize.js";
import { logoutGet, logoutPost } from "../oauth/logout.js";
import { route } from "../route.js";
import {
  accountPage,
  accountWithError,
  changePassword,
  deleteAccount,
  renderAccountError,
  exportAccount,
  signOutOthers,
  signOutSession,
  updateAccount,
  withdrawConsent,
} from "./account.js";
import type { Config } from "../../config.js";
import { getAsset } from "./assets.js";
import { getFavicon } from "./icon.js";
import { homePage, pageOnly } from "./home.js";
import type { PagesDeps } from "./context.js";
import { setLanguage } from "./lang.js";
import { pageUi } from "./ui.js";
import { createToken, revokeToken } from "./custom-tokens.js";
import { editApp } from "./app-edit.js";
import { setAppEvents } from "./app-events.js";
import { createApp, deleteApp, developersPage, rotateSecret } from "./developers.js";
import { getPicture } from "./pictures.js";
import { deviceDecide, deviceEnter, devicePage } from "./device.js";
import { csrfCheck, pageHeaders, sessions } from "./session.js";
import { signIn, signInPage, signOut } from "./signin.js";
import { signUp, signUpPage } from "./signup.js";
import { startUpstream, unlinkUpstream, upstreamCallback, whenLinking } from "./upstream.js";
import { confirmEmail, forgot, forgotPage, resendConfirmation, reset, resetPage, setEmail } from "./email.js";
import { removePasskey, renamePasskey } from "./passkeys.js";
import {
  confirmTwoFactor,
  disableTwoFactor,
  newRecoveryCodes,
  secondStep,
  secondStepPage,
  setupTwoFactor,
} from "./two-factor.js";
import { confirm, confirmPage, freshProof } from "./step-up.js";
import { adminHome, adminOnly } from "./admin.js";
import { adminUsersRoutes } from "./admin-users.js";
import { adminAuditRoutes } from "./admin-audit.js";
import { accountActivityRoutes } from "./account-activity.js";
import { adminAppsRoutes } from "./admin-apps.js";
import { adminGroupsRoutes } from "./admin-groups.js";
import { adminInvitationsRoutes } from "./admin-invitations.js";
import { adminUpstreamsRoutes } from "./admin-upstreams.js";

const PAGE_PATHS = [
  "/signup",
  "/signin",
  "/signout",
  "/account",
  "/developers",
  "/authorize",
  "/logout",
  "/lang",
  "/forgot",
  "/reset",
  "/email",
  "/confirm",
  "/admin",
  "/device",
  "/upstream",
];

const pageErrors = (config: Config) =>
  function pageErrors(err: unknown, req: Request, res: Response, next: NextFunction): void {
    if (res.headersSent) return next(err);
    const ui = pageUi(req, config);
    if ((err as { code?: unknown }).code === "EBADCSRFTOKEN") {
      const message = ui.t("error.formExpiredText", { service: config.serviceName });
      sendPage(res, 403, ErrorPage({ ui, title: ui.t("error.formExpired"), message }));
      return;
    }
    // The same mapping and the same one log line per 5xx as the JSON API; shown as a page, in the
    // page's language (the JSON API's error_description stays English).
    const e = errorReply(err, req);
    res.set(e.headers);
    const title = ui.t(e.status === 429 ? "error.slowDown" : e.status >= 500 ? "error.server" : "error.generic");
    sendPage(res, e.status, ErrorPage({ ui, title, message: ui.message(e).text }));
  };

/** The pages' form body reader (the last step of pageStack). */
const formBody = express.urlencoded({ extended: false, limit: "64kb", parameterLimit: 100 });

/**
 * What every page request goes through before its handler: the page headers, the session and CSRF
 * helpers, the form body. The passkey JSON endpoints among the pages (../passkeys-api.ts, in the
 * route table) run the same steps first.
 */
export function pageStack(deps: PagesDeps): RequestHandler[] {
  return [pageHeaders(deps.config), ...sessions(deps.config, deps.pageSessions), formBody];
}

/** The pages; `stack` is pageStack(deps), made once for them and the passkey endpoints. */
export function pageRoutes(deps: PagesDeps, stack: RequestHandler[] = pageStack(deps)): Router {
  const router = Router();
  route(router, "/pictures/:id", { get: getPicture(deps) });
  route(router, "/assets/:file", { get: getAsset });
  route(router, "/favicon.ico", { get: getFavicon });

  // The landing page: exactly "/" (a use() path matches by prefix, so "/" cannot be in PAGE_PATHS),
  // after pageOnly (home.ts: what is not a browser's GET or HEAD leaves the route, for the JSON 404
  // of before), with the same steps as the others but the form body, which it has no use for (a
  // body it could not read would be an error page where the API answered before), and its own
  // errors as a page.
  const landing = [pageOnly, ...stack.filter((step) => step !== formBody)];
  route(router, "/", { get: [homePage(deps), pageErrors(deps.config)] }, landing);
  router.use(PAGE_PATHS, ...stack);
  route(router, "/signup", { get: signUpPage(deps), post: [csrfCheck, signUp(deps)] });
  route(router, "/signin", { get: signInPage(deps), post: [csrfCheck, signIn(deps)] });
  route(router, "/signin/code", { get: secondStepPage(deps), post: [csrfCheck, secondStep(deps)] });
  route(router, "/signout", { post: [csrfCheck, signOut(deps)] });
  // "Confirm it's you" (step-up.ts): the sensitive forms below pass freshProof first.
  const confirmed = freshProof(deps, { returnTo: "/account" });
  // Linking an upstream identity adds a way in, unlinking takes one away: both are confirmed.
  route(router, "/upstream/:id", { post: [csrfCheck, whenLinking(confirmed), startUpstream(deps)] });
  route(router, "/upstream/:id/callback", { get: upstreamCallback(deps) });
  route(router, "/account/upstreams/unlink", { post: [csrfCheck, confirmed, unlinkUpstream(deps)] });
  route(router, "/confirm", { get: confirmPage(deps), post: [csrfCheck, confirm(deps)] });
  route(router, "/account", { get: accountPage(deps), post: updateAccount(deps) });
  route(router, "/account/2fa/setup", { post: [csrfCheck, confirmed, setupTwoFactor(deps, accountWithError(deps))] });
  route(router, "/account/2fa/confirm", {
    post: [csrfCheck, confirmed, confirmTwoFactor(deps, accountWithError(deps))],
  });
  route(router, "/account/2fa/recovery", {
    post: [csrfCheck, confirmed, newRecoveryCodes(deps, accountWithError(deps))],
  });
  route(router, "/account/2fa/disable", { post: [csrfCheck, disableTwoFactor(deps, accountWithError(deps))] });
  route(router, "/account/consents/withdraw", { post: [csrfCheck, withdrawConsent(deps)] });
  route(router, "/account/sessions/signout", { post: [csrfCheck, signOutSession(deps)] });
  route(router, "/account/sessions/signout-others", { post: [csrfCheck, signOutOthers(deps)] });
  route(router, "/account/export", { get: exportAccount(deps) });
  accountActivityRoutes(router, deps);
  route(router, "/account/delete", { post: [csrfCheck, deleteAccount(deps)] });
  route(router, "/account/email", {
    post: [csrfCheck, freshProof(deps, { returnTo: "/account", keep: ["email"] }), setEmail(deps)],
  });
  route(router, "/account/password", { post: [csrfCheck, confirmed, changePassword(deps)] });
  route(router, "/account/email/resend", { post: [csrfCheck, resendConfirmation(deps)] });
  route(router, "/email/confirm", { get: confirmEmail(deps) });
  route(router, "/device", { get: devicePage(deps), post: [csrfCheck, deviceEnter(deps)] });
  route(router, "/device/decide", { post: [csrfCheck, deviceDecide(deps)] });
  route(router, "/forgot", { get: forgotPage(deps), post: [csrfCheck, forgot(deps)] });
  route(router, "/reset", { get: resetPage(deps), post: [csrfCheck, reset(deps)] });
  route(router, "/account/passkeys/:id/rename", { post: [csrfCheck, renamePasskey(deps, renderAccountError(deps))] });
  route(router, "/account/passkeys/:id/remove", {
    post: [csrfCheck, confirmed, removePasskey(deps, accountWithError(deps))],
  });
  route(router, "/developers", { get: developersPage(deps), post: [csrfCheck, createApp(deps)] });
  route(router, "/developers/:clientId/rotate", { post: [csrfCheck, rotateSecret(deps)] });
  route(router, "/developers/:clientId/edit", { post: [csrfCheck, editApp(deps)] });
  route(router, "/developers/:clientId/events", { post: [csrfCheck, setAppEvents(deps)] });
  route(router, "/developers/:clientId/delete", { post: [csrfCheck, deleteApp(deps)] });
  route(router, "/developers/:clientId/tokens", { post: [csrfCheck, createToken(deps)] });
  route(router, "/developers/:clientId/tokens/:tokenId/revoke", { post: [csrfCheck, revokeToken(deps)] });
  route(router, "/authorize", { get: authorizeGet(deps), post: [csrfCheck, authorizePost(deps)] });
  route(router, "/logout", { get: logoutGet(deps), post: logoutPost(deps) });
  route(router, "/lang", { get: setLanguage(deps) });
  // The administration console (admin.ts): every page passes adminOnly, every action adminAction.
  route(router, "/admin", { get: [adminOnly(deps), adminHome(deps)] });
  adminUsersRoutes(router, deps);
  adminAuditRoutes(router, deps);
  adminAppsRoutes(router, deps);
  adminGroupsRoutes(router, deps);
  adminInvitationsRoutes(router, deps);
  adminUpstreamsRoutes(router, deps);
  router.use(PAGE_PATHS, pageErrors(deps.config));
  return router;
}
