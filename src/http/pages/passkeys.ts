// Passkeys on the pages (docs/http-api.md#passkeys): the rename and remove forms of /account, and
// the pages' script, /assets/passkeys.<hash>.js, with the CSP of the pages that load it. The JSON
// endpoints of the ceremonies are in ../passkeys-api.ts.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Request, Response } from "express";
import type { Passkeys } from "../../domain/passkeys.js";
import { FormError } from "../../domain/accounts.js";
import type { UserRecord } from "../../store/port.js";
import { SigilError, invalidRequest, type MessageRef } from "../../errors.js";
import { currentUser, field, page, type PagesDeps } from "./context.js";
import { changeOrigin } from "./user-agent.js";

// ---- the script ---------------------------------------------------------------------------------

/** dist/browser/passkeys.js (scripts/build-pages-js.mjs), from src/http/pages or dist/http/pages. */
const SCRIPT_FILE = new URL("../../../dist/browser/passkeys.js", import.meta.url);
let script: { path: string; body: Buffer; etag: string } | null | undefined;

/** The built script and its content-hashed address; null when it was not built (then no passkeys UI). */
export function passkeyScript(): { path: string; body: Buffer; etag: string } | null {
  if (script === undefined) {
    try {
      const body = readFileSync(SCRIPT_FILE);
      const hash = createHash("sha256").update(body).digest("base64url").slice(0, 16);
      script = { path: `/assets/passkeys.${hash}.js`, body, etag: `"${hash}"` };
    } catch {
      script = null;
    }
  }
  return script;
}

/** The script's address for a page, when passkeys are offered here and the script was built. */
export function passkeyScriptFor(passkeys: Passkeys): string | undefined {
  return passkeys.enabled ? passkeyScript()?.path : undefined;
}

/**
 * The CSP of a page that loads the passkeys script: the pages' own, plus exactly that script (by
 * its full address) and fetches to this origin (the ceremony's JSON endpoints).
 */
export function withPasskeyCsp(res: Response, passkeys: Passkeys): void {
  const path = passkeyScriptFor(passkeys);
  if (!path || !passkeys.rp) return;
  const csp = res.get("Content-Security-Policy");
  if (!csp) return;
  res.set("Content-Security-Policy", `${csp}; script-src ${passkeys.rp.origin}${path}; connect-src 'self'`);
}

/** GET /assets/passkeys.<hash>.js: served like the stylesheet (immutable, ETag). */
export function servePasskeyScript(req: Request, res: Response): boolean {
  const s = passkeyScript();
  if (!s || req.path !== s.path) return false;
  res.set({
    "Content-Type": "application/javascript; charset=utf-8",
    "Cache-Control": "public, max-age=31536000, immutable",
    ETag: s.etag,
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": "same-origin",
  });
  const match = req.headers["if-none-match"];
  if (match && match.split(",").some((m) => m.trim().replace(/^W\//, "") === s.etag)) res.status(304).end();
  else res.status(200).send(s.body);
  return true;
}

// ---- /account forms -----------------------------------------------------------------------------

function credentialParam(req: Request): string {
  const id = req.params.id;
  if (typeof id !== "string" || !/^[A-Za-z0-9_-]{1,1400}$/.test(id)) throw invalidRequest("err.passkeyId");
  return id;
}

export function renamePasskey(
  deps: PagesDeps & { passkeys: Passkeys },
  onError: (req: Request, res: Response, message: MessageRef) => Promise<void>,
) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    try {
      await deps.passkeys.rename(user.id, credentialParam(req), field(req, "name"));
    } catch (err) {
      if (!(err instanceof SigilError) || err.status !== 400) throw err;
      return onError(req, res, err);
    }
    res.redirect(303, "/account#passkeys");
  });
}

/** POST /account/passkeys/:id/remove: refused (409, the account page says why) when it is the last way in. */
export function removePasskey(
  deps: PagesDeps & { passkeys: Passkeys },
  onError: (req: Request, res: Response, user: UserRecord, status: number, message: MessageRef) => Promise<void>,
) {
  return page(async (req, res) => {
    const user = await currentUser(req, deps);
    if (!user) return res.redirect(303, "/signin");
    try {
      await deps.passkeys.remove(user.id, credentialParam(req), changeOrigin(req));
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      return onError(req, res, user, err.status, err);
    }
    res.redirect(303, "/account#passkeys");
  });
}
