// Two-factor on the pages (docs/http-api.md#two-factor): the second step of a password sign-in
// (/signin/code), and on /account its setup (QR code, secret, first code), the recovery codes shown
// once, and turning it off with a code.
import type { Request, Response } from "express";
import QRCode from "qrcode";
import { FormError } from "../../domain/accounts.js";
import { seal, sealingKey, unseal } from "../../domain/seal.js";
import type { UserRecord } from "../../store/port.js";
import { RecoveryCodesPage, TwoFactorCodePage, TwoFactorSetupPage, type QrCode } from "../../views/two-factor.js";
import { currentUser, field, page, queryParam, type PagesDeps } from "./context.js";
import { safeReturnTo } from "./return-to.js";
import { sendPage } from "./send-page.js";
import { csrfToken, signInSession } from "./session.js";
import { pageUi, problem } from "./ui.js";
import { changeOrigin } from "./user-agent.js";
import { message, type MessageRef } from "../../errors.js";

/** How long the half-signed-in state (password right, code not yet given) lasts. */
const PENDING_SECONDS = 5 * 60;

/** The methods of a sign-in with a password and a second factor (RFC 8176). */
const PWD_OTP = ["pwd", "otp", "mfa"];

/**
 * The half-signed-in session names its user sealed under SECRET (AES-GCM, domain/seal.ts), never in
 * clear: it is not among the user's sessions, so an account deleted meanwhile leaves it to expire,
 * and it must name nobody then.
 */
const pendingKey = (secret: string) => sealingKey(secret, "sigil pending second step v1");
const PENDING_AAD = "pending two-factor sign-in";

/**
 * After a right password with two-factor on: a fresh session that is only half signed in (no
 * userId, so nothing treats it as signed in) for PENDING_SECONDS, bound to this browser's cookie.
 */
export function startSecondStep(req: Request, userId: string, secret: string): Promise<void> {
  return new Promise((resolve, reject) => {
    req.session.regenerate((err) => {
      if (err) return reject(err);
      req.session.pendingTwoFactor = {
        user: seal(pendingKey(secret), userId, PENDING_AAD),
        until: Date.now() + PENDING_SECONDS * 1000,
      };
      req.session.cookie.maxAge = PENDING_SECONDS * 1000;
      req.session.save((e) => (e ? reject(e) : resolve()));
    });
  });
}

export const secondStepUrl = (returnTo: string) => `/signin/code?${new URLSearchParams({ return_to: returnTo })}`;

function pendingUser(req: Request, secret: string): string | undefined {
  const p = req.session.pendingTwoFactor;
  if (!p || typeof p.user !== "string" || !(p.until > Date.now())) return undefined;
  return unseal(pendingKey(secret), p.user, PENDING_AAD) ?? undefined;
}

const backToSignIn = (res: Response, returnTo: string) =>
  res.redirect(303, `/signin?${new URLSearchParams({ return_to: returnTo })}`);

export function secondStepPage(deps: PagesDeps) {
  return page(async (req, res) => {
    const returnTo = safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl);
    if (!pendingUser(req, deps.config.secret)) return backToSignIn(res, returnTo);
    sendPage(res, 200, TwoFactorCodePage({ ui: pageUi(req, deps.config), csrf: await csrfToken(req), returnTo }));
  });
}

export function secondStep(deps: PagesDeps) {
  return page(async (req, res) => {
    const returnTo = safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl);
    const userId = pendingUser(req, deps.config.secret);
    if (!userId) return backToSignIn(res, returnTo);
    try {
      await deps.twoFactor.verify(userId, field(req, "code"), req.ip ?? "");
      await deps.accounts.checkEnabled(userId); // disabled since the password step: no session
      await signInSession(req, deps.audit, userId, PWD_OTP);
      res.redirect(303, returnTo);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      const reason = failureReason(err.status);
      if (reason)
        deps.audit.record({
          type: "signin.failed",
          method: "two_factor",
          reason,
          userId,
          origin: changeOrigin(req),
        });
      const ui = pageUi(req, deps.config);
      sendPage(
        res,
        err.status,
        TwoFactorCodePage({ ui, csrf: await csrfToken(req), returnTo, error: problem(ui, err) }),
      );
    }
  });
}

