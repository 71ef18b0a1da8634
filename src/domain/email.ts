// Email confirmation and password recovery by mail (docs/http-api.md#email-and-password-recovery);
// what an address may be is email-address.ts.
// Links sent by mail carry a random token (256 bits); the store keeps only its keyed hash, and
// takes it atomically for its one use.
import { checkPassword, USERNAME } from "./accounts.js";
import { rateLimited } from "../errors.js";
import { keyedHash, randomToken } from "./secrets.js";
import { escapeHtml, type Mail, type Mailer } from "./mailer.js";
import { mailLocale, type ChangeOrigin, type SecurityMails } from "./security-mails.js";
import { translator, type Locale } from "../i18n/index.js";
import type { AttemptLimiter, MailLinkRecord, Store, UserRecord } from "../store/port.js";
import { LIMITS } from "./limits.js";
import { normalizeEmail, checkEmailDomain } from "./email-address.js";

/** The index key of an address: the whole address lower-cased (lookups by /forgot ignore case). */
const indexKey = (email: string) => email.toLowerCase();

/**
 * What account deletion removes for email beside the user record: the user's entry in the index of
 * addresses, and every link mailed to them that is still stored (a record naming the user, and a
 * confirmation link's address, would otherwise stay up to 24 hours).
 */
export async function forgetUserEmail(store: Store, user: UserRecord): Promise<void> {
  if (user.email) await store.email.unindexEmail(indexKey(user.email), user.id);
  await store.email.removeLinksForUser(user.id);
}

export interface EmailDeps {
  store: Store;
  secret: string;
  mailer: Mailer | undefined;
  baseUrl: string;
  authUrl: string;
  serviceName: string;
  confirmTtl: number;
  resetTtl: number;
  /** Hashes a new password at the configured cost (Passwords.hash). */
  hashPassword(password: string): Promise<string>;
  /** Revokes every grant of a user (Grants.revokeUserGrants). */
  revokeUserGrants(userId: string): Promise<void>;
  /** Ends every session of a user (Accounts.endSessions once the session index is there). */
  endSessions(userId: string): Promise<void>;
  /** Where a failure off the response path goes (never with a token or a link). */
  onError(what: string, err: unknown): void;
  /** Mails to the confirmed address about a change (the address replaced or removed, a reset). */
  securityMails: SecurityMails;
  /** SIGNUP_EMAIL_DOMAINS: a new address must be at one of these (empty: any). */
  emailDomains: readonly string[];
}

export type ConfirmResult = "confirmed" | "invalid";

export class EmailService {
  private readonly perClientAddress: AttemptLimiter;
  private readonly perAccount: AttemptLimiter;
  private readonly confirmPerAccount: AttemptLimiter;
  private readonly perRecipient: AttemptLimiter;

  constructor(private readonly deps: EmailDeps) {
    // No mail bombing (the numbers: domain/limits.ts): reset mails per account, whoever asks;
    // confirmation mails per account (a refusal the user sees); and mails of any kind per
    // recipient address, however many accounts give it (the others are dropped). And /forgot
    // requests per client address (a refusal the asker sees).
    this.perClientAddress = deps.store.limiter(LIMITS.forgotPerAddress);
    this.perAccount = deps.store.limiter(LIMITS.resetMailsPerUser);
    this.confirmPerAccount = deps.store.limiter(LIMITS.confirmMailsPerUser);
    this.perRecipient = deps.store.limiter(LIMITS.mailsPerRecipient);
  }

  /** Counts a confirmation mail for the user; 429 past the limit (nothing changed then). */
  private async confirmAllowed(userId: string): Promise<void> {
    const limit = await this.confirmPerAccount.consume(userId);
    if (!limit.allowed) throw rateLimited(limit.retryAfterMs / 1000, "err.confirmThrottled");
  }

  /** Whether mail can be sent (SMTP_URL is set). */
  get enabled(): boolean {
    return this.deps.mailer !== undefined;
  }

  /** Ties a reset link to the password it replaces: once that changes, every earlier link is void. */
  private stamp(user: UserRecord): string {
    return keyedHash(this.deps.secret, "sigil reset stamp", user.passwordHash).slice(0, 32);
  }

