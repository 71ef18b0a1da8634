// GET/POST {auth_url}/authorize — the authorization endpoint (docs/http-api.md#get-auth_urlauthorize, RFC 6749 §4.1,
// RFC 7636, RFC 9207; OpenID Connect Core §3.1.2 when `scope` holds openid). Unknown client or
// unregistered redirect URL: a 400 page, never a redirect (the latter names the app and shows the
// value sent). A request without openid gets exactly what the plain OAuth flow gives; the OpenID
// parameters (prompt, max_age, …) are read only with it.
import type { Request, Response } from "express";
import { OAuth, PKCE_VALUE } from "../../domain/oauth.js";
import { grantedScopes } from "../../domain/oidc.js";
import { publicSessionId } from "../../domain/session-ids.js";
import { needsSignIn, readOpenIdRequest, type OpenIdAsk } from "../../domain/oidc-request.js";
import { codePointLength } from "../../domain/text.js";
import { english, message, type MessageRef } from "../../errors.js";
import type { AppRecord, UserRecord } from "../../store/port.js";
import { ConfirmEmailFirstPage, ConsentPage, ErrorPage, NotInGroupsPage } from "../../views/consent.js";
import { mustConfirmEmailFirst } from "../../domain/email-address.js";
import { RedirectRefusedPage } from "../../views/redirect-refused.js";
import { sendPage } from "../pages/send-page.js";
import { currentUser, page, type PagesDeps } from "../pages/context.js";
import { pictureUrl } from "../pages/pictures.js";
import { csrfToken } from "../pages/session.js";
import { pageUi } from "../pages/ui.js";
import { changeOrigin } from "../pages/user-agent.js";

const PARAMS = [
  "client_id",
  "redirect_uri",
  "state",
  "response_type",
  "code_challenge",
  "code_challenge_method",
  // OpenID Connect Core §3.1.2.1 (read only when scope holds openid; carried through sign-in).
  "scope",
  "nonce",
  "prompt",
  "max_age",
  "login_hint",
  "id_token_hint",
  "ui_locales",
  "claims_locales",
  "acr_values",
  "response_mode",
  "display",
  "request",
  "request_uri",
  "registration",
] as const;
type Params = Partial<Record<(typeof PARAMS)[number], string>>;

/** The parameters from the query (GET) or form (POST); a repeated one counts as malformed. */
function readParams(source: Record<string, unknown>): Params | "repeated" {
  const p: Params = {};
  for (const k of PARAMS) {
    const v = source[k];
    if (v === undefined || v === "") continue;
    if (typeof v !== "string") return "repeated";
    p[k] = v;
  }
  return p;
}

function redirectWith(res: Response, redirectUri: string, params: Record<string, string | undefined>): void {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  res.redirect(303, url.href);
}

interface Checked {
  app: AppRecord;
  redirectUri: string;
  p: Params;
  /** Set when scope holds openid. */
  oidc: OpenIdAsk | undefined;
  fail: (error: string, description: MessageRef) => void;
}

/** Validates a request; answers it (error page or error redirect) and returns undefined when bad. */
async function check(
  deps: PagesDeps,
  req: Request,
  res: Response,
  source: Record<string, unknown>,
): Promise<Checked | undefined> {
  const p = readParams(source);
  const bad = (problem: MessageRef) => {
    const ui = pageUi(req, deps.config);
    sendPage(res, 400, ErrorPage({ ui, title: ui.t("error.brokenLink"), message: ui.message(problem).text }));
  };
  if (p === "repeated") return void bad(message("err.repeated"));
  const app = p.client_id ? await deps.apps.byClientId(p.client_id) : null;
  if (!app) return void bad(message("err.unknownClient", { service: deps.config.serviceName }));
  // A disabled app gets no code, and no redirect (its users are told on this page).
  if (app.disabled === true) return void bad(message("err.appDisabledPage", { app: app.name }));
  const redirectUri = OAuth.resolveRedirect(app, p.redirect_uri);
  if (!redirectUri) {
    // The value and the app's name, so the developer can fix one or the other; never a redirect.
    const ui = pageUi(req, deps.config);
    return void sendPage(res, 400, RedirectRefusedPage({ ui, appName: app.name, sent: p.redirect_uri }));
  }
  // A state over its bound is never echoed (by this or any later error): a Location of up to the
  // whole 16 KB request would make the response's headers too large for clients to read.
  if (p.state !== undefined && codePointLength(p.state) > 2000) {
    return void redirectWith(res, redirectUri, {
      error: "invalid_request",
      error_description: english(message("err.stateTooLong")),
      iss: deps.config.baseUrl,
    });
  }
  const fail = (error: string, description: MessageRef) =>
    redirectWith(res, redirectUri, {
      error,
      error_description: english(description),
      iss: deps.config.baseUrl,
      state: p.state,
    });
  if (p.response_type !== undefined && p.response_type !== "code") {
    return void fail("unsupported_response_type", message("err.responseType"));
  }
  if (p.code_challenge_method !== undefined && p.code_challenge_method !== "S256") {
    return void fail("invalid_request", message("err.pkceMethod"));
  }
  if (p.code_challenge_method !== undefined && p.code_challenge === undefined) {
    return void fail("invalid_request", message("err.pkceMethodAlone"));
  }
  if (p.code_challenge !== undefined && !PKCE_VALUE.test(p.code_challenge)) {
    return void fail("invalid_request", message("err.pkceChallenge"));
  }
  if (app.public && p.code_challenge === undefined) {
    return void fail("invalid_request", message("err.publicPkce"));
  }
  let oidc: OpenIdAsk | undefined;
  if (grantedScopes(p.scope).openid) {
    const asked = await readOpenIdRequest(p, (h) => deps.openid.idTokens.verifyHint(h));
    if ("error" in asked) return void fail(asked.error, asked.description);
    oidc = asked;
  }
  return { app, redirectUri, p, oidc, fail };
}