/** Why a second step failed, for the audit log; refusals by the attempt limit (429) are not recorded. */
function failureReason(status: number): string | undefined {
  if (status === 429) return undefined;
  if (status === 403) return "disabled";
  if (status === 409) return "key_unreadable";
  return "wrong_code";
}

/** The QR code of an otpauth:// URI as SVG path data (drawn by the view under the strict CSP). */
function qrCode(uri: string): QrCode {
  const { modules } = QRCode.create(uri, { errorCorrectionLevel: "M" });
  let path = "";
  for (let y = 0; y < modules.size; y++)
    for (let x = 0; x < modules.size; x++) if (modules.get(y, x)) path += `M${x} ${y}h1v1h-1z`;
  return { size: modules.size, path };
}

const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, "$1 ");

async function renderSetup(
  req: Request,
  res: Response,
  deps: PagesDeps,
  user: UserRecord,
  setup: { secret: string; uri: string; pending: string },
  status: number,
  error?: MessageRef,
) {
  const ui = pageUi(req, deps.config);
  sendPage(
    res,
    status,
    TwoFactorSetupPage({
      ui,
      user,
      csrf: await csrfToken(req),
      qr: qrCode(setup.uri),
      secret: grouped(setup.secret),
      pending: setup.pending,
      error: error === undefined ? undefined : problem(ui, error),
    }),
  );
}

/**
 * POST /account/2fa/setup: a new secret to scan (nothing stored until a first code confirms it).
 * With two-factor on, only as a replacement (`replace=1`): its own confirmed step, whose first code
 * swaps the secret and the recovery codes (one secret at a time: TwoFactor.confirm).
 */
export function setupTwoFactor(deps: PagesDeps, renderAccount: AccountRenderer) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    if ((await deps.twoFactor.isOn(user.id)) && field(req, "replace") !== "1")
      return renderAccount(req, res, user, 409, message("err.twofaAlreadyOn"));
    await renderSetup(req, res, deps, user, await deps.twoFactor.newSetup(user.id, user.username), 200);
  });
}

export type AccountRenderer = (
  req: Request,
  res: Response,
  user: UserRecord,
  status: number,
  error?: MessageRef,
) => Promise<void>;

/** POST /account/2fa/confirm: the first code turns it on; the recovery codes are shown once. */
export function confirmTwoFactor(deps: PagesDeps, renderAccount: AccountRenderer) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    const pending = field(req, "pending");
    let setup;
    try {
      setup = deps.twoFactor.reopenSetup(user.id, user.username, pending);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      return renderAccount(req, res, user, err.status, err);
    }
    try {
      const codes = await deps.twoFactor.confirm(
        user.id,
        user.username,
        pending,
        field(req, "code"),
        changeOrigin(req),
      );
      sendPage(res, 200, RecoveryCodesPage({ ui: pageUi(req, deps.config), user, csrf: await csrfToken(req), codes }));
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      // 409: two-factor is no longer as it was when this set-up began; the set-up is of no use now.
      if (err.status === 409) return renderAccount(req, res, user, err.status, err);
      await renderSetup(req, res, deps, user, setup, err.status, err);
    }
  });
}

/** POST /account/2fa/recovery (after "Confirm it's you"): ten new recovery codes, shown once; the old ones stop working. */
export function newRecoveryCodes(deps: PagesDeps, renderAccount: AccountRenderer) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    let codes: string[];
    try {
      codes = await deps.twoFactor.newRecoveryCodes(user.id, changeOrigin(req));
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      return renderAccount(req, res, user, err.status, err);
    }
    sendPage(
      res,
      200,
      RecoveryCodesPage({ ui: pageUi(req, deps.config), user, csrf: await csrfToken(req), codes, fresh: true }),
    );
  });
}

/** POST /account/2fa/disable: a current code (or a recovery code) turns it off. */
export function disableTwoFactor(deps: PagesDeps, renderAccount: AccountRenderer) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    try {
      await deps.twoFactor.disable(user.id, field(req, "code"), changeOrigin(req));
      res.redirect(303, "/account");
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await renderAccount(req, res, user, err.status, err);
    }
  });
}
