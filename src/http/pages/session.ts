// Sessions for the pages: express-session over the store port (any node serves any user), and
// csrf-sync (synchronizer tokens kept in the session: no extra cookie, and it fits
// server-rendered forms; the double-submit alternatives need a second cookie and a secret).
import { csrfSync } from "csrf-sync";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import session from "express-session";
import type { Config } from "../../config.js";
import type { SessionStore } from "../../store/signin-port.js";

declare module "express-session" {
  interface SessionData {
    userId?: string;
  }
}

/** A signed-in session lasts a week; an anonymous one (a CSRF token for a form) two hours. */
const DEFAULT_TTL = 7 * 24 * 3600;
const ANONYMOUS_TTL = 2 * 3600;

/** express-session's Store contract, on our SessionStore port. */
class PortSessionStore extends session.Store {
  constructor(private readonly sessions: SessionStore) {
    super();
  }
  private static ttl(sess: session.SessionData): number {
    const exp = sess.cookie?.expires ? new Date(sess.cookie.expires).getTime() : 0;
    return exp ? Math.max(1, Math.ceil((exp - Date.now()) / 1000)) : DEFAULT_TTL;
  }
  // Callbacks run outside the promise chain (nextTick), so nothing they do becomes an unhandled
  // rejection; a session that cannot be parsed counts as no session.
  override get(sid: string, cb: (err: unknown, s?: session.SessionData | null) => void): void {
    this.sessions.get(sid).then(
      (raw) => {
        let s: session.SessionData | null = null;
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
    this.sessions.set(sid, JSON.stringify(s), PortSessionStore.ttl(s)).then(
      () => process.nextTick(() => cb?.()),
      (e: unknown) => process.nextTick(() => cb?.(e)),
    );
  }
  override destroy(sid: string, cb?: (err?: unknown) => void): void {
    this.sessions.destroy(sid).then(
      () => process.nextTick(() => cb?.()),
      (e: unknown) => process.nextTick(() => cb?.(e)),
    );
  }
  override touch(sid: string, s: session.SessionData, cb?: () => void): void {
    this.set(sid, s, () => cb?.());
  }
}

export function sessions(config: Config, store: SessionStore): RequestHandler {
  return session({
    name: "sigil.sid",
    secret: config.secret,
    store: new PortSessionStore(store),
    resave: false,
    saveUninitialized: false,
    rolling: false,
    cookie: {
      httpOnly: true,
      sameSite: "lax",
      secure: config.authUrl.startsWith("https:"),
      maxAge: ANONYMOUS_TTL * 1000,
      path: "/",
    },
  });
}

const csrf = csrfSync({
  getTokenFromRequest: (req) => {
    const v = (req.body as Record<string, unknown> | undefined)?._csrf;
    return typeof v === "string" ? v : undefined;
  },
});

/**
 * The CSRF token for a form on this page. The session is saved before the page is sent, so a
 * store that cannot be reached is a 503 now, not a form that can never be submitted.
 */
export async function csrfToken(req: Request): Promise<string> {
  const token = csrf.generateToken(req);
  await new Promise<void>((resolve, reject) => req.session.save((e) => (e ? reject(e) : resolve())));
  return token;
}
export const csrfCheck: RequestHandler = csrf.csrfSynchronisedProtection;

/** Headers every page sends (CONTRACT §3): no framing, no referrer (codes ride in URLs). */
export function pageHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
  });
  next();
}

/** Starts a fresh session for a signed-in user (no session fixation). */
export function signInSession(req: Request, userId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    req.session.regenerate((err) => {
      if (err) return reject(err);
      req.session.userId = userId;
      req.session.cookie.maxAge = DEFAULT_TTL * 1000;
      req.session.save((e) => (e ? reject(e) : resolve()));
    });
  });
}

export function endSession(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.destroy((e) => (e ? reject(e) : resolve())));
}
