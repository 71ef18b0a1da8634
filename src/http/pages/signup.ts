// GET/POST {auth_url}/signup — create an account, then continue to return_to (docs/http-api.md#signup-and-signin).
import type { Request, Response } from "express";
import { FormError } from "../../domain/accounts.js";
import { normalizeEmail } from "../../domain/email.js";
import { sendPage } from "./send-page.js";
import { SignUpClosedPage, SignUpPage } from "../../views/auth.js";
import { field, page, queryParam, type PagesDeps } from "./context.js";
import { safeReturnTo } from "./return-to.js";
import { csrfToken, signInSession } from "./session.js";
import { pageUi, problem } from "./ui.js";
import { changeOrigin } from "./user-agent.js";

/** SIGNUP=closed: the page says so (GET 200, a refused form 403); nothing is made. */
async function closed(req: Request, res: Response, deps: PagesDeps, status: number) {
  sendPage(
    res,
    status,
    SignUpClosedPage({
      ui: pageUi(req, deps.config),
      returnTo: safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl),
    }),
  );
}

export function signUpPage(deps: PagesDeps) {
  return page(async (req, res) => {
    if (deps.config.signup === "closed") return closed(req, res, deps, 200);
    sendPage(
      res,
      200,
      SignUpPage({
        ui: pageUi(req, deps.config),
        csrf: await csrfToken(req),
        returnTo: safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl),
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
    try {
      await deps.accounts.countSignUp(req.ip ?? "");
      if (form.email.trim()) normalizeEmail(form.email); // refused before the account is made
      const locale = pageUi(req, deps.config).locale;
      const user = await deps.accounts.create({ ...form, locale });
      if (form.email.trim()) await deps.email.setEmail(user.id, form.email, locale, changeOrigin(req));
      deps.audit.record({
        type: "signup",
        userId: user.id,
        username: user.username,
        actor: { kind: "user", id: user.id },
        origin: changeOrigin(req),
      });
      await signInSession(req, deps.audit, user.id);
      res.redirect(303, returnTo);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      const ui = pageUi(req, deps.config);
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
        }),
      );
    }
  });
}
