// The cookie that binds a passkey sign-in's challenge to the browser that asked for it
// (docs/http-api.md#passkeys): a random value, HttpOnly, SameSite=Lax, Secure on https, living as
// long as a challenge. POST /signin/passkey/options sets it (keeping a value the browser already
// has, so that the autofill ceremony and the button's can run side by side); the store keeps only
// a hash of it with the challenge, and POST /signin/passkey takes the challenge only with it.
import type { Request, Response } from "express";
import type { Config } from "../../config.js";
import { CHALLENGE_TTL } from "../../domain/passkeys.js";
import { randomToken } from "../../domain/secrets.js";

/** "__Host-" (https only) keeps a sibling subdomain from planting a cookie of its own. */
const cookieName = (config: Config) => (config.authUrl.startsWith("https:") ? "__Host-sigil.passkey" : "sigil.passkey");

/** What randomToken(32) makes: 43 base64url characters. */
const WELL_FORMED = /^[A-Za-z0-9_-]{43}$/;

/** The browser's binding value, or "" when it sent none (such an answer matches no challenge). */
export function passkeyBrowser(req: Request, config: Config): string {
  const v = (req.cookies as Record<string, unknown> | undefined)?.[cookieName(config)];
  return typeof v === "string" && WELL_FORMED.test(v) ? v : "";
}

/** The browser's binding value, made (and set as the cookie) when it has none; its life renewed. */
export function bindPasskeyBrowser(req: Request, res: Response, config: Config): string {
  const value = passkeyBrowser(req, config) || randomToken(32);
  res.cookie(cookieName(config), value, {
    httpOnly: true,
    sameSite: "lax",
    secure: config.authUrl.startsWith("https:"),
    path: "/",
    maxAge: CHALLENGE_TTL * 1000,
  });
  return value;
}

/** Forgets the binding once the browser has signed in. */
export function clearPasskeyBrowser(res: Response, config: Config): void {
  res.clearCookie(cookieName(config), { path: "/", secure: config.authUrl.startsWith("https:") });
}
