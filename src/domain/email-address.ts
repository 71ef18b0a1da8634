// Email addresses as Sigil accepts them: the check of an address, SIGNUP_EMAIL_DOMAINS, and
// whether an account must confirm its address before it works with apps.
import { FormError } from "./accounts.js";
import { message } from "../errors.js";
import type { UserRecord } from "../store/port.js";

export const EMAIL_MAX = 254;

/**
 * A sensible check of an address, not RFC 5322 in full: one "@", a local part of 1 to 64
 * printable characters without spaces, and a domain that is a host name with a dot (IDN domains are
 * kept as punycode). The domain is lower-cased (domains are case-insensitive); the local part is
 * kept as typed (RFC 5321 leaves its case to the receiving server).
 */
export function normalizeEmail(raw: string): string {
  const s = raw.trim();
  const bad = () => new FormError("err.emailInvalid");
  if (s.length > EMAIL_MAX || /[\s\x00-\x1f\x7f<>(),;:"\\[\]]/.test(s)) throw bad();
  const at = s.lastIndexOf("@");
  if (at < 1 || s.indexOf("@") !== at) throw bad();
  const local = s.slice(0, at);
  const rawDomain = s.slice(at + 1);
  // Only a host name: nothing the URL parser would drop or decode (a port, a path, %-escapes).
  if (!/^[^/?#%:@\\]+$/.test(rawDomain)) throw bad();
  if (local.length > 64 || local.startsWith(".") || local.endsWith(".") || local.includes("..")) throw bad();
  let domain: string;
  try {
    domain = new URL(`http://${rawDomain}/`).hostname;
  } catch {
    throw bad();
  }
  if (
    !domain ||
    !domain.includes(".") ||
    domain.endsWith(".") ||
    /^[\d.]+$/.test(domain) ||
    domain.startsWith("[") ||
    !/^[a-z0-9.-]+$/.test(domain) ||
    domain.split(".").some((l) => l === "" || l.length > 63 || l.startsWith("-") || l.endsWith("-"))
  )
    throw bad();
  const out = `${local}@${domain}`;
  if (out.length > EMAIL_MAX) throw bad();
  return out;
}

/**
 * SIGNUP_EMAIL_DOMAINS: a FormError (400, naming the domains) unless the normalized address's
 * domain is exactly one of them (a subdomain only when listed). No domains: every address.
 */
export function checkEmailDomain(email: string, domains: readonly string[]): void {
  if (domains.length === 0) return;
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  if (!domains.includes(domain)) throw new FormError(message("err.emailDomain", { domains: domains.join(", ") }));
}

/**
 * Whether the account must confirm its address before it signs in to apps or registers apps: made
 * on /signup under SIGNUP_EMAIL_DOMAINS (UserRecord.confirmEmailFirst), and its address (the one it
 * has now) not confirmed.
 */
export const mustConfirmEmailFirst = (user: UserRecord): boolean =>
  user.confirmEmailFirst === true && !(user.email && user.emailVerified === true);
