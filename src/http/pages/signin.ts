// GET/POST {auth_url}/signin — sign in, then continue to return_to (docs/http-api.md#signup-and-signin).
import { FormError } from "../../domain/accounts.js";
import { sendPage } from "./send-page.js";
import { SignInPage } from "../../views/auth.js";
import { field, page, queryParam, type PagesDeps } from "./context.js";
import { safeReturnTo } from "./return-to.js";
import { csrfToken, endSession, signInSession } from "./session.js";
import { pageUi, problem } from "./ui.js";
import { passkeyScriptFor, withPasskeyCsp } from "./passkeys.js";
import { secondStepUrl, startSecondStep } from "./two-factor.js";
import { changeOrigin } from "./user-agent.js";
import { upstreamButtons } from "./upstream-links.js";

export function signInPage(deps: PagesDeps) {
  return page(async (req, res) => {
    withPasskeyCsp(res, deps.passkeys);
    sendPage(
      res,
      200,
      SignInPage({
        ui: pageUi(req, deps.config),
        csrf: await csrfToken(req),
        returnTo: safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl),
        // OpenID Connect login_hint (/authorize passes it on): prefills the username.
        username: queryParam(req, "login_hint")?.slice(0, 64),
        passkeyScript: passkeyScriptFor(deps.passkeys),
        signupOpen: deps.config.signup === "open",
        upstreams: await upstreamButtons(deps),
      }),
    );
  });
}

export function signIn(deps: PagesDeps) {
  return page(async (req, res) => {
    const returnTo = safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl);
    const username = field(req, "username");
    try {
      const user = await deps.accounts.signIn(username, field(req, "password"), req.ip ?? "", changeOrigin(req));
      // With two-factor on, the password alone signs nobody in: a code is due first.
      if (await deps.twoFactor.isOn(user.id)) {
        // A key this SECRET cannot open: say so now (409), rather than ask for a code that cannot match.
        await deps.twoFactor.checkUsable(user.id);
        await startSecondStep(req, user.id, deps.config.secret);
        return res.redirect(303, secondStepUrl(returnTo));
      }
      await signInSession(req, deps.audit, user.id);
      res.redirect(303, returnTo);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      const ui = pageUi(req, deps.config);
      withPasskeyCsp(res, deps.passkeys);
      sendPage(
        res,
        err.status,
        SignInPage({
          ui,
          csrf: await csrfToken(req),
          returnTo,
          error: problem(ui, err),
          username: username.slice(0, 64),
          passkeyScript: passkeyScriptFor(deps.passkeys),
          signupOpen: deps.config.signup === "open",
          upstreams: await upstreamButtons(deps),
        }),
      );
    }
  });
}

/** POST {auth_url}/signout — end the session. */
export function signOut(deps: PagesDeps) {
  return page(async (req, res) => {
    await endSession(req, deps.audit);
    res.clearCookie("sigil.sid", { path: "/" });
    res.redirect(303, "/signin");
  });
}
