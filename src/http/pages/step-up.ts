// "Confirm it's you" on the pages (docs/http-api.md#confirming-its-you): the proof kept on the
// browser's session, the guard every sensitive form and JSON endpoint runs first, and the /confirm
// page (password, or a two-factor code; a passkey through the pages' script and ../passkeys-api.ts).
// The domain (domain/step-up.ts) checks the proof and decides whether it is fresh.
import { linkedIdentities } from "./upstream-links.js";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { FormError } from "../../domain/accounts.js";
import { reauthRequired, type Proof } from "../../domain/step-up.js";
import type { UserRecord } from "../../store/port.js";
import { ConfirmPage } from "../../views/confirm.js";
import { currentUser, field, page, queryParam, signInUrl, type PagesDeps } from "./context.js";
import { passkeyScriptFor, withPasskeyCsp } from "./passkeys.js";
import { safeReturnTo } from "./return-to.js";
import { sendPage } from "./send-page.js";
import { csrfToken } from "./session.js";
import { pageUi, problem } from "./ui.js";
import type { MessageRef } from "../../errors.js";

declare module "express-session" {
  interface SessionData {
    /** The last "Confirm it's you" of this browser (domain/step-up.ts): whose, when, how. */
    stepUp?: Proof;
    /** What a sent-to-confirm form held that is safe to keep (never a password or code), for its page to show again. */
    stepUpDraft?: Record<string, string>;
  }
}

export const confirmUrl = (returnTo: string) => `/confirm?${new URLSearchParams({ return_to: returnTo })}`;

/** Whether this browser's session holds a fresh proof for `user`. */
export function hasFreshProof(req: Request, deps: PagesDeps, user: UserRecord): boolean {
  return deps.stepUp.isFresh(req.session.stepUp, user.id);
}

/** For a JSON endpoint (signed in already checked): 401 reauth_required without a fresh proof. */
export function requireProof(req: Request, deps: PagesDeps, user: UserRecord): void {
  if (!hasFreshProof(req, deps, user)) throw reauthRequired();
}

/**
 * The guard of a sensitive form (after its CSRF check): without a fresh proof, nothing runs; the
 * browser goes to /confirm, and from there back to `returnTo` (the form's page), where the fields
 * named in `keep` show what was typed. Signed-out requests pass on (the handler sends them to sign in).
 */
export function freshProof(
  deps: PagesDeps,
  opts: { returnTo: string | ((req: Request) => string); keep?: readonly string[] },
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      // After adminOnly the account is already read (res.locals.admin): no second read per POST.
      const user = (res.locals as { admin?: UserRecord }).admin ?? (await currentUser(req, deps));
      if (!user || hasFreshProof(req, deps, user)) return next();
      if (opts.keep?.length) {
        const draft: Record<string, string> = {};
        for (const name of opts.keep) draft[name] = field(req, name).slice(0, 320);
        req.session.stepUpDraft = draft;
      }
      res.redirect(303, confirmUrl(typeof opts.returnTo === "function" ? opts.returnTo(req) : opts.returnTo));
    })().catch(next);
  };
}

/** The kept fields of a form sent to confirm (once: they are dropped as they are read). */
export function takeDraft(req: Request): Record<string, string> {
  const draft = req.session?.stepUpDraft;
  if (!draft) return {};
  delete req.session.stepUpDraft;
  return typeof draft === "object" ? draft : {};
}

/** Notes a proof on this browser's session (saved with the answer). */
export function keepProof(req: Request, proof: Proof): void {
  req.session.stepUp = proof;
}

async function renderConfirm(
  req: Request,
  res: Response,
  deps: PagesDeps,
  user: UserRecord,
  status: number,
  error?: { message: MessageRef; form: "password" | "code" },
) {
  const ui = pageUi(req, deps.config);
  const passkeyScript = passkeyScriptFor(deps.passkeys);
  const hasPasskeys = !!passkeyScript && (await deps.passkeys.list(user.id)).length > 0;
  withPasskeyCsp(res, deps.passkeys);
  sendPage(
    res,
    status,
    ConfirmPage({
      ui,
      user,
      csrf: await csrfToken(req),
      returnTo: safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl),
      twoFactor: await deps.twoFactor.isOn(user.id),
      passkeyScript: hasPasskeys ? passkeyScript : undefined,
      minutes: Math.max(1, Math.round(deps.stepUp.maxAgeSeconds / 60)),
      // Each upstream offered now that the account has an identity at, once.
      upstreams: await confirmUpstreams(deps, user.id),
      ...(error ? { error: problem(ui, error.message), errorForm: error.form } : {}),
    }),
  );
}

/** The upstreams offered now that the user has an identity at, each once (ways to confirm). */
async function confirmUpstreams(deps: PagesDeps, userId: string): Promise<Array<{ id: string; name: string }>> {
  const linked = new Set((await linkedIdentities(deps, userId)).map((l) => l.upstream));
  if (linked.size === 0) return [];
  return (await deps.upstreams.list()).filter((u) => linked.has(u.id)).map((u) => ({ id: u.id, name: u.name }));
}

/** GET /confirm?return_to=…: the ways this user can confirm it is them. */
export function confirmPage(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, signInUrl(req));
    await renderConfirm(req, res, deps, user, 200);
  });
}

/**
 * POST /confirm?return_to=…: `password`, or (two-factor on) `code`; a right one is noted on the
 * session and the browser goes back to return_to. Wrong: the page again (401); limited as sign-in (429).
 */
export function confirm(deps: PagesDeps) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, signInUrl(req));
    const returnTo = safeReturnTo(queryParam(req, "return_to"), deps.config.authUrl);
    const byCode = field(req, "method") === "code";
    const address = req.ip ?? "unknown";
    try {
      const proof = byCode
        ? await deps.stepUp.withCode(user, field(req, "code"), address)
        : await deps.stepUp.withPassword(user, field(req, "password"), address);
      keepProof(req, proof);
      res.redirect(303, returnTo);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await renderConfirm(req, res, deps, user, err.status, {
        message: err,
        form: byCode ? "code" : "password",
      });
    }
  });
}
