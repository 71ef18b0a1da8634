// The JSON endpoints of the passkey ceremonies (docs/http-api.md#passkeys), rows of the route
// table (http/routes.ts) that run after the pages' own steps (their headers, sessions and CSRF
// helpers): /account/passkeys/options and /account/passkeys (add one, signed in),
// /signin/passkey/options and /signin/passkey (sign in, then continue to return_to), and the
// confirmation and deletion ones. They take the page's CSRF token in X-CSRF-Token and answer errors in the JSON API's
// format (docs/errors.md), never as a page; the pages' script (src/pages-js/passkeys.ts) calls them.
import express, { type Request, type RequestHandler, type Response } from "express";
import { z } from "zod";
import type { Passkeys } from "../domain/passkeys.js";
import { SigilError, invalidRequest } from "../errors.js";
import { bodyObject } from "./input.js";
import { sendError } from "./middleware/errors.js";
import { errorResponse, type ApiOperation } from "./openapi.js";
import { sendJson, type JsonRoute } from "./route.js";
import { currentUser, type PagesDeps } from "./pages/context.js";
import { safeReturnTo } from "./pages/return-to.js";
import { bindPasskeyBrowser, clearPasskeyBrowser, passkeyBrowser } from "./pages/passkey-browser.js";
import { endSession, signInSession } from "./pages/session.js";
import { keepProof, requireProof } from "./pages/step-up.js";
import { changeOrigin } from "./pages/user-agent.js";

// ---- JSON endpoints -----------------------------------------------------------------------------

const parseJson = express.json({ limit: "64kb", strict: true });

/**
 * A JSON endpoint under the pages: its body parsed, the page's CSRF token checked (X-CSRF-Token),
 * and every error answered as the JSON API answers them (docs/errors.md), never as a page.
 */
function jsonEndpoint(fn: (req: Request, res: Response) => Promise<{ status: number; body: unknown }>): RequestHandler {
  return (req, res) => {
    void (async () => {
      try {
        if (!req.is("application/json")) throw invalidRequest("err.jsonBody");
        await new Promise<void>((resolve, reject) =>
          parseJson(req, res, (err?: unknown) => (err ? reject(err) : resolve())),
        );
        bodyObject(req);
        if (!req.pageCsrf?.validateRequest(req)) throw new SigilError(403, "access_denied", "err.csrf", {});
        const r = await fn(req, res);
        res.set("Cache-Control", "no-store");
        sendJson(res, r.status, r.body);
      } catch (err) {
        // express.json's own errors (bad JSON, too large) carry a status; map them like the API does.
        const e = err as { type?: string; status?: number };
        if (e.type === "entity.parse.failed") return sendError(req, res, invalidRequest("err.badJson"));
        if (e.type === "entity.too.large")
          return sendError(req, res, new SigilError(413, "request_too_large", "err.bodyOver64k", {}));
        sendError(req, res, err);
      }
    })();
  };
}

const signedOut = () => new SigilError(403, "access_denied", "err.signInToAddPasskey", {});

/** The `response` field: a WebAuthn credential as @simplewebauthn/browser sends it (checked by the library). */
function credentialOf(
  req: Request,
): { id: string; rawId: string; type: "public-key"; response: Record<string, unknown> } & Record<string, unknown> {
  const r = bodyObject(req).response;
  if (!r || typeof r !== "object" || Array.isArray(r)) throw invalidRequest("err.passkeyResponse");
  const c = r as Record<string, unknown>;
  if (
    typeof c.id !== "string" ||
    c.id.length === 0 ||
    c.id.length > 1400 ||
    typeof c.response !== "object" ||
    !c.response
  )
    throw invalidRequest("err.passkeyResponse");
  return c as never;
}

export function registrationOptions(deps: PagesDeps & { passkeys: Passkeys }) {
  return jsonEndpoint(async (req) => {
    const user = await currentUser(req, deps);
    if (!user) throw signedOut();
    // Where passkeys are not offered, the domain's 404 says so first.
    if (deps.passkeys.enabled) requireProof(req, deps, user);
    return { status: 200, body: await deps.passkeys.registrationOptions(user) };
  });
}

export function addPasskey(deps: PagesDeps & { passkeys: Passkeys }) {
  return jsonEndpoint(async (req) => {
    const user = await currentUser(req, deps);
    if (!user) throw signedOut();
    if (deps.passkeys.enabled) requireProof(req, deps, user);
    const name = bodyObject(req).name;
    if (typeof name !== "string") throw invalidRequest("err.passkeyNameType");
    const passkey = await deps.passkeys.register(user, credentialOf(req) as never, name, changeOrigin(req));
    return { status: 201, body: { passkey } };
  });
}

export function signInOptions(deps: PagesDeps & { passkeys: Passkeys }) {
  return jsonEndpoint(async (req, res) => {
    const browser = bindPasskeyBrowser(req, res, deps.config);
    return { status: 200, body: await deps.passkeys.authenticationOptions(req.ip ?? "", browser) };
  });
}

