// Accounts: sign-up, sign-in (throttled per username and address, and per address), profile edits.
import type { IdentityEvents } from "./identity-events.js";
import { randomUUID } from "node:crypto";
import { SigilError, rateLimited, type MessageRef, type PlainErrorId } from "../errors.js";
import {
  isDisabled,
  normalizeSearch,
  type AttemptLimiter,
  type SessionSummary,
  type Store,
  type UserRecord,
} from "../store/port.js";
import { LIMITS } from "./limits.js";
import { codePointLength } from "./text.js";
import { Passwords } from "./passwords.js";
import { preparePicture } from "./pictures.js";
import { SignInLimits } from "./signin-limits.js";
import type { AuditActor, AuditLog, AuditOrigin } from "./audit.js";

export const USERNAME = /^[a-z0-9_.-]{3,32}$/;

/** A rule a person broke in a form: shown on the page next to the form, status 400. */
export class FormError extends SigilError {
  constructor(message: PlainErrorId | MessageRef, status = 400) {
    const ref = typeof message === "string" ? { id: message, params: {} } : message;
    super(status, "invalid_request", ref.id, ref.params as never);
  }
}

/** A disabled account (UserRecord.disabled) asked to sign in: the page says so (403). */
export const accountDisabled = (): FormError => new FormError("err.accountDisabled", 403);

export function checkUsername(raw: string): string {
  const u = raw.trim().toLowerCase();
  if (!USERNAME.test(u)) throw new FormError("err.username");
  return u;
}

export function checkDisplayName(raw: string): string {
  const d = raw.trim();
  const n = codePointLength(d);
  if (n < 1 || n > 64) throw new FormError("err.displayName");
  if (/[\x00-\x1f\x7f]/.test(d)) throw new FormError("err.displayNameControl");
  return d;
}

export function checkPassword(raw: string): string {
  const n = codePointLength(raw);
  if (n < 8 || n > 128) throw new FormError("err.password");
  return raw;
}

/** The longest search of users (characters, after trimming): longer ones are refused. */
export const USER_QUERY_MAX = 200;

export class Accounts {
  /** The failed sign-in limits, shared with passkey sign-in (services.ts hands them to Passkeys). */
  readonly limits: SignInLimits;
  /** Sign-up posts per address (LIMITS.signUpPerAddress). */
  private readonly signUps: AttemptLimiter;

  constructor(
    private readonly store: Store,
    private readonly passwords = new Passwords(),
    /** Where failed sign-ins are recorded (successes are recorded as their session starts). */
    private readonly audit?: AuditLog,
    /** Tells the user's apps that sessions ended (docs/events.md). */
    private readonly identity?: IdentityEvents,
  ) {
    this.limits = new SignInLimits(store);
    this.signUps = store.limiter(LIMITS.signUpPerAddress);
  }

  /** Counts a sign-up post from the address, before anything is checked; 429 past the limit. */
  async countSignUp(address: string): Promise<void> {
    const limit = await this.signUps.consume(address);
    if (!limit.allowed) throw rateLimited(limit.retryAfterMs / 1000, "err.signupThrottled");
  }

  async create(input: {
    username: string;
    password: string;
    displayName?: string | undefined;
    /** The page's language at sign-up: the language of the user's mails. */
    locale?: string | undefined;
    /** An administrator (only the CLI makes one). */
    admin?: boolean | undefined;
    /** SIGNUP_EMAIL_DOMAINS sign-up: held back from apps until the address is confirmed. */
    confirmEmailFirst?: boolean | undefined;
  }): Promise<UserRecord> {
    const username = checkUsername(input.username);
    const password = checkPassword(input.password);
    const displayName = checkDisplayName(input.displayName?.trim() ? input.displayName : username);
    const user: UserRecord = {
      id: randomUUID(),
      username,
      displayName,
      passwordHash: await this.passwords.hash(password),
      createdAt: Date.now(),
      ...(input.locale ? { locale: input.locale } : {}),
      ...(input.admin ? { admin: true } : {}),
      ...(input.confirmEmailFirst ? { confirmEmailFirst: true } : {}),
    };
    if (!(await this.store.accounts.create(user))) throw new FormError("err.taken", 409);
    return user;
  }

