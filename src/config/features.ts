// The settings of what Sigil does: lifetimes and keys, challenge solve limits, the realtime
// channel, the pages, email. Each is written once here; docs/settings.md's tables are generated
// from these (`npm run docs:settings`), config.ts reads them.
import { z } from "zod";
import { area, oneOf, setting, wholeNumber } from "./setting.js";

export const lifetimes = area("lifetimes", "range (seconds)", {
  CODE_TTL: wholeNumber("codeTtl", 1, 600, 60, { meaning: "authorization code lifetime" }),
  DEVICE_CODE_TTL: wholeNumber("deviceCodeTtl", 1, 1800, 600, {
    meaning:
      "device authorization lifetime: how long the user and device codes work (the `expires_in` of `/device_authorization`)",
  }),
  ACCESS_TOKEN_TTL: wholeNumber("accessTokenTtl", 60, 86400, 3600, {
    meaning: "access token lifetime (the `expires_in` of `/token`)",
  }),
  PASSWORD_HASH_COST: wholeNumber("passwordHashCost", 10, 20, 14, {
    meaning:
      "log2 of scrypt's N for new password hashes (r = 8, p = 1); each hash keeps its own parameters, so changing it never breaks a sign-in — raise it as hardware allows",
    defaultNote: "(16 MiB, ~50 ms)",
  }),
  REFRESH_TOKEN_TTL: wholeNumber("refreshTokenTtl", 1, 31536000, 2592000, {
    meaning:
      "how long a grant's refresh tokens work, counted from the sign-in; rotation does not extend it ([refresh tokens](http-api.md#refresh-tokens))",
    defaultNote: "(30 days)",
  }),
  AUDIT_RETENTION: wholeNumber("auditRetention", 1, 315360000, 7776000, {
    meaning:
      "how long audit records are kept ([audit log](operations.md#audit-log)); read by the nodes, which trim as they write, and by `sigil audit`",
    defaultNote: "(90 days)",
  }),
  SECRET_GRACE_PERIOD: wholeNumber("secretGracePeriod", 0, 2592000, 86400, {
    meaning: "how long an app's old client secret keeps working after a rotation",
    valuesNote: "(`0`: the old secret stops at once)",
  }),
  KEY_ACTIVATION_DELAY: wholeNumber("keyActivationDelay", 0, 604800, 3600, {
    meaning:
      "after `sigil keys rotate`, how long the new ID token signing key is only published (in `/jwks`) before nodes sign with it; read by the command that rotates",
  }),
  KEY_CACHE_TTL: wholeNumber("keyCacheTtl", 0, 300, 30, {
    meaning:
      "how long a node signs from the keys it read before reading them from the store again (the JWKS itself is always read fresh)",
    valuesNote: "(`0`: read on every ID token)",
  }),
  ID_TOKEN_SIGNING_ALG: oneOf("idTokenSigningAlg", ["RS256", "ES256", "EdDSA"], "RS256", {
    meaning:
      "the algorithm of the signing keys Sigil makes: the first key, and each `sigil keys rotate` (read by the command that rotates)",
    labels: { RS256: "RSA 2048", ES256: "P-256", EdDSA: "Ed25519" },
    message: "must be RS256, ES256 or EdDSA",
  }),
});

export const solveLimits = area("solve-limits", "range", {
  SOLVE_LIMIT_PER_ADDRESS: wholeNumber("solveLimits.perAddress", 1, 1000000, 10, {
    meaning: "wrong answers allowed per challenge per client address in one window",
  }),
  SOLVE_LIMIT_PER_ADDRESS_WINDOW: wholeNumber("solveLimits.perAddressWindow", 1, 86400, 600, {
    meaning: "that window, seconds",
  }),
  SOLVE_LIMIT_PER_KEY: wholeNumber("solveLimits.perKey", 1, 1000000, 100, {
    meaning: "wrong answers allowed per challenge (all addresses) in one window",
  }),
  SOLVE_LIMIT_PER_KEY_WINDOW: wholeNumber("solveLimits.perKeyWindow", 1, 86400, 3600, {
    meaning: "that window, seconds",
  }),
});

