// GET/POST {auth_url}/signup — create an account, then continue to return_to (docs/http-api.md#signup-and-signin).
// SIGNUP=invite: only with a good invitation (?invite=TOKEN on the first GET, then a hidden form
// field; the access log logs the path alone, never the query, so the token is in no log line).
import type { Request, Response } from "express";
import { FormError } from "../../domain/accounts.js";
import { checkEmailDomain, normalizeEmail } from "../../domain/email-address.js";
import type { InvitationRecord } from "../../store/port.js";
import { sendPage } from "./send-page.js";
import { SignUpClosedPage, SignUpPage } from "../../views/auth.js";
import { field, page, queryParam, type PagesDeps } from "./context.js";
import { safeReturnTo } from "./return-to.js";
import { csrfToken, signInSession } from "./session.js";
import { pageUi, problem } from "./ui.js";
import { changeOrigin } from "./user-agent.js";
import { upstreamButtons } from "./upstream-links.js";

/**
 * SIGNUP=closed: the page says so (GET 200, a refused form 403); nothing is made. SIGNUP=invite
 * without a good invitation: sign-up is by invitation (and, when a link was given, that it is gone).
 */
async function closed(req: Request, res: Response, deps: PagesDeps, status: number, gone = false) {
  const ui = pageUi(req, deps.config);
  const invite = deps.config.signup === "invite" ? { gone: gone ? ui.t("err.invitationGone") : undefined } : undefined;
  sendPage(
    res,
    status,
    SignUpClosedPage({
      ui,
      returnTo: safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl),
      ...(invite ? { invite } : {}),
    }),
  );
}

/** SIGNUP_EMAIL_DOMAINS as the form's hint names them; undefined when unset. */
const domainsHint = (deps: PagesDeps) => deps.config.signupEmailDomains.join(", ") || undefined;

export function signUpPage(deps: PagesDeps) {
  return page(async (req, res) => {
    if (deps.config.signup === "closed") return closed(req, res, deps, 200);
    let invite: { token: string; email?: string | undefined } | undefined;
    if (deps.config.signup === "invite") {
      const token = queryParam(req, "invite");
      const found = token ? await deps.invitations.check(token) : null;
      if (!found) return closed(req, res, deps, token ? 410 : 200, !!token);
      invite = { token: token ?? "", email: found.email };
    }
    sendPage(
      res,
      200,
      SignUpPage({
        ui: pageUi(req, deps.config),
        csrf: await csrfToken(req),
        returnTo: safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl),
        invite,
        email: invite?.email,
        emailDomains: domainsHint(deps),
        upstreams: deps.config.signup === "open" ? await upstreamButtons(deps) : undefined,
      }),
    );
  });
}

export function signUp(deps: PagesDeps) {
  return page(async (req, res) => {
    if (deps.config.signup === "closed") return closed(req, res, deps, 403);
    const returnTo = safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl);
    const form = {
      username: field(req, "username"),
      password: field(req, "password"),
      displayName: field(req, "display_name"),
      email: field(req, "email"),
    };
    const token = deps.config.signup === "invite" ? field(req, "invite") : "";
    let invitation: InvitationRecord | null = null;
    try {
      await deps.accounts.countSignUp(req.ip ?? "");
      // Refused before the account is made: a bad address; with SIGNUP_EMAIL_DOMAINS, none or one
      // outside the domains (the account is then held back from apps until it is confirmed).
      const domains = deps.config.signupEmailDomains;
      if (domains.length > 0) checkEmailDomain(form.email.trim() ? normalizeEmail(form.email) : "", domains);
      else if (form.email.trim()) normalizeEmail(form.email);
      const confirmEmailFirst = domains.length > 0;
      const locale = pageUi(req, deps.config).locale;
      const make = async () => {
        const user = await deps.accounts.create({ ...form, locale, confirmEmailFirst });
        if (form.email.trim()) await deps.email.setEmail(user.id, form.email, locale, changeOrigin(req));
        return user;
      };
      const user =
        deps.config.signup === "invite"
          ? await deps.invitations.use(token, form.email, async (inv: InvitationRecord) => {
              invitation = inv;
              return make();
            })
          : await make();
      deps.audit.record({
        type: "signup",
        userId: user.id,
        username: user.username,
        actor: { kind: "user", id: user.id },
        origin: changeOrigin(req),
      });
      if (invitation) {
        deps.audit.record({
          type: "invitation.used",
          userId: user.id,
          username: user.username,
          actor: { kind: "user", id: user.id },
          origin: changeOrigin(req),
        });
      }
      await signInSession(req, deps.audit, user.id);
      res.redirect(303, returnTo);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      if (err.id === "err.invitationGone") return closed(req, res, deps, 410, true);
      const ui = pageUi(req, deps.config);
      const found = token ? await deps.invitations.check(token) : null;
      sendPage(
        res,
        err.status,
        SignUpPage({
          ui,
          csrf: await csrfToken(req),
          returnTo,
          error: problem(ui, err),
          username: form.username,
          displayName: form.displayName,
          email: form.email,
          invite: found ? { token, email: found.email } : undefined,
          emailDomains: domainsHint(deps),
          upstreams: deps.config.signup === "open" ? await upstreamButtons(deps) : undefined,
        }),
      );
    }
  });
}