  /**
   * The user for these credentials; a FormError when wrong; 429 when throttled.
   * As with challenge answers, only failures count, and the decision follows the password check
   * (signin-limits.ts, the counters passkey sign-ins share):
   * - while a limit is reached every attempt is refused before the password is checked, the
   *   right one too, so the limit never tells which password is right;
   * - a wrong password is counted on both limits at once (atomic in the store); the one that
   *   goes past a limit is answered 429, not 401, so attempts sent at once never learn more than
   *   the limit allows;
   * - a right password counts nothing: it signs in unless failures reached a limit meanwhile.
   * So any number of right passwords sent at once from an address that has not failed all sign
   * in, and 50 wrong ones sent at once get at most 10 answers of "wrong".
   */
  async signIn(rawUsername: string, password: string, address: string, origin?: AuditOrigin): Promise<UserRecord> {
    const username = rawUsername.trim().toLowerCase().slice(0, 64);
    // Refusals by the limit (429) are not recorded one by one: a flood must not fill the log; the
    // failures that reached the limit are.
    await this.limits.check(username, address);
    const user = USERNAME.test(username) ? await this.store.accounts.byUsername(username) : null;
    const ok = await this.passwords.verify(
      password.slice(0, 256),
      // No account, or one without a password (made through an upstream provider): the same
      // scrypt work as a wrong password, so the answer's time does not tell which.
      user?.passwordHash || (await this.passwords.dummyHash()),
    );
    const failed = (reason: string, who: UserRecord | null) =>
      this.audit?.record({
        type: "signin.failed",
        method: "password",
        reason,
        // Never the name typed for an account that does not exist: it may be a password.
        ...(who ? { userId: who.id, username: who.username } : {}),
        origin: origin ?? { address },
      });
    if (!user || !ok) {
      await this.limits.fail(username, address);
      failed(user ? "wrong_password" : "unknown_user", user);
      throw new FormError("err.wrongCredentials", 401);
    }
    await this.limits.check(username, address);
    // Said only to whoever knows the password: a disabled account signs in by no way.
    if (isDisabled(user)) {
      failed("disabled", user);
      throw accountDisabled();
    }
    return user;
  }

  /**
   * The last check before a session is made for a user whose first step passed (the two-factor
   * code, a passkey): accountDisabled when an operator disabled the account meanwhile.
   */
  async checkEnabled(userId: string): Promise<void> {
    const user = await this.store.accounts.byId(userId);
    if (user && isDisabled(user)) throw accountDisabled();
  }

  byId(id: string) {
    return this.store.accounts.byId(id);
  }

  /**
   * A page of users in username order after `after`, matching query (the beginning of a word of the
   * username, display name or email, without regard to case: store/user-search.ts; trimmed, at most
   * USER_QUERY_MAX characters: a FormError beyond).
   */
  list(opts: { query?: string | undefined; after?: string | undefined; limit: number }): Promise<UserRecord[]> {
    if ((opts.query ?? "").trim().length > USER_QUERY_MAX) throw new FormError("err.queryTooLong", 400);
    const query = normalizeSearch(opts.query ?? "");
    return this.store.accounts.list({
      limit: opts.limit,
      ...(query ? { query } : {}),
      ...(opts.after !== undefined ? { after: opts.after } : {}),
    });
  }

  byUsername(raw: string) {
    const u = raw.trim().toLowerCase();
    return USERNAME.test(u) ? this.store.accounts.byUsername(u) : Promise.resolve(null);
  }