export const realtime = area("realtime", "range", {
  HISTORY_MAX_EVENTS: wholeNumber("historyMaxEvents", 1000, 1000000, 1000, {
    meaning: "events kept per app for replay (at least this many; Redis trims in batches of 100)",
  }),
  HISTORY_TTL: wholeNumber("historyTtl", 86400, 2592000, 86400, { meaning: "seconds an event is kept at most" }),
  CHANNEL_MAX_QUEUE: wholeNumber("channelMaxQueue", 10, 100000, 1000, {
    meaning: "packets that may wait for one socket before it counts as a slow reader and is dropped",
  }),
  CHANNEL_RATE_LIMIT: wholeNumber("channelRateLimit", 1, 10000, 20, {
    meaning: "client → server events per second per socket (token bucket, burst of the same size)",
  }),
  PRESENCE_HEARTBEAT: wholeNumber("presenceHeartbeat", 100, 60000, 5000, {
    meaning:
      "milliseconds between two renewals of a node's presence leases (each lasts twice that): the members of a node that died leave within three times this ([presence](realtime.md#presence))",
  }),
  PUBLISH_RATE_LIMIT: wholeNumber("publishRateLimit", 1, 1000000, 200, {
    meaning: "POST /realtime/publish requests (a batch is one) per app per PUBLISH_RATE_WINDOW, every node together",
  }),
  PUBLISH_RATE_WINDOW: wholeNumber("publishRateWindow", 1, 3600, 1, {
    meaning: "seconds of the window PUBLISH_RATE_LIMIT counts in",
  }),
});

/** An absolute http(s) URL of at most 2,000 characters, without user name or password. */
const logoUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password && s.length <= 2000;
  } catch {
    return false;
  }
}, "must be an absolute http(s) URL");

/**
 * A domain name as an email address's domain is kept (domain/email.ts normalizeEmail): lower-cased,
 * IDN as punycode, with a dot, labels of letters, digits and hyphens. undefined: not one.
 */
function domainName(raw: string): string | undefined {
  const d = raw.trim().toLowerCase();
  if (!d || d.length > 253 || !/^[^/?#%:@\\\s[\]]+$/.test(d)) return undefined;
  let host: string;
  try {
    host = new URL(`http://${d}/`).hostname;
  } catch {
    return undefined;
  }
  const ok =
    host.includes(".") &&
    !/^[\d.]+$/.test(host) &&
    /^[a-z0-9.-]+$/.test(host) &&
    host.split(".").every((l) => l !== "" && l.length <= 63 && !l.startsWith("-") && !l.endsWith("-"));
  return ok ? host : undefined;
}

/** SIGNUP_EMAIL_DOMAINS: the listed domains (unset or empty: none, no limit); a bad one is named. */
const emailDomains = z
  .string()
  .optional()
  .transform((s, ctx) => {
    const out: string[] = [];
    for (const part of (s ?? "").split(",")) {
      if (part.trim() === "") continue;
      const d = domainName(part);
      if (d === undefined) {
        ctx.addIssue({ code: "custom", message: `"${part.trim().slice(0, 100)}" is not a domain name` });
        return z.NEVER;
      }
      if (!out.includes(d)) out.push(d);
    }
    return out;
  });

export const pages = area("pages", "accepted values", {
  SERVICE_NAME: setting(
    "serviceName",
    z
      .string()
      .transform((s) => s.trim())
      .refine((s) => s.length >= 1 && [...s].length <= 40 && !/[\x00-\x1f\x7f]/.test(s), "must be 1-40 characters")
      .default("Sigil"),
    {
      meaning: `the name in the pages' header, titles and messages ("Use your Acme account.")`,
      values: "1–40 characters, no control character (trimmed)",
    },
  ),
  SERVICE_LOGO_URL: setting("serviceLogoUrl", logoUrl.optional(), {
    meaning:
      "an image shown beside the name in the header (about 2 rem high); its origin is added to the pages' `img-src`",
    default: "none: a square with the name's first letter",
    values: "absolute `http(s)` URL without user name or password, at most 2,000 characters",
  }),
  SIGNUP: oneOf("signup", ["open", "invite", "closed"], "open", {
    meaning:
      "who may make an account on `/signup` ([sign-up policy](operations.md#sign-up-policy)); `invite`: only with a single-use invitation link an admin makes on `/admin/invitations` (or `sigil invitations create`); `closed`: the page says sign-up is closed, its form is refused (403) and the sign-in and landing pages offer no sign-up link; `sigil users create` works either way",
    message: "must be open, invite or closed",
  }),
  SIGNUP_EMAIL_DOMAINS: setting("signupEmailDomains", emailDomains, {
    meaning:
      "sign-up on `/signup` (open or invited) only with an email address at one of these domains (exactly: a subdomain only when listed); such an account signs in to apps and registers apps only once that address is confirmed, and while set no account changes its address to one outside them ([sign-up policy](operations.md#sign-up-policy)); needs `SMTP_URL`; accounts made by `sigil users create`, or before it was set, are not held back",
    default: "none: any address (or none)",
    values: "domain names separated by commas (trimmed, case-insensitive), e.g. `a.example,b.example`",
  }),
  APP_REGISTRATION: oneOf("appRegistration", ["everyone", "admins"], "everyone", {
    meaning:
      "who may register apps on `/developers` ([sign-up policy](operations.md#sign-up-policy)); `admins`: other users are told so and their registration is refused (403), the apps they already own stay theirs to manage",
    message: "must be everyone or admins",
  }),
});

const smtpUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return (u.protocol === "smtp:" || u.protocol === "smtps:") && u.hostname !== "";
  } catch {
    return false;
  }
}, "must be smtp://[user:password@]host[:port] or smtps://…");

