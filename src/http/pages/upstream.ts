// {auth_url}/upstream/<id> (POST: start) and /upstream/<id>/callback (GET: finish) — "Continue
// with <name>" (docs/upstream-providers.md), and /account/upstreams/unlink. The flow's state,
// nonce and PKCE verifier stay in the store (domain/upstreams.ts); the browser holds only a random
// id in an HttpOnly cookie, so a callback opened in another browser, replayed or forged finds
// nothing. A failure is a page that says what to do, and makes nothing.
import type { Request, RequestHandler, Response } from "express";
import { FormError } from "../../domain/accounts.js";
import { UpstreamAccountDisabled } from "../../domain/upstream-accounts.js";
import { UpstreamError } from "../../domain/upstreams.js";
import type { Upstream } from "../../config/upstreams.js";
import { SigilError } from "../../errors.js";
import type { UserRecord } from "../../store/port.js";
import { ErrorPage } from "../../views/consent.js";
import { sendPage } from "./send-page.js";
import { currentUser, field, page, queryParam, signInUrl, type PagesDeps } from "./context.js";
import { safeReturnTo } from "./return-to.js";
import { signInSession } from "./session.js";
import { keepProof } from "./step-up.js";
import { changeOrigin } from "./user-agent.js";
import { pageLocale, pageUi } from "./ui.js";
import { accountWithError } from "./account.js";
import { UPSTREAM_FLOW_TTL } from "../../domain/upstreams.js";

const cookieName = (deps: PagesDeps) =>
  deps.config.authUrl.startsWith("https:") ? "__Host-sigil.upstream" : "sigil.upstream";
const cookieOptions = (deps: PagesDeps) => ({
  httpOnly: true,
  // The callback is a top-level GET from the upstream's site: lax sends the cookie with it.
  sameSite: "lax" as const,
  secure: deps.config.authUrl.startsWith("https:"),
  path: "/",
});

function failed(req: Request, res: Response, deps: PagesDeps, err: SigilError): void {
  const ui = pageUi(req, deps.config);
  for (const [name, value] of Object.entries(err.headers)) res.set(name, value);
  sendPage(res, err.status, ErrorPage({ ui, title: ui.t("upstream.failedTitle"), message: ui.message(err).text }));
}

/** The audit log's method of what came through an upstream: "upstream:<id>". */
const methodOf = (u: Upstream) => `upstream:${u.id}`;

/**
 * A failed sign-in through the upstream in the audit log (signin.failed): the upstream said no, its
 * answer could not be trusted or it could not be reached once a flow was taken, the account is
 * disabled, or the identity has no account and the sign-up policy refused to make one. A callback
 * that finds no flow (replayed, forged, another browser's) is not recorded: anyone can send those,
 * and a flood must not fill the log.
 */
function recordFailure(req: Request, deps: PagesDeps, u: Upstream, err: SigilError): void {
  const user = err instanceof UpstreamAccountDisabled ? err.user : undefined;
  const reason = user
    ? "disabled"
    : err instanceof UpstreamError
      ? UPSTREAM_FAILURES[err.reason]
      : SIGNUP_REFUSALS[err.id as string];
  if (!reason) return;
  deps.audit.record({
    type: "signin.failed",
    ...(user ? { userId: user.id, username: user.username, actor: { kind: "user" as const, id: user.id } } : {}),
    method: methodOf(u),
    reason,
    origin: changeOrigin(req),
  });
}
/**
 * An identity with no account here, whose sign-up the policy refused (SIGNUP not open, or its
 * address outside SIGNUP_EMAIL_DOMAINS): a sign-in that failed, as an unknown user's password is.
 */
const SIGNUP_REFUSALS: Readonly<Record<string, string>> = {
  "err.upstreamSignupClosed": "signup_closed",
  "err.emailDomain": "signup_domain",
};
const UPSTREAM_FAILURES: Record<UpstreamError["reason"], string | undefined> = {
  expired: undefined,
  refused: "upstream_refused",
  invalid: "upstream_invalid",
  unreachable: "upstream_unreachable",
};

const upstreamOf = async (req: Request, deps: PagesDeps): Promise<Upstream | undefined> =>
  typeof req.params.id === "string" ? deps.upstreams.byId(req.params.id) : undefined;

/**
 * An identity linked to or unlinked from the user's account: the audit log (method the upstream's
 * id) and, as every change of how the account is signed in to, a mail to its confirmed address.
 */
async function recordLink(
  req: Request,
  deps: PagesDeps,
  user: UserRecord,
  upstream: string,
  kind: "upstreamLinked" | "upstreamUnlinked",
): Promise<void> {
  const provider = (await deps.upstreams.byId(upstream))?.name ?? upstream;
  deps.securityMails.notify(user, { kind, upstream, provider }, changeOrigin(req));
}