export function signInWithPasskey(deps: PagesDeps & { passkeys: Passkeys }) {
  return jsonEndpoint(async (req, res) => {
    const raw = bodyObject(req).return_to;
    const returnTo = safeReturnTo(typeof raw === "string" ? raw : undefined, deps.config.authUrl);
    const browser = passkeyBrowser(req, deps.config);
    let signedIn;
    try {
      signedIn = await deps.passkeys.authenticate(credentialOf(req) as never, req.ip ?? "", browser);
    } catch (err) {
      // Refusals by the attempt limit (429) are not recorded: a flood must not fill the log.
      if (!(err instanceof SigilError && err.status === 429))
        deps.audit.record({
          type: "signin.failed",
          method: "passkey",
          reason: err instanceof SigilError && err.status === 403 ? "disabled" : "passkey_refused",
          origin: changeOrigin(req),
        });
      throw err;
    }
    const { user, amr } = signedIn;
    // No second step: a passkey with user verification is two factors already (CONTRACT §10).
    await signInSession(req, deps.audit, user.id, amr);
    clearPasskeyBrowser(res, deps.config);
    return { status: 200, body: { redirect: returnTo } };
  });
}

const signedOutConfirm = () => new SigilError(403, "access_denied", "err.signInToConfirm", {});

/** POST /confirm/passkey/options: begins "Confirm it's you" with one of the signed-in user's passkeys. */
export function confirmOptions(deps: PagesDeps & { passkeys: Passkeys }) {
  return jsonEndpoint(async (req) => {
    const user = await currentUser(req, deps);
    if (!user) throw signedOutConfirm();
    return { status: 200, body: await deps.stepUp.passkeyOptions(user) };
  });
}

/**
 * POST /confirm/passkey: the passkey's answer to that challenge; a right one is noted on the
 * session (pages/step-up.ts) and the page goes back to return_to. Limited as a passkey sign-in.
 */
export function confirmWithPasskey(deps: PagesDeps & { passkeys: Passkeys }) {
  return jsonEndpoint(async (req) => {
    const user = await currentUser(req, deps);
    if (!user) throw signedOutConfirm();
    const raw = bodyObject(req).return_to;
    const returnTo = safeReturnTo(typeof raw === "string" ? raw : undefined, deps.config.authUrl);
    keepProof(req, await deps.stepUp.withPasskey(user, credentialOf(req) as never, req.ip ?? "unknown"));
    return { status: 200, body: { redirect: returnTo } };
  });
}

const signedOutDelete = () => new SigilError(403, "access_denied", "err.signInToDelete", {});

/** POST /account/delete/passkey/options: begins confirming the deletion with one of the user's passkeys. */
export function deletionOptions(deps: PagesDeps & { passkeys: Passkeys }) {
  return jsonEndpoint(async (req) => {
    const user = await currentUser(req, deps);
    if (!user) throw signedOutDelete();
    return { status: 200, body: await deps.passkeys.deletionOptions(user) };
  });
}

/**
 * POST /account/delete/passkey: the passkey's answer to a deletion challenge of this user; then the
 * same deletion as the password way (AccountLife.deleteAccount), this session ends, and the page
 * goes where the password way goes (/signin). A refused answer deletes nothing.
 */
export function deleteWithPasskey(deps: PagesDeps & { passkeys: Passkeys }) {
  return jsonEndpoint(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) throw signedOutDelete();
    await deps.passkeys.confirmDeletion(user, credentialOf(req) as never);
    await deps.accountLife.deleteAccount(user, changeOrigin(req));
    await endSession(req, null); // the account is gone: its deletion is the record
    res.clearCookie("sigil.sid", { path: "/" });
    return { status: 200, body: { redirect: "/signin" } };
  });
}

// ---- OpenAPI ------------------------------------------------------------------------------------

const csrfHeader = z.object({
  "x-csrf-token": z.string().meta({ description: "the CSRF token of the page (its data-csrf attribute)" }),
});
const Options = z
  .record(z.string(), z.unknown())
  .meta({ description: "WebAuthn options (JSON), for @simplewebauthn/browser" });
const Credential = z
  .record(z.string(), z.unknown())
  .meta({ description: "the authenticator's answer, as @simplewebauthn/browser returns it" });
const common = {
  400: errorResponse("invalid_request: bad body, unknown or used challenge, a passkey that does not verify"),
  403: errorResponse("access_denied: the CSRF token is missing or wrong (or, on /account, not signed in)"),
  404: errorResponse("not_found: passkeys are not offered on this server (AUTH_URL's host is an IP address)"),
  503: errorResponse("the store cannot be reached"),
};
const reauth = {
  401: errorResponse(
    "reauth_required: the session holds no proof (password, passkey or two-factor code) from the last REAUTH_MAX_AGE seconds; confirm on /confirm first",
  ),
};
type PasskeyDeps = PagesDeps & { passkeys: Passkeys };

