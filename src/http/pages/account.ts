// GET/POST {auth_url}/account — display name, profile picture, consents (docs/http-api.md#account).
import type { Request, RequestHandler, Response } from "express";
import type { UserRecord } from "../../store/port.js";
import { FormError } from "../../domain/accounts.js";
import { AccountPage } from "../../views/account.js";
import { sendPage } from "./send-page.js";
import { currentUser, field, page, signInUrl, type PagesDeps } from "./context.js";
import { closeAfterAnswer, isMultipart, readAccountForm } from "./picture-upload.js";
import { pictureUrl } from "./pictures.js";
import { csrfCheck, csrfToken, endSession } from "./session.js";
import { publicSessionId } from "../../domain/account-life.js";
import { browserSummary, changeOrigin } from "./user-agent.js";
import { pageUi, problem } from "./ui.js";
import { PasskeysSection } from "../../views/account-passkeys.js";
import { AccountUpstreams } from "../../views/upstreams.js";
import { linkedIdentities, upstreamButtons } from "./upstream-links.js";
import { passkeyScriptFor, withPasskeyCsp } from "./passkeys.js";
import { takeDraft } from "./step-up.js";
import type { MessageRef } from "../../errors.js";
import { ACTIVITY_ON_ACCOUNT, ownActivity } from "./account-activity.js";

/** The session CSRF check of every form, on a token read from a multipart body: its error, or undefined. */
const tokenCheck = (req: Request, res: Response) => (token: string | undefined) =>
  new Promise<unknown>((resolve) => {
    req.body = token === undefined ? {} : { _csrf: token };
    try {
      csrfCheck(req, res, (err?: unknown) => resolve(err ?? undefined));
    } catch (err) {
      resolve(err);
    }
  });

/** The account page; also what the email forms (email.ts) answer with, with a notice. */
export async function render(
  req: Request,
  res: Response,
  deps: PagesDeps,
  user: UserRecord,
  status: number,
  extra: { error?: MessageRef; notice?: string; errorField?: string } = {},
) {
  const ids = await deps.oauth.consents(user.id);
  const apps = await Promise.all(ids.map((id) => deps.apps.byClientId(id)));
  const consents = apps.flatMap((a) =>
    a ? [{ clientId: a.clientId, name: a.name, trusted: a.trusted === true }] : [],
  );
  const ui = pageUi(req, deps.config);
  const csrf = await csrfToken(req);
  // Passkeys: the list (rename, remove) whenever there are some; adding needs the script.
  const script = passkeyScriptFor(deps.passkeys);
  const passkeys = await deps.passkeys.list(user.id);
  withPasskeyCsp(res, deps.passkeys);
  const twoFactor = await deps.twoFactor.status(user.id);
  const links = await linkedIdentities(deps, user.id);
  const buttons = await upstreamButtons(deps);
  const current = publicSessionId(deps.config.secret, req.sessionID);
  const sessions = (await deps.accountLife.sessions(user.id)).map((x) => ({
    id: x.id,
    browser: browserSummary(x.userAgent),
    address: x.address,
    signedInAt: x.createdAt,
    lastSeenAt: x.lastSeenAt,
    current: x.id === current,
  }));
  const activity = (await ownActivity(deps, user.id, ACTIVITY_ON_ACCOUNT)).rows;
  sendPage(
    res,
    status,
    AccountPage({
      passkeys: script || passkeys.length ? PasskeysSection({ ui, csrf, passkeys, canAdd: !!script }) : undefined,
      script,
      // Deleting with a passkey: offered (by the script) when passkeys work here and the user has one.
      passkeyDelete: !!script && passkeys.length > 0,
      upstreams: buttons.length || links.length ? AccountUpstreams({ ui, csrf, links, upstreams: buttons }) : undefined,
      twoFactor,
      ui,
      user,
      pictureUrl: pictureUrl(deps.config.baseUrl, user),
      consents,
      sessions,
      activity,
      csrf,
      error:
        extra.error === undefined
          ? undefined
          : { ...problem(ui, extra.error), ...(extra.errorField ? { field: extra.errorField } : {}) },
      notice: extra.notice,
      mail: deps.email.enabled,
      // A form sent to "Confirm it's you" comes back with what was typed (step-up.ts).
      draft: takeDraft(req),
    }),
  );
}

/** The account page with an error (the two-factor forms answer with it). */
export const accountWithError =
  (deps: PagesDeps) => (req: Request, res: Response, user: UserRecord, status: number, error?: MessageRef) =>
    render(req, res, deps, user, status, error === undefined ? {} : { error });

export function accountPage(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, signInUrl(req));
    await render(req, res, deps, user, 200);
  });
}