  private hash(token: string): string {
    return keyedHash(this.deps.secret, "sigil mail link", token);
  }

  private async newLink(record: MailLinkRecord, ttl: number): Promise<string> {
    const token = randomToken(32);
    await this.deps.store.email.saveLink(this.hash(token), record, ttl);
    // Mails go out off the response path: an account deleted meanwhile keeps no link of theirs.
    if (!(await this.deps.store.accounts.byId(record.userId))) {
      await this.deps.store.email.removeLinksForUser(record.userId);
      throw new Error("the account was deleted while its mail was prepared");
    }
    return token;
  }

  /**
   * Sets (or, with "", removes) the user's address; a new address is unconfirmed and a
   * confirmation link is mailed (in the background: the caller does not wait for SMTP). locale: the
   * page's language, kept as the language of the user's mails. A confirmed address that is
   * replaced or removed is told so (a security mail, in the language it was set up in).
   */
  async setEmail(
    userId: string,
    raw: string,
    locale: Locale,
    origin: ChangeOrigin,
  ): Promise<"unchanged" | "removed" | "sent" | "saved"> {
    const email = raw.trim() === "" ? undefined : normalizeEmail(raw);
    const user = await this.deps.store.accounts.byId(userId);
    if (!user) return "unchanged";
    if (email === user.email && (user.emailVerified || !email)) return "unchanged";
    // SIGNUP_EMAIL_DOMAINS: for every account, a new address only at one of the domains.
    if (email) checkEmailDomain(email, this.deps.emailDomains);
    if (email && this.deps.mailer) await this.confirmAllowed(userId);
    let previous: UserRecord | undefined;
    let changed = false;
    // One atomic change of the record (a change made meanwhile, of this or another field, stays).
    const saved = await this.deps.store.accounts.update(userId, (u) => {
      changed = !(email === u.email && (u.emailVerified || !email));
      if (!changed) return undefined;
      previous = u;
      const next: UserRecord = { ...u, locale };
      if (email) {
        next.email = email;
        next.emailVerified = false;
      } else {
        delete next.email;
        delete next.emailVerified;
      }
      return next;
    });
    if (!saved || !changed) return "unchanged";
    const old = previous?.email;
    // The address that was confirmed hears of it, with the new address (the old one is the owner's).
    if (previous?.email && previous.emailVerified)
      this.deps.securityMails.notify(
        previous,
        email ? { kind: "emailChanged", email } : { kind: "emailRemoved" },
        origin,
      );
    if (old && indexKey(old) !== (email && indexKey(email)))
      await this.deps.store.email.unindexEmail(indexKey(old), userId);
    if (!email) return "removed";
    await this.deps.store.email.indexEmail(indexKey(email), userId);
    if (!this.deps.mailer) return "saved";
    this.background("confirmation mail", () => this.sendConfirmation(saved));
    return "sent";
  }

  /** Mails a new confirmation link for the user's unconfirmed address. */
  async resendConfirmation(userId: string): Promise<boolean> {
    const user = await this.deps.store.accounts.byId(userId);
    if (!user?.email || user.emailVerified || !this.deps.mailer) return false;
    await this.confirmAllowed(userId);
    this.background("confirmation mail", () => this.sendConfirmation(user));
    return true;
  }

  private async sendConfirmation(user: UserRecord): Promise<void> {
    const token = await this.newLink(
      { kind: "confirm-email", userId: user.id, email: user.email! },
      this.deps.confirmTtl,
    );
    const link = `${this.deps.authUrl}/email/confirm?${new URLSearchParams({ token })}`;
    await this.send(user, "confirm", link, this.deps.confirmTtl);
  }

  /** Uses a confirmation link: once, while the address it was sent to is still the user's. */
  async confirm(token: string): Promise<ConfirmResult> {
    if (!token || token.length > 200) return "invalid";
    const rec = await this.deps.store.email.takeLink(this.hash(token));
    if (rec?.kind !== "confirm-email") return "invalid";
    let confirmed = false;
    await this.deps.store.accounts.update(rec.userId, (u) => {
      confirmed = u.email === rec.email;
      return confirmed ? { ...u, emailVerified: true } : undefined;
    });
    return confirmed ? "confirmed" : "invalid";
  }

