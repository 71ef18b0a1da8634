// GET/POST {auth_url}/authorize — the authorization endpoint (docs/http-api.md#get-auth_urlauthorize, RFC 6749 §4.1,
// RFC 7636, RFC 9207). Unknown client or unregistered redirect URL: a 400 page, never a redirect.
import type { Request, Response } from "express";
import { OAuth, PKCE_VALUE } from "../../domain/oauth.js";
import { codePointLength } from "../../domain/text.js";
import type { AppRecord } from "../../store/port.js";
import { ConsentPage, ErrorPage } from "../../views/consent.js";
import { sendPage } from "../pages/send-page.js";
import { currentUser, page, type PagesDeps } from "../pages/context.js";
import { csrfToken } from "../pages/session.js";

const PARAMS = [
  "client_id",
  "redirect_uri",
  "state",
  "response_type",
  "code_challenge",
  "code_challenge_method",
  "scope",
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
}

/** Validates a request; answers it (error page or error redirect) and returns undefined when bad. */
async function check(deps: PagesDeps, res: Response, source: Record<string, unknown>): Promise<Checked | undefined> {
  const p = readParams(source);
  const bad = (message: string) => sendPage(res, 400, ErrorPage({ title: "This sign-in link is broken", message }));
  if (p === "repeated") return void bad("A parameter was given more than once.");
  const app = p.client_id ? await deps.apps.byClientId(p.client_id) : null;
  if (!app) return void bad("The app that sent you here is not registered with Sigil (unknown client_id).");
  const redirectUri = OAuth.resolveRedirect(app, p.redirect_uri);
  if (!redirectUri) return void bad("The app sent you here with a redirect URL it has not registered.");
  // A state over its bound is never echoed (by this or any later error): a Location of up to the
  // whole 16 KB request would make the response's headers too large for clients to read.
  if (p.state !== undefined && codePointLength(p.state) > 2000) {
    return void redirectWith(res, redirectUri, {
      error: "invalid_request",
      error_description: "state is longer than 2000 characters.",
      iss: deps.config.baseUrl,
    });
  }
  const fail = (error: string, description: string) =>
    redirectWith(res, redirectUri, { error, error_description: description, iss: deps.config.baseUrl, state: p.state });
  if (p.response_type !== undefined && p.response_type !== "code") {
    return void fail("unsupported_response_type", "Only response_type=code is supported.");
  }
  if (p.code_challenge_method !== undefined && p.code_challenge_method !== "S256") {
    return void fail("invalid_request", "Only code_challenge_method=S256 is supported.");
  }
  if (p.code_challenge_method !== undefined && p.code_challenge === undefined) {
    return void fail("invalid_request", "code_challenge_method was sent without code_challenge.");
  }
  if (p.code_challenge !== undefined && !PKCE_VALUE.test(p.code_challenge)) {
    return void fail("invalid_request", "code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.");
  }
  if (app.public && p.code_challenge === undefined) {
    return void fail(
      "invalid_request",
      "A public client must use PKCE (code_challenge with code_challenge_method=S256).",
    );
  }
  return { app, redirectUri, p };
}

async function approve(deps: PagesDeps, res: Response, c: Checked, userId: string): Promise<void> {
  const code = await deps.oauth.issueCode({
    clientId: c.app.clientId,
    redirectUri: c.redirectUri,
    redirectUriGiven: c.p.redirect_uri !== undefined,
    userId,
    codeChallenge: c.p.code_challenge,
    scope: minimalScope(c.p.scope),
  });
  // The consent was withdrawn (on another tab) while this request ran: ask for it again.
  if (code === null) return res.redirect(303, returnHere(c.p));
  redirectWith(res, c.redirectUri, { code, iss: deps.config.baseUrl, state: c.p.state });
}

/**
 * oidc-grants: the granted scopes, minimally, until oidc-core's scope handling lands (the
 * integrator keeps theirs, domain/oidc.ts grantedScopes, which this mirrors): with openid, the
 * known scopes asked for, in their order; without it a plain OAuth request: undefined, which the
 * store reads as ["profile"].
 */
function minimalScope(raw: string | undefined): string[] | undefined {
  const asked = new Set((raw ?? "").split(" "));
  if (!asked.has("openid")) return undefined;
  return ["openid", "profile", "email", "offline_access"].filter((s) => asked.has(s));
}

/** The same request as a query string, to come back to after signing in. */
const returnHere = (p: Params) => `/authorize?${new URLSearchParams(p as Record<string, string>)}`;

export function authorizeGet(deps: PagesDeps) {
  return page(async (req: Request, res: Response) => {
    const c = await check(deps, res, req.query as Record<string, unknown>);
    if (!c) return;
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, `/signin?${new URLSearchParams({ return_to: returnHere(c.p) })}`);
    if (await deps.oauth.hasConsent(user.id, c.app.clientId)) return approve(deps, res, c, user.id);
    sendPage(
      res,
      200,
      ConsentPage({ user, appName: c.app.name, csrf: await csrfToken(req), hidden: c.p as Record<string, string> }),
    );
  });
}

export function authorizePost(deps: PagesDeps) {
  return page(async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const c = await check(deps, res, body);
    if (!c) return;
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, `/signin?${new URLSearchParams({ return_to: returnHere(c.p) })}`);
    if (body.decision === "allow") {
      await deps.oauth.grantConsent(user.id, c.app.clientId);
      return approve(deps, res, c, user.id);
    }
    if (body.decision === "deny") {
      return redirectWith(res, c.redirectUri, {
        error: "access_denied",
        error_description: "The user denied access.",
        iss: deps.config.baseUrl,
        state: c.p.state,
      });
    }
    sendPage(res, 400, ErrorPage({ title: "No decision", message: "Choose Allow or Deny." }));
  });
}
