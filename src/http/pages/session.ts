// Sessions for the pages: express-session over the store port (any node serves any user), saved
// only once someone signs in; and CSRF tokens from csrf-csrf, a signed double-submit cookie: the
// token is an HMAC (keyed by SECRET) of a random value held in an HttpOnly cookie and, once signed
// in, of the session id. An anonymous form therefore needs nothing in the store (docs/http-api.md#pages:
// anonymous traffic cannot grow it), and any node checks any token.
import cookieParser from "cookie-parser";
import { doubleCsrf, type DoubleCsrfUtilities } from "csrf-csrf";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import session from "express-session";
import type { Config } from "../../config.js";
import { keyedHash } from "../../domain/secrets.js";
import type { PageSessions, SessionOwner } from "../../domain/page-sessions.js";
import type { AuditLog } from "../../domain/audit.js";
import { changeOrigin } from "./user-agent.js";

declare module "express-session" {
  interface SessionData {
    userId?: string;
    /** When the user signed in (seconds since the epoch): OpenID Connect auth_time and max_age. */
    authTime?: number;
    /** How (RFC 8176 values): ["pwd"] for a password. */
    amr?: string[];
    /** Half signed in: the password was right, the two-factor code is still due (pages/two-factor.ts). */
    /** A right password awaiting its second step: the user's id sealed (two-factor.ts), and until when. */
    pendingTwoFactor?: { user: string; until: number };
    /** When the session was last used (ms), its browser and address: written at most once a minute. */
    seenAt?: number;
    userAgent?: string;
    address?: string;
    /** Set by signInSession for the first save only (never stored): the session is new. */
    fresh?: boolean;
  }
}

declare module "express-serve-static-core" {
  interface Request {
    /** This node's CSRF helpers (set by sessions()). */
    pageCsrf?: DoubleCsrfUtilities;
  }
}

/** A session exists only once signed in, and lasts a week. */
const DEFAULT_TTL = 7 * 24 * 3600;

/** express-session's Store contract, on the domain's page sessions. */
class PortSessionStore extends session.Store {
  constructor(private readonly sessions: PageSessions) {
    super();
  }
  private static ttl(sess: session.SessionData): number {
    const exp = sess.cookie?.expires ? new Date(sess.cookie.expires).getTime() : 0;
    return exp ? Math.max(1, Math.ceil((exp - Date.now()) / 1000)) : DEFAULT_TTL;
  }
  // Callbacks run outside the promise chain (nextTick), so nothing they do becomes an unhandled
  // rejection; a session that cannot be parsed counts as no session.
  override get(sid: string, cb: (err: unknown, s?: session.SessionData | null) => void): void {
    this.sessions.read(sid).then(
      (raw) => {
        let s: session.SessionData | null;
        try {
          s = raw ? (JSON.parse(raw) as session.SessionData) : null;
        } catch {
          s = null;
        }
        process.nextTick(cb, null, s);
      },
      (e: unknown) => process.nextTick(cb, e),
    );
  }
  override set(sid: string, s: session.SessionData, cb?: (err?: unknown) => void): void {
    const { fresh, ...data } = s;
    // A signed-in session is indexed under its user (the sessions list on /account).
    const owner: SessionOwner | undefined = data.userId
      ? {
          userId: data.userId,
          createdAt: (data.authTime ?? 0) * 1000,
          lastSeenAt: data.seenAt ?? (data.authTime ?? 0) * 1000,
          ...(data.userAgent !== undefined ? { userAgent: data.userAgent } : {}),
          ...(data.address !== undefined ? { address: data.address } : {}),
          create: fresh === true,
        }
      : undefined;
    this.sessions.save(sid, JSON.stringify(data), PortSessionStore.ttl(s), owner).then(
      () => process.nextTick(() => cb?.()),
      (e: unknown) => process.nextTick(() => cb?.(e)),
    );
  }
  override destroy(sid: string, cb?: (err?: unknown) => void): void {
    this.sessions.end(sid).then(
      () => process.nextTick(() => cb?.()),
      (e: unknown) => process.nextTick(() => cb?.(e)),
    );
  }
  /** Ends a session and drops it from its user's index at once. */
  destroyOwned(sid: string, userId: string): Promise<void> {
    return this.sessions.end(sid, userId);
  }
  // The cookie's expiry is fixed at sign-in (rolling: false), so a touch has nothing to change:
  // an unmodified session is not rewritten on every request (last seen is written by seen()).
  override touch(_sid: string, _s: session.SessionData, cb?: () => void): void {
    process.nextTick(() => cb?.());
  }
}

/** How often a session's "last seen" (time, browser, address) is written: at most once a minute. */
export const SEEN_EVERY_MS = 60_000;

/**
 * What every page needs before its handler: cookies, the session (read when the browser has one;
 * written only by signInSession) and the CSRF helpers.
 */