  /**
   * POST /forgot from a client address: 429 past the address's limit; otherwise forgot() below,
   * not awaited, so the answer is the same and as quick whoever is named.
   */
  async requestReset(identifier: string, clientAddress: string): Promise<void> {
    const limit = await this.perClientAddress.consume(clientAddress);
    if (!limit.allowed) throw rateLimited(limit.retryAfterMs / 1000, "err.forgotThrottled");
    this.forgot(identifier);
  }

  /**
   * /forgot: the same for every identifier, known or not. Runs off the response path (the caller
   * does not await it), so an answer takes as long whether or not a mail goes out. A username, or
   * an address: every account whose confirmed address it is gets its own link.
   */
  private forgot(identifier: string): void {
    this.background("password reset mail", async () => {
      const users = await this.usersFor(identifier);
      for (const user of users) {
        if (!user.email || !user.emailVerified || !this.deps.mailer) continue;
        const limit = await this.perAccount.consume(user.id);
        if (!limit.allowed) continue;
        await this.sendResetLink(user);
      }
    });
  }

  private async sendResetLink(user: UserRecord): Promise<void> {
    const token = await this.newLink(
      { kind: "reset-password", userId: user.id, stamp: this.stamp(user) },
      this.deps.resetTtl,
    );
    const link = `${this.deps.authUrl}/reset?${new URLSearchParams({ token })}`;
    await this.send(user, "reset", link, this.deps.resetTtl);
  }

  /**
   * An admin's "send a password reset mail" (/admin/users/:id): the /forgot link, to the user's
   * confirmed address, now. "no-mail" when mail is not set up, "no-address" when the user has no
   * confirmed address (nothing sent either way).
   */
  async sendResetFor(user: UserRecord): Promise<"sent" | "no-mail" | "no-address"> {
    if (!this.deps.mailer) return "no-mail";
    if (!user.email || user.emailVerified !== true) return "no-address";
    await this.sendResetLink(user);
    return "sent";
  }

  private async usersFor(identifier: string): Promise<UserRecord[]> {
    const id = identifier.trim().slice(0, 300);
    if (id.includes("@")) {
      let email: string;
      try {
        email = normalizeEmail(id);
      } catch {
        return [];
      }
      const ids = await this.deps.store.email.usersByEmail(indexKey(email));
      const users = await Promise.all(ids.map((u) => this.deps.store.accounts.byId(u)));
      return users.filter(
        (u): u is UserRecord => !!u && !!u.email && u.emailVerified === true && indexKey(u.email) === indexKey(email),
      );
    }
    const username = id.toLowerCase();
    const user = USERNAME.test(username) ? await this.deps.store.accounts.byUsername(username) : null;
    return user ? [user] : [];
  }

  /**
   * Whether a reset link is still good (the form is shown only then; it stays usable), and how many
   * passkeys the account has (the form offers to remove them); null when it is not.
   */
  async resetLinkState(token: string): Promise<{ passkeys: number } | null> {
    if (!token || token.length > 200) return null;
    const rec = await this.deps.store.email.peekLink(this.hash(token));
    if (rec?.kind !== "reset-password") return null;
    const user = await this.deps.store.accounts.byId(rec.userId);
    if (!user || rec.stamp !== this.stamp(user)) return null;
    return { passkeys: (await this.deps.store.passkeys.listForUser(user.id)).length };
  }

