// Email on the pages (docs/http-api.md#email-and-password-recovery): the address on /account, the
// confirmation link, /forgot and the reset form.
import { FormError } from "../../domain/accounts.js";
import { ForgotPage, LinkOutcomePage, ResetPage } from "../../views/email.js";
import { render } from "./account.js";
import { sendPage } from "./send-page.js";
import { currentUser, field, page, queryParam, signInUrl, type PagesDeps } from "./context.js";
import { csrfToken } from "./session.js";
import { pageUi, problem } from "./ui.js";
import { changeOrigin } from "./user-agent.js";
import type { Ui } from "../../views/layout.js";

/** "30 minutes", "24 hours" in the page's language. */
export function duration(ui: Ui, seconds: number): string {
  const minutes = Math.max(1, Math.round(seconds / 60));
  return minutes >= 120 && minutes % 60 === 0
    ? ui.number(minutes / 60, { style: "unit", unit: "hour", unitDisplay: "long" })
    : ui.number(minutes, { style: "unit", unit: "minute", unitDisplay: "long" });
}

/** POST /account/email: set, change or (empty) remove the address; a new one gets a confirmation link. */
export function setEmail(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, signInUrl(req));
    const ui = pageUi(req, deps.config);
    try {
      const outcome = await deps.email.setEmail(user.id, field(req, "email"), ui.locale, changeOrigin(req));
      const fresh = (await deps.accounts.byId(user.id)) ?? user;
      const notice =
        outcome === "sent"
          ? ui.t("account.emailSent", { email: fresh.email ?? "", within: duration(ui, deps.config.emailConfirmTtl) })
          : outcome === "removed"
            ? ui.t("account.emailRemoved")
            : outcome === "saved"
              ? ui.t("account.emailSaved")
              : undefined;
      if (!notice) return res.redirect(303, "/account");
      await render(req, res, deps, fresh, 200, { notice });
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await render(req, res, deps, user, err.status, { error: err });
    }
  });
}

/** POST /account/email/resend: a new confirmation link for the unconfirmed address. */
export function resendConfirmation(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, signInUrl(req));
    if (!(await deps.email.resendConfirmation(user.id))) return res.redirect(303, "/account");
    const ui = pageUi(req, deps.config);
    const notice = ui.t("account.emailSent", {
      email: user.email ?? "",
      within: duration(ui, deps.config.emailConfirmTtl),
    });
    await render(req, res, deps, user, 200, { notice });
  });
}

/** GET /email/confirm?token=…: confirms the address, once. */
export function confirmEmail(deps: PagesDeps) {
  return page(async (req, res) => {
    const outcome = await deps.email.confirm(queryParam(req, "token") ?? "");
    const ui = pageUi(req, deps.config);
    sendPage(res, outcome === "confirmed" ? 200 : 400, LinkOutcomePage({ ui, outcome }));
  });
}

export function forgotPage(deps: PagesDeps) {
  return page(async (req, res) => {
    const ui = pageUi(req, deps.config);
    const within = duration(ui, deps.config.passwordResetTtl);
    const state = deps.email.enabled ? "form" : "off";
    sendPage(res, 200, ForgotPage({ ui, csrf: await csrfToken(req), state, within }));
  });
}

/**
 * POST /forgot: the same answer, at once, whoever is named; the lookup and the mail run after it
 * (EmailService.requestReset: limited per client address, and per account).
 */
export function forgot(deps: PagesDeps) {
  return page(async (req, res) => {
    const ui = pageUi(req, deps.config);
    const within = duration(ui, deps.config.passwordResetTtl);
    if (!deps.email.enabled) {
      sendPage(res, 200, ForgotPage({ ui, csrf: await csrfToken(req), state: "off", within }));
      return;
    }
    const identifier = field(req, "identifier").trim();
    if (!identifier) {
      sendPage(res, 200, ForgotPage({ ui, csrf: await csrfToken(req), state: "form", within }));
      return;
    }
    await deps.email.requestReset(identifier, req.ip ?? "");
    sendPage(res, 200, ForgotPage({ ui, csrf: await csrfToken(req), state: "sent", within }));
  });
}

/**
 * GET /reset?token=…: the form while the link is good (it is used only by the form's answer); it
 * offers to remove the account's passkeys when it has some.
 */
export function resetPage(deps: PagesDeps) {
  return page(async (req, res) => {
    const token = queryParam(req, "token") ?? "";
    const ui = pageUi(req, deps.config);
    const state = await deps.email.resetLinkState(token);
    if (!state) {
      sendPage(res, 400, LinkOutcomePage({ ui, outcome: "invalid" }));
      return;
    }
    sendPage(res, 200, ResetPage({ ui, csrf: await csrfToken(req), token, passkeys: state.passkeys > 0 }));
  });
}

/**
 * POST /reset: sets the password (once per link), ends every session, revokes every grant, and
 * with remove_passkeys removes every passkey of the account.
 */
export function reset(deps: PagesDeps) {
  return page(async (req, res) => {
    const token = field(req, "token");
    const ui = pageUi(req, deps.config);
    try {
      const removePasskeys = field(req, "remove_passkeys") !== "";
      const user = await deps.email.reset(token, field(req, "password"), { removePasskeys }, changeOrigin(req));
      if (!user) {
        sendPage(res, 400, LinkOutcomePage({ ui, outcome: "invalid" }));
        return;
      }
      // This browser's session ends too (the user signs in with the new password).
      if (req.session.userId) await new Promise<void>((ok) => req.session.destroy(() => ok()));
      sendPage(res, 200, LinkOutcomePage({ ui, outcome: "reset" }));
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      sendPage(
        res,
        err.status,
        ResetPage({
          ui,
          csrf: await csrfToken(req),
          token,
          passkeys: ((await deps.email.resetLinkState(token))?.passkeys ?? 0) > 0,
          removePasskeys: field(req, "remove_passkeys") !== "",
          error: problem(ui, err),
        }),
      );
    }
  });
}