const mailFrom = z
  .string()
  .refine(
    (s) => s.length <= 320 && !/[\r\n]/.test(s) && /@[^\s@>]+\.[^\s@>]+>?$/.test(s.trim()),
    "must be an address, or Name <address>",
  )
  .transform((s) => s.trim());

export const email = area("email", "accepted values", {
  SMTP_URL: setting("smtpUrl", smtpUrl.optional(), {
    meaning:
      "where mail goes out ([email and password recovery](http-api.md#email-and-password-recovery)): nodemailer's URL form, with the credentials in it; `smtps://` is TLS from the start (port 465), `smtp://` upgrades with STARTTLS when the server offers it",
    default:
      "none: the email features are off; the pages say so, `/forgot` says to ask the operator (`sigil users reset-password`), and an address can still be saved on `/account` (unconfirmed)",
    values: "`smtp://[user:password@]host[:port]` or `smtps://…` (percent-encode `@ : /` in the password)",
  }),
  MAIL_FROM: setting("mailFrom", mailFrom.optional(), {
    meaning: "the `From` of every mail",
    default: '`"<SERVICE_NAME>" <no-reply@<host of BASE_URL>>`',
    values: "an address, or `Name <address>` (no line break)",
  }),
  EMAIL_CONFIRM_TTL: wholeNumber("emailConfirmTtl", 1, 604800, 86400, {
    meaning: "seconds an email confirmation link works",
    defaultNote: "(24 h)",
  }),
  PASSWORD_RESET_TTL: wholeNumber("passwordResetTtl", 1, 86400, 1800, {
    meaning: "seconds a password reset link works",
    defaultNote: "(30 min)",
  }),
  REAUTH_MAX_AGE: wholeNumber("reauthMaxAge", 1, 86400, 300, {
    meaning:
      "seconds a \"Confirm it's you\" proof (password, passkey, or two-factor code) lasts in the browser that made it, for the changes that need one: email, password, two-factor, recovery codes, passkeys ([confirming it's you](http-api.md#confirming-its-you))",
    defaultNote: "(5 min)",
  }),
  ADMIN_REQUIRE_2FA: setting(
    "adminRequire2fa",
    z
      .enum(["true", "false"], "must be true or false")
      .default("true")
      .transform((v) => v === "true"),
    {
      meaning:
        "an admin without two-factor or a passkey is asked to set one up on `/account` before `{auth_url}/admin` opens for them ([pages](http-api.md#administration))",
      default: "`true`",
      values: "`true`, `false`",
    },
  ),
});