async function approve(deps: PagesDeps, req: Request, res: Response, c: Checked, userId: string): Promise<void> {
  const code = await deps.oauth.issueCode({
    clientId: c.app.clientId,
    redirectUri: c.redirectUri,
    redirectUriGiven: c.p.redirect_uri !== undefined,
    userId,
    codeChallenge: c.p.code_challenge,
    // OpenID Connect: the granted scopes, the nonce, and when and how the user signed in. A
    // plain OAuth code has none of them (its grant reads as ["profile"]).
    ...(c.oidc
      ? {
          scope: c.oidc.scopes,
          nonce: c.oidc.nonce,
          authTime: req.session.authTime ?? Math.floor(Date.now() / 1000),
          amr: req.session.amr ?? ["pwd"],
          // The session's public id, never its cookie's value: the sid a logout token names.
          sid: publicSessionId(deps.config.secret, req.sessionID),
        }
      : {}),
  });
  // The consent was withdrawn (on another tab) while this request ran: ask for it again.
  if (code === null) return res.redirect(303, returnHere(c.p));
  redirectWith(res, c.redirectUri, { code, iss: deps.config.baseUrl, state: c.p.state });
}

/** The same request as a query string, to come back to after signing in. */
const returnHere = (p: Params) => `/authorize?${new URLSearchParams(p as Record<string, string>)}`;

/**
 * Where to sign in, coming back to this request afterwards. What asked for the new sign-in
 * (prompt=login, max_age, id_token_hint) is left out of the way back, or it would ask again for
 * ever; the app reads auth_time in the ID token (OpenID Connect Core §3.1.2.1).
 */
function signInFirst(res: Response, c: Checked): void {
  if (!c.oidc) return res.redirect(303, `/signin?${new URLSearchParams({ return_to: returnHere(c.p) })}`);
  const back: Params = { ...c.p };
  delete back.max_age;
  delete back.id_token_hint;
  if (back.prompt !== undefined) {
    const rest = back.prompt.split(" ").filter((v) => v !== "login" && v !== "select_account" && v !== "");
    if (rest.length) back.prompt = rest.join(" ");
    else delete back.prompt;
  }
  const q: Record<string, string> = { return_to: returnHere(back) };
  const hint = c.oidc?.loginHint;
  if (hint !== undefined) q.login_hint = hint;
  res.redirect(303, `/signin?${new URLSearchParams(q)}`);
}

/** What a plain OAuth request (no openid) asks for: the profile that /auth/user reads. */
const PLAIN_SCOPES = ["profile"];

/** Whether the user's consent to the app covers the scopes asked (OAuth.consentCovers). */
const consentCovers = (deps: PagesDeps, user: UserRecord, c: Checked) =>
  deps.oauth.consentCovers(user.id, c.app.clientId, c.oidc ? c.oidc.scopes : PLAIN_SCOPES);

async function showConsent(deps: PagesDeps, req: Request, res: Response, c: Checked, user: UserRecord) {
  sendPage(
    res,
    200,
    ConsentPage({
      ui: pageUi(req, deps.config),
      user,
      appName: c.app.name,
      homepage: c.app.homepage,
      publicClient: c.app.public === true,
      pictureUrl: pictureUrl(deps.config.baseUrl, user),
      csrf: await csrfToken(req),
      hidden: c.p as Record<string, string>,
      scopes: c.oidc ? c.oidc.scopes : PLAIN_SCOPES,
    }),
  );
}

/**
 * An app restricted to groups the user is in none of: a page saying so (403), whose button sends
 * the user back to the app with error=access_denied; with prompt=none, that redirect at once.
 * True when it answered.
 */
async function refusedByGroups(deps: PagesDeps, req: Request, res: Response, c: Checked, user: UserRecord) {
  if (await deps.groups.allows(c.app, user.id)) return false;
  if (c.oidc?.prompt.has("none")) {
    c.fail("access_denied", message("err.notInAppGroups"));
    return true;
  }
  sendPage(
    res,
    403,
    NotInGroupsPage({
      ui: pageUi(req, deps.config),
      user,
      appName: c.app.name,
      csrf: await csrfToken(req),
      hidden: c.p as Record<string, string>,
    }),
  );
  return true;
}