  /**
   * Uses a reset link: the password is checked first (a refused one keeps the link), then the link
   * is taken (once, atomically), the password set, every session ended and every grant revoked;
   * with removePasskeys, every passkey of the user is removed too. The confirmed address is told,
   * with the passkeys that can still sign in. The user, or null when the link is not (or no
   * longer) good.
   */
  async reset(
    token: string,
    password: string,
    opts: { removePasskeys: boolean },
    origin: ChangeOrigin,
  ): Promise<UserRecord | null> {
    const checked = checkPassword(password);
    if (!token || token.length > 200) return null;
    const rec = await this.deps.store.email.takeLink(this.hash(token));
    if (rec?.kind !== "reset-password") return null;
    const user = await this.deps.store.accounts.byId(rec.userId);
    if (!user || rec.stamp !== this.stamp(user)) return null;
    const passwordHash = await this.deps.hashPassword(checked);
    // The link holds while the password it was sent for is still the one (a change meanwhile voids it).
    let valid = false;
    const saved = await this.deps.store.accounts.update(user.id, (u) => {
      valid = rec.stamp === this.stamp(u);
      return valid ? { ...u, passwordHash } : undefined;
    });
    if (!saved || !valid) return null;
    await this.deps.endSessions(user.id);
    await this.deps.revokeUserGrants(user.id);
    const passkeysRemoved = opts.removePasskeys ? await this.deps.store.passkeys.removeForUser(user.id) : 0;
    const passkeysLeft = (await this.deps.store.passkeys.listForUser(user.id)).map((k) => k.name);
    this.deps.securityMails.notify(saved, { kind: "passwordReset", passkeysLeft, passkeysRemoved }, origin);
    return saved;
  }

  private async send(user: UserRecord, kind: "confirm" | "reset", link: string, ttl: number): Promise<void> {
    const mailer = this.deps.mailer;
    if (!mailer || !user.email) return;
    if (!(await this.perRecipient.consume(indexKey(user.email))).allowed) return;
    await mailer.send(composeMail(kind, user, link, ttl, this.deps.serviceName));
  }

  private background(what: string, fn: () => Promise<void>): void {
    fn().catch((err: unknown) => this.deps.onError(what, err));
  }
}

/**
 * A mail with a link, in the user's language (their locale, else English): text and a simple HTML
 * body. A confirmation mail goes to an address nobody has confirmed yet — anyone's, typed by
 * whoever holds the account — so it carries no text a user chose (no display name, no username):
 * only the service's own words and the link.
 */
export function composeMail(
  kind: "confirm" | "reset",
  user: UserRecord,
  link: string,
  ttlSeconds: number,
  service: string,
): Mail {
  const locale = mailLocale(user);
  const { t, number } = translator(locale);
  const minutes = Math.max(1, Math.round(ttlSeconds / 60));
  const within =
    minutes >= 120 && minutes % 60 === 0
      ? number(minutes / 60, { style: "unit", unit: "hour", unitDisplay: "long" })
      : number(minutes, { style: "unit", unit: "minute", unitDisplay: "long" });
  const confirmed = kind === "reset" && user.emailVerified === true;
  const p: Record<string, string> = confirmed
    ? { service, name: user.displayName, username: user.username, within }
    : { service, within };
  const subject = t(`mail.${kind}.subject`, p);
  const lines = [
    confirmed ? t("mail.greeting", p) : t("mail.greetingPlain", p),
    t(`mail.${kind}.body`, p),
    t(`mail.${kind}.expires`, p),
    t(`mail.${kind}.ignore`, p),
  ];
  const text = [lines[0], "", lines[1], "", link, "", lines[2], lines[3], "", `— ${service}`].join("\n");
  const html = `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a">
<p>${escapeHtml(lines[0]!)}</p>
<p>${escapeHtml(lines[1]!)}</p>
<p><a href="${escapeHtml(link)}" style="display: inline-block; padding: 0.5em 1em; background: #1f4fd1; color: #ffffff; text-decoration: none; border-radius: 4px">${escapeHtml(t(`mail.${kind}.action`, p))}</a></p>
<p style="font-size: 0.9em">${escapeHtml(t("mail.orCopy", p))}<br>${escapeHtml(link)}</p>
<p style="font-size: 0.9em; color: #555555">${escapeHtml(lines[2]!)} ${escapeHtml(lines[3]!)}</p>
<p>— ${escapeHtml(service)}</p>
</body></html>`;
  return { to: user.email!, subject, text, html };
}