  /** Makes the user an administrator or not (the CLI's users set-admin); the record as stored, null when gone. */
  /**
   * Makes the user an administrator or not; `user.admin_granted` / `user.admin_revoked` is recorded
   * when it changed (origin: the operator, or a browser with actor the admin who asked).
   */
  async setAdmin(
    id: string,
    on: boolean,
    origin: AuditOrigin | "operator" = "operator",
    actor?: AuditActor,
  ): Promise<UserRecord | null> {
    let changed = false;
    const saved = await this.store.accounts.update(id, (user) => {
      // The last run of the update is the one stored (a store may run it again after a race).
      changed = (user.admin === true) !== on;
      if (!changed) return undefined;
      const next = { ...user };
      if (on) next.admin = true;
      else delete next.admin;
      return next;
    });
    if (saved && changed)
      this.audit?.record({
        type: on ? "user.admin_granted" : "user.admin_revoked",
        userId: saved.id,
        username: saved.username,
        actor,
        origin,
      });
    return saved;
  }

  async setDisplayName(id: string, raw: string): Promise<void> {
    const displayName = checkDisplayName(raw);
    await this.store.accounts.update(id, (user) => ({ ...user, displayName }));
  }

  /** Stores the picture re-encoded (see pictures.ts); a FormError, and nothing stored, when refused. */
  async setPicture(id: string, bytes: Buffer): Promise<void> {
    const user = await this.store.accounts.byId(id);
    if (!user) return;
    const picture = await preparePicture(bytes);
    if (!picture.ok) throw new FormError(picture.problem);
    await this.store.accounts.savePicture(id, picture.data);
    // Each upload bumps the version once, however many land at once (the pages' cache busting).
    await this.store.accounts.update(id, (u) => ({
      ...u,
      picture: { type: picture.type, version: (u.picture?.version ?? 0) + 1 },
    }));
  }

  picture(id: string) {
    return this.store.accounts.picture(id);
  }

  /**
   * Sets a new password (the rules of sign-up), then signs the user out everywhere (but in the
   * session exceptSid, when given: the one that changed it); the caller
   * revokes their grants (Grants.revokeUserGrants). A FormError when the password breaks a rule.
   */
  async setPassword(user: UserRecord, password: string, exceptSid?: string): Promise<void> {
    const passwordHash = await this.passwords.hash(checkPassword(password));
    await this.store.accounts.update(user.id, (u) => ({ ...u, passwordHash }));
    await this.endSessions(user.id, exceptSid);
  }

  /**
   * The signed-in user's password again, before something that cannot be undone (deleting the
   * account): limited like sign-in (the same counters); a FormError (401) when wrong, 429 when throttled.
   */
  async confirmPassword(user: UserRecord, password: string, address: string): Promise<void> {
    try {
      await this.signIn(user.username, password, address);
    } catch (err) {
      if (err instanceof FormError && err.status === 401) throw new FormError("err.wrongPassword", 401);
      throw err;
    }
  }

  /** The user's signed-in page sessions (browser, address, last seen), most recently seen first. */
  sessions(userId: string): Promise<SessionSummary[]> {
    return this.store.sessions.listForUser(userId);
  }

  /**
   * Signs the user out everywhere: ends every page session of the user at once (on every node),
   * except exceptSid when given (the session asking, for "sign out everywhere else"). Returns how
   * many sessions it ended. For a password reset, an account deletion, a new second factor. When
   * some ended, the user's apps hear `session.ended`, unless `tell` is false (disabling and deleting
   * the account tell of that instead): with one session kept, a logout token names each ended one
   * (its sid); with none kept, one logout token names the user alone (all of its sessions).
   */
  async endSessions(userId: string, exceptSid?: string, tell = true): Promise<number> {
    const ended = await this.store.sessions.destroyForUser(userId, exceptSid);
    if (ended.length > 0 && tell) this.identity?.sessionsEnded(userId, exceptSid === undefined ? undefined : ended);
    return ended.length;
  }
}