export function sessions(config: Config, saved: PageSessions): RequestHandler[] {
  const secure = config.authUrl.startsWith("https:");
  const csrf = doubleCsrf({
    getSecret: () => keyedHash(config.secret, "sigil page csrf"),
    // Signed in: the token also names the session, so it serves only that session. Anonymous:
    // the random value in the browser's cookie is all there is to bind to.
    getSessionIdentifier: (req) => (req.session?.userId ? req.sessionID : ""),
    // "__Host-" (https only) keeps a sibling subdomain from planting a cookie of its own.
    cookieName: secure ? "__Host-sigil.csrf" : "sigil.csrf",
    cookieOptions: { httpOnly: true, sameSite: "lax", secure, path: "/" },
    // A form's _csrf field, or the X-CSRF-Token header of the passkey pages' fetches.
    getCsrfTokenFromRequest: (req) => {
      const v = (req.body as Record<string, unknown> | undefined)?._csrf;
      if (typeof v === "string") return v;
      const h = req.headers["x-csrf-token"];
      return typeof h === "string" ? h : undefined;
    },
  });
  const attach: RequestHandler = (req, _res, next) => {
    req.pageCsrf = csrf;
    next();
  };
  // Last seen: a signed-in request notes its time, browser and address when the last note is a
  // minute old or more; express-session then saves the session (only if it still exists).
  const seen: RequestHandler = (req, _res, next) => {
    const s = req.session;
    const now = Date.now();
    if (s?.userId && (s.seenAt === undefined || now - s.seenAt >= SEEN_EVERY_MS)) {
      s.seenAt = now;
      s.userAgent = (req.get("user-agent") ?? "").slice(0, 512);
      s.address = addressOfRequest(req);
    }
    next();
  };
  return [
    cookieParser(),
    session({
      name: "sigil.sid",
      secret: config.secret,
      store: new PortSessionStore(saved),
      resave: false,
      saveUninitialized: false,
      rolling: false,
      cookie: { httpOnly: true, sameSite: "lax", secure, maxAge: DEFAULT_TTL * 1000, path: "/" },
    }),
    attach,
    seen,
  ];
}

function pageCsrf(req: Request): DoubleCsrfUtilities {
  if (!req.pageCsrf) throw new Error("the page sessions middleware did not run");
  return req.pageCsrf;
}

/**
 * The CSRF token for a form on this page (it sets the browser's CSRF cookie when it has none, and
 * reuses it when it has one, so several tabs keep working). Nothing is stored.
 */
export async function csrfToken(req: Request): Promise<string> {
  return pageCsrf(req).generateCsrfToken(req, req.res!); // express sets req.res on every request
}

/** Refuses a form whose `_csrf` is missing or was not made for this browser (and session). */
export const csrfCheck: RequestHandler = (req, _res, next) => {
  const csrf = pageCsrf(req);
  next(csrf.validateRequest(req) ? undefined : csrf.invalidCsrfTokenError);
};

/**
 * The pages' Content-Security-Policy: nothing but this service's stylesheet and images (its own,
 * the profile pictures served from BASE_URL, and SERVICE_LOGO_URL's origin). No script, no inline
 * style, no plugin, no framing, no <base>. Forms are not limited: the consent form's answer is a
 * redirect to the app, which form-action would block.
 */
export function pagesCsp(config: Config): string {
  const origins = new Set(["'self'"]);
  for (const u of [config.baseUrl, config.serviceLogoUrl]) if (u) origins.add(new URL(u).origin);
  return [
    "default-src 'none'",
    "style-src 'self'",
    `img-src ${[...origins].join(" ")}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Headers every page sends (docs/http-api.md#sign-in-with-sigil): no framing, no referrer (codes ride in URLs). */
export function pageHeaders(config: Config): RequestHandler {
  const csp = pagesCsp(config);
  return (_req: Request, res: Response, next: NextFunction) => {
    res.set({
      "Content-Security-Policy": csp,
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
    });
    next();
  };
}

/** The audit log's name for how a sign-in was proved (RFC 8176 amr values). */
function signInMethod(amr: string[]): string {
  if (amr.includes("otp")) return "two_factor";
  if (amr.includes("hwk") || amr.includes("swk")) return "passkey";
  if (amr.includes("fed")) return "upstream";
  return "password";
}

/**
 * Starts a fresh session for a signed-in user (no session fixation), noting when and how, and
 * records the sign-in in the audit log.
 */
export async function signInSession(
  req: Request,
  audit: AuditLog,
  userId: string,
  amr: string[] = ["pwd"],
  /** The audit log's method, when amr does not say it all ("upstream:<id>"). */
  method = signInMethod(amr),
): Promise<void> {
  await newSession(req, userId, amr);
  audit.record({
    type: "signin.succeeded",
    userId,
    actor: { kind: "user", id: userId },
    method,
    origin: changeOrigin(req),
  });
}

function newSession(req: Request, userId: string, amr: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    req.session.regenerate((err) => {
      if (err) return reject(err);
      req.session.userId = userId;
      req.session.authTime = Math.floor(Date.now() / 1000);
      req.session.amr = amr;
      req.session.seenAt = Date.now();
      req.session.userAgent = (req.get("user-agent") ?? "").slice(0, 512);
      req.session.address = addressOfRequest(req);
      req.session.fresh = true;
      req.session.cookie.maxAge = DEFAULT_TTL * 1000;
      req.session.save((e) => (e ? reject(e) : resolve()));
    });
  });
}

/** Ends this browser's session (and drops it from its user's sessions list); a sign-out in the audit log. */
export async function endSession(req: Request, audit: AuditLog | null): Promise<void> {
  const userId = req.session.userId;
  const store = req.sessionStore;
  if (userId && store instanceof PortSessionStore) await store.destroyOwned(req.sessionID, userId);
  await new Promise<void>((resolve, reject) => req.session.destroy((e) => (e ? reject(e) : resolve())));
  if (userId && audit)
    audit.record({ type: "signout", userId, actor: { kind: "user", id: userId }, origin: changeOrigin(req) });
}

/** The client address of a page request (express's req.ip, under TRUST_PROXY). */
function addressOfRequest(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? "unknown";
}