/**
 * POST /account: the display name (a urlencoded form, parsed and CSRF-checked like every form) or
 * the picture (multipart, read only after the session and CSRF checks: see picture-upload.ts).
 */
export function updateAccount(deps: PagesDeps): RequestHandler[] {
  const check: RequestHandler = (req, res, next) => (isMultipart(req) ? next() : csrfCheck(req, res, next));
  const update = page(async (req, res) => {
    const multipart = isMultipart(req);
    const user = await currentUser(req, deps);
    if (!user) {
      if (multipart) closeAfterAnswer(res); // the body is never read
      return res.redirect(303, "/signin");
    }
    const form = multipart ? await readAccountForm(req, res, tokenCheck(req, res)) : undefined;
    if (form) req.body = form.fields;
    try {
      if (form?.picture?.length) {
        await deps.accounts.setPicture(user.id, form.picture);
      } else if ("display_name" in ((req.body as object | undefined) ?? {})) {
        await deps.accounts.setDisplayName(user.id, field(req, "display_name"));
      } else {
        throw new FormError("err.nothingToChange");
      }
      res.redirect(303, "/account");
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await render(req, res, deps, user, err.status, { error: err });
    }
  });
  return [check, update];
}

export function withdrawConsent(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const clientId = field(req, "client_id");
    // Recorded when there was a consent to withdraw (a stale form or a forged id: nothing).
    if (clientId && (await deps.oauth.withdrawConsent(user.id, clientId))) {
      deps.audit.record({
        type: "consent.withdrawn",
        userId: user.id,
        username: user.username,
        actor: { kind: "user", id: user.id },
        clientId,
        origin: changeOrigin(req),
      });
    }
    res.redirect(303, "/account");
  });
}

/**
 * POST /account/sessions/signout (session: a public session id from the list): signs that
 * browser out at once; this browser's own id signs this one out (then to /signin).
 */
export function signOutSession(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const id = field(req, "session");
    if (id === publicSessionId(deps.config.secret, req.sessionID)) {
      await endSession(req, deps.audit);
      res.clearCookie("sigil.sid", { path: "/" });
      return res.redirect(303, "/signin");
    }
    await deps.accountLife.endSession(user.id, id);
    res.redirect(303, "/account");
  });
}

/** POST /account/sessions/signout-others: every other browser signed in to the account; this one stays. */
export function signOutOthers(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    await deps.accounts.endSessions(user.id, req.sessionID);
    res.redirect(303, "/account");
  });
}

/** GET /account/export: everything Sigil holds about the signed-in user, as a JSON download. */
export function exportAccount(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, signInUrl(req));
    const data = await deps.accountLife.exportData(user);
    res.set({
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="sigil-${user.username}.json"`,
      "Cache-Control": "no-store",
    });
    res.status(200).send(`${JSON.stringify(data, null, 2)}\n`);
  });
}

/**
 * POST /account/delete (password): after the password again (limited like sign-in), deletes the
 * account and everything it owns (AccountLife.deleteAccount), then to /signin. A wrong password
 * changes nothing.
 */
export function deleteAccount(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    try {
      await deps.accounts.confirmPassword(user, field(req, "password"), req.ip ?? "unknown");
    } catch (err) {
      // Deleted meanwhile (another request of this browser): nothing left to confirm.
      if (!(await deps.accounts.byId(user.id))) return res.redirect(303, "/signin");
      if (!(err instanceof FormError)) throw err;
      return render(req, res, deps, user, err.status, { error: err });
    }
    await deps.accountLife.deleteAccount(user, changeOrigin(req));
    await endSession(req, null); // the account is gone: its deletion is the record
    res.clearCookie("sigil.sid", { path: "/" });
    res.redirect(303, "/signin");
  });
}

/**
 * POST /account/password (new_password; after "Confirm it's you"): the new password, every other
 * session of the user ended and their apps' tokens revoked; this browser stays signed in.
 */
export function changePassword(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    try {
      await deps.accountLife.changePassword(user, field(req, "new_password"), req.sessionID, changeOrigin(req));
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      return render(req, res, deps, user, err.status, { error: err, errorField: "new_password" });
    }
    await render(req, res, deps, user, 200, { notice: pageUi(req, deps.config).t("account.passwordChanged") });
  });
}

/** Renders /account with a refused form's message (the passkey rename form). */
export function renderAccountError(deps: PagesDeps) {
  return async (req: Request, res: Response, message: MessageRef) => {
    const user = await currentUser(req, deps);
    if (!user) return void res.redirect(303, "/signin");
    await render(req, res, deps, user, 400, { error: message });
  };
}