const isThrottled = (err: unknown): err is SigilError => err instanceof SigilError && err.status === 429;

/** The guard of POST /upstream/:id?link=1 only (a sign-in or a confirmation passes on). */
export const whenLinking =
  (guard: RequestHandler): RequestHandler =>
  (req, res, next) =>
    queryParam(req, "link") === "1" ? guard(req, res, next) : next();

/** POST /upstream/:id[?return_to=…|?link=1]: off to the upstream (link=1: link it to the signed-in account). */
export function startUpstream(deps: PagesDeps) {
  return page(async (req, res) => {
    const u = await upstreamOf(req, deps);
    if (!u) return failed(req, res, deps, new FormError("err.upstreamUnknown", 404));
    const linking = queryParam(req, "link") === "1";
    const confirming = queryParam(req, "confirm") === "1";
    const user = linking || confirming ? await currentUser(req, deps) : undefined;
    if ((linking || confirming) && !user) return res.redirect(303, signInUrl(req));
    const returnTo = linking ? "/account" : safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl);
    try {
      const { url, flowId } = await deps.upstreams.start(u, returnTo, req.ip ?? "", {
        linkTo: linking ? user?.id : undefined,
        confirmFor: confirming ? user?.id : undefined,
      });
      res.cookie(cookieName(deps), flowId, { ...cookieOptions(deps), maxAge: UPSTREAM_FLOW_TTL * 1000 });
      res.redirect(303, url);
    } catch (err) {
      if (!(err instanceof UpstreamError || isThrottled(err))) throw err;
      failed(req, res, deps, err);
    }
  });
}

/** GET /upstream/:id/callback: the upstream's answer; signs in (or links), or says why not. */
export function upstreamCallback(deps: PagesDeps) {
  return page(async (req, res) => {
    const u = await upstreamOf(req, deps);
    if (!u) return failed(req, res, deps, new FormError("err.upstreamUnknown", 404));
    const flowId = (req.cookies as Record<string, unknown> | undefined)?.[cookieName(deps)];
    res.clearCookie(cookieName(deps), cookieOptions(deps));
    try {
      const callback = new URL(req.originalUrl, deps.upstreams.callbackUrl(u));
      const done = await deps.upstreams.finish(u, typeof flowId === "string" ? flowId : undefined, callback);
      if (done.confirmFor !== undefined) {
        // A proof only for the owner who asked, still signed in, through an identity linked to them.
        const user = await currentUser(req, deps);
        const link = await deps.upstreamAccounts.linkOf(done.identity);
        if (!user || user.id !== done.confirmFor || link?.userId !== user.id) throw new UpstreamError("expired");
        keepProof(req, deps.stepUp.withUpstream(user));
        return res.redirect(303, done.returnTo);
      }
      if (done.linkTo !== undefined) {
        // Linked only for the owner who started it, still signed in here.
        const user = await currentUser(req, deps);
        if (user?.id !== done.linkTo) throw new UpstreamError("expired");
        if (await deps.upstreamAccounts.link(done.identity, user.id))
          await recordLink(req, deps, user, u.id, "upstreamLinked");
        return res.redirect(303, "/account");
      }
      const address = req.ip ?? "";
      const { user, created, linked } = await deps.upstreamAccounts.signIn(done.identity, {
        address,
        locale: pageLocale(req),
      });
      // A sign-up through the upstream is its signup record (the link is part of the account's making).
      if (created) {
        deps.audit.record({
          type: "signup",
          userId: user.id,
          username: user.username,
          actor: { kind: "user", id: user.id },
          method: methodOf(u),
          origin: changeOrigin(req),
        });
      } else if (linked) await recordLink(req, deps, user, u.id, "upstreamLinked");
      await signInSession(req, deps.audit, user.id, ["fed"], methodOf(u));
      res.redirect(303, done.returnTo);
    } catch (err) {
      if (!(err instanceof UpstreamError || err instanceof FormError || isThrottled(err))) throw err;
      recordFailure(req, deps, u, err);
      failed(req, res, deps, err);
    }
  });
}

/** POST /account/upstreams/unlink: refused (409) when it is the account's last way to sign in. */
export function unlinkUpstream(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, signInUrl(req));
    try {
      const link = await deps.upstreamAccounts.unlink(user, field(req, "issuer"), field(req, "subject"));
      await recordLink(req, deps, user, link.upstream, "upstreamUnlinked");
      res.redirect(303, "/account");
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await accountWithError(deps)(req, res, user, err.status, err);
    }
  });
}