/** Each endpoint: its OpenAPI operation and its handler. */
const endpoints: Array<{ spec: ApiOperation; serve: (deps: PasskeyDeps) => RequestHandler }> = [
  {
    spec: {
      method: "post",
      path: "/account/passkeys/options",
      summary:
        "Begin adding a passkey (signed-in session): WebAuthn creation options; the challenge is good for 5 minutes, once.",
      tags: ["passkeys"],
      headers: csrfHeader,
      responses: { 200: { description: "creation options", schema: Options }, ...common, ...reauth },
    },
    serve: registrationOptions,
  },
  {
    spec: {
      method: "post",
      path: "/account/passkeys",
      summary: "Finish adding a passkey: verifies the authenticator's answer and saves the passkey under its name.",
      tags: ["passkeys"],
      headers: csrfHeader,
      body: {
        schema: z.object({ name: z.string().min(1).max(64), response: Credential }),
        contentTypes: ["application/json"],
        required: true,
      },
      responses: {
        201: {
          description: "the passkey",
          schema: z.object({
            passkey: z.object({
              id: z.string(),
              name: z.string(),
              createdAt: z.number(),
              lastUsedAt: z.number().optional(),
              synced: z.boolean(),
            }),
          }),
        },
        ...common,
        ...reauth,
      },
    },
    serve: addPasskey,
  },
  {
    spec: {
      method: "post",
      path: "/confirm/passkey/options",
      summary:
        "Begin \"Confirm it's you\" with a passkey (signed-in session): WebAuthn request options naming that user's passkeys; the challenge is bound to the user, good for 5 minutes, once.",
      tags: ["passkeys"],
      headers: csrfHeader,
      responses: {
        200: { description: "request options", schema: Options },
        ...common,
        429: errorResponse("too many confirmations begun for this account"),
      },
    },
    serve: confirmOptions,
  },
  {
    spec: {
      method: "post",
      path: "/confirm/passkey",
      summary:
        "Finish \"Confirm it's you\": verifies the passkey's answer (this user's passkey, a confirmation challenge of this user), notes the proof on the session (good for REAUTH_MAX_AGE seconds) and says where to go next (return_to).",
      tags: ["passkeys"],
      headers: csrfHeader,
      body: {
        schema: z.object({ response: Credential, return_to: z.string().optional() }),
        contentTypes: ["application/json"],
        required: true,
      },
      responses: {
        200: { description: "confirmed", schema: z.object({ redirect: z.string() }) },
        ...common,
        429: errorResponse(
          "the failed sign-in limits (shared with passwords) are used up for this user from this address",
        ),
      },
    },
    serve: confirmWithPasskey,
  },
  {
    spec: {
      method: "post",
      path: "/signin/passkey/options",
      summary:
        "Begin a passkey sign-in: WebAuthn request options (discoverable credentials); the challenge is good for 5 minutes, once, and only in this browser (bound to the sigil.passkey cookie this answer sets).",
      tags: ["passkeys"],
      headers: csrfHeader,
      responses: {
        200: { description: "request options", schema: Options },
        ...common,
        429: errorResponse("too many ceremonies from this address"),
      },
    },
    serve: signInOptions,
  },
  {
    spec: {
      method: "post",
      path: "/signin/passkey",
      summary:
        "Finish a passkey sign-in: starts the session (amr hwk/swk + user) and says where to go next (return_to).",
      tags: ["passkeys"],
      headers: csrfHeader,
      body: {
        schema: z.object({ response: Credential, return_to: z.string().optional() }),
        contentTypes: ["application/json"],
        required: true,
      },
      responses: {
        200: { description: "signed in", schema: z.object({ redirect: z.string() }) },
        ...common,
        429: errorResponse(
          "the failed sign-in limits (shared with passwords) are used up for this address, or for the passkey's user from it",
        ),
      },
    },
    serve: signInWithPasskey,
  },
  {
    spec: {
      method: "post",
      path: "/account/delete/passkey/options",
      summary:
        "Begin confirming the deletion of the signed-in account with one of its passkeys: WebAuthn request options (that user's passkeys only); the challenge is bound to the user and to deletion, good for 5 minutes, once.",
      tags: ["passkeys"],
      headers: csrfHeader,
      responses: {
        200: { description: "request options", schema: Options },
        ...common,
        429: errorResponse("too many confirmations begun for this account"),
      },
    },
    serve: deletionOptions,
  },
  {
    spec: {
      method: "post",
      path: "/account/delete/passkey",
      summary:
        "Finish: verifies the passkey's answer (this user's passkey, a deletion challenge of this user), deletes the account and everything it owns, ends the session.",
      tags: ["passkeys"],
      headers: csrfHeader,
      body: { schema: z.object({ response: Credential }), contentTypes: ["application/json"], required: true },
      responses: {
        200: { description: "deleted and signed out; where to go", schema: z.object({ redirect: z.string() }) },
        ...common,
      },
    },
    serve: deleteWithPasskey,
  },
];

/**
 * The eight endpoints as rows of the route table (http/routes.ts): after the pages' own steps
 * (`before`: page headers, session and CSRF helpers; pages/index.ts pageStack), since they work on
 * the page's session; no CORS (the pages' own origin calls them).
 */
export function passkeyRoutes(deps: PasskeyDeps, before: readonly RequestHandler[]): JsonRoute[] {
  return endpoints.map((e) => ({ spec: e.spec, before, express: [e.serve(deps)] }));
}