/**
 * SIGNUP_EMAIL_DOMAINS: an account that must confirm its address first (mustConfirmEmailFirst)
 * gets a page saying so (403) and the app nothing, not even an error redirect; with prompt=none,
 * the app hears interaction_required (it cannot be shown a page). True when it answered.
 */
async function heldUntilConfirmed(deps: PagesDeps, req: Request, res: Response, c: Checked, user: UserRecord) {
  if (!mustConfirmEmailFirst(user)) return false;
  if (c.oidc?.prompt.has("none")) {
    c.fail("interaction_required", message("err.confirmEmailFirst"));
    return true;
  }
  const ui = pageUi(req, deps.config);
  sendPage(res, 403, ConfirmEmailFirstPage({ ui, user, appName: c.app.name, csrf: await csrfToken(req) }));
  return true;
}

/**
 * A first-party app (AppRecord.trusted, set by the operator): no consent page; the consent is
 * recorded as given, as "Allow" would (so /account lists the app, marked trusted, and the user can
 * withdraw it). prompt=consent still shows the page. True when it answered.
 */
async function trustedApproves(deps: PagesDeps, req: Request, res: Response, c: Checked, user: UserRecord) {
  if (c.app.trusted !== true) return false;
  if (!(await consentCovers(deps, user, c))) {
    await deps.oauth.allow(user.id, c.app.clientId, c.oidc?.scopes);
    deps.audit.record({
      type: "consent.given",
      userId: user.id,
      username: user.username,
      actor: { kind: "user", id: user.id },
      clientId: c.app.clientId,
      origin: changeOrigin(req),
    });
  }
  await approve(deps, req, res, c, user.id);
  return true;
}

export function authorizeGet(deps: PagesDeps) {
  return page(async (req: Request, res: Response) => {
    const c = await check(deps, req, res, req.query as Record<string, unknown>);
    if (!c) return;
    const user = await currentUser(req, deps);
    const ask = c.oidc;
    if (!ask) {
      if (!user) return signInFirst(res, c);
      if (await heldUntilConfirmed(deps, req, res, c, user)) return;
      if (await refusedByGroups(deps, req, res, c, user)) return;
      if (await trustedApproves(deps, req, res, c, user)) return;
      if (await consentCovers(deps, user, c)) return approve(deps, req, res, c, user.id);
      return showConsent(deps, req, res, c, user);
    }
    // OpenID Connect: prompt=none shows no page; it answers login_required or consent_required.
    const silent = ask.prompt.has("none");
    if (!user || needsSignIn(ask, { userId: user.id, authTime: req.session.authTime }, Date.now())) {
      if (silent) return c.fail("login_required", message("err.loginRequired"));
      return signInFirst(res, c);
    }
    if (await heldUntilConfirmed(deps, req, res, c, user)) return;
    if (await refusedByGroups(deps, req, res, c, user)) return;
    if (!ask.prompt.has("consent") && (await trustedApproves(deps, req, res, c, user))) return;
    if (ask.prompt.has("consent") || !(await consentCovers(deps, user, c))) {
      if (silent) return c.fail("consent_required", message("err.consentRequired"));
      return showConsent(deps, req, res, c, user);
    }
    return approve(deps, req, res, c, user.id);
  });
}

export function authorizePost(deps: PagesDeps) {
  return page(async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const c = await check(deps, req, res, body);
    if (!c) return;
    const user = await currentUser(req, deps);
    if (!user) return signInFirst(res, c);
    // An address to confirm first: whatever the form said, the app gets nothing.
    if (mustConfirmEmailFirst(user)) {
      const ui = pageUi(req, deps.config);
      return sendPage(res, 403, ConfirmEmailFirstPage({ ui, user, appName: c.app.name, csrf: await csrfToken(req) }));
    }
    // Restricted to groups the user is in none of: whatever the form said, the app hears no.
    if (!(await deps.groups.allows(c.app, user.id))) {
      return redirectWith(res, c.redirectUri, {
        error: "access_denied",
        error_description: english(message("err.notInAppGroups")),
        iss: deps.config.baseUrl,
        state: c.p.state,
      });
    }
    if (body.decision === "allow") {
      // What the user allowed now, added to what they still allow (OAuth.allow).
      await deps.oauth.allow(user.id, c.app.clientId, c.oidc?.scopes);
      deps.audit.record({
        type: "consent.given",
        userId: user.id,
        username: user.username,
        actor: { kind: "user", id: user.id },
        clientId: c.app.clientId,
        origin: changeOrigin(req),
      });
      return approve(deps, req, res, c, user.id);
    }
    if (body.decision === "deny") {
      return redirectWith(res, c.redirectUri, {
        error: "access_denied",
        error_description: english(message("err.accessDenied")),
        iss: deps.config.baseUrl,
        state: c.p.state,
      });
    }
    const ui = pageUi(req, deps.config);
    sendPage(res, 400, ErrorPage({ ui, title: ui.t("error.noDecision"), message: ui.t("err.chooseAllowOrDeny") }));
  });
}
