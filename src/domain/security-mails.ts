// Security mails (docs/http-api.md#security-mails): the account's confirmed address hears about every
// change to how the account is signed in to or recovered — what changed, when, from which browser
// and address, and where to reset the password. Sent off the caller's path: a mail that cannot be
// sent never undoes or fails the change; it is logged (what and why, never the mail itself). Every
// such event is also recorded in the audit log (domain/audit.ts), mail or no mail.
import { isLocale, translator, DEFAULT_LOCALE, type Locale, type MessageKey } from "../i18n/index.js";
import type { AuditActor, Store, UserRecord } from "../store/port.js";
import { escapeHtml, type Mail, type Mailer } from "./mailer.js";
import type { AuditLog, AuditType } from "./audit.js";

/** What changed. Names (a passkey's, an address) are the user's own: only confirmed addresses read them. */
export type SecurityEvent =
  | { kind: "emailChanged"; email: string }
  | { kind: "emailRemoved" }
  | { kind: "passwordChanged" }
  | { kind: "passwordReset"; passkeysLeft: string[]; passkeysRemoved: number }
  | { kind: "passkeyAdded"; name: string }
  | { kind: "passkeyRemoved"; name: string }
  /** An identity at an upstream provider linked or unlinked: its id (the audit log's method) and name. */
  | { kind: "upstreamLinked"; upstream: string; provider: string }
  | { kind: "upstreamUnlinked"; upstream: string; provider: string }
  | { kind: "twoFactorOn" }
  | { kind: "twoFactorReplaced" }
  | { kind: "twoFactorOff" }
  | { kind: "recoveryCodes" }
  | { kind: "accountDeleted" };

/**
 * Who made a change: a browser (its User-Agent summed up, "Firefox 120 · Linux", and the client
 * address) or the service's operator (the command line).
 */
export type ChangeOrigin = BrowserOrigin | "operator";
export interface BrowserOrigin {
  browser: string | undefined;
  address: string;
  /** The request's id (X-Request-Id): the audit log's link to the access log. */
  requestId?: string;
}
export const OPERATOR: ChangeOrigin = "operator";

/** Each security event's type in the audit log (docs/operations.md#audit-log). */
const AUDIT_TYPES: Record<SecurityEvent["kind"], AuditType> = {
  emailChanged: "email.changed",
  emailRemoved: "email.removed",
  passwordChanged: "password.changed",
  passwordReset: "password.reset",
  passkeyAdded: "passkey.added",
  passkeyRemoved: "passkey.removed",
  upstreamLinked: "upstream.linked",
  upstreamUnlinked: "upstream.unlinked",
  twoFactorOn: "two_factor.enabled",
  twoFactorReplaced: "two_factor.replaced",
  twoFactorOff: "two_factor.disabled",
  recoveryCodes: "two_factor.recovery_codes",
  accountDeleted: "account.deleted",
};

export interface SecurityMailsDeps {
  store: Store;
  mailer: Mailer | undefined;
  authUrl: string;
  serviceName: string;
  /** Where a mail that could not be sent is reported (what, and the error; never the mail). */
  onError(what: string, err: unknown): void;
  /** The audit log, which records every security event, mailed or not. */
  audit?: AuditLog;
  now?: () => number;
}

export class SecurityMails {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly deps: SecurityMailsDeps) {}

  /**
   * Mails `user`'s confirmed address about `event`, in the background. `user` is the record to
   * address (for an email change, the record as it was: the old address), or the user's id (read
   * now). Nothing is sent when that address is not confirmed, or when mail is not set up. Not limited
   * per recipient: each change is the account holder's own, and the limit of the other mails
   * (which anyone can make some of) must not silence these.
   */
  notify(user: UserRecord | string, event: SecurityEvent, origin: ChangeOrigin, actor?: AuditActor): void {
    // An account's deletion is recorded without naming it: nothing left may name a deleted user
    // (CONTRACT §13), and its other records went with it (AccountLife.deleteAccount).
    const gone = event.kind === "accountDeleted";
    const id = typeof user === "string" ? user : user.id;
    this.deps.audit?.record({
      type: AUDIT_TYPES[event.kind],
      ...(gone ? {} : typeof user === "string" ? { userId: user } : { userId: user.id, username: user.username }),
      ...(actor ? { actor } : origin === "operator" ? {} : { actor: gone ? { kind: "user" } : { kind: "user", id } }),
      ...("upstream" in event ? { method: event.upstream } : {}),
      origin,
    });
    const mailer = this.deps.mailer;
    if (!mailer) return;
    const at = (this.deps.now ?? Date.now)();
    const sending = (async () => {
      const u = typeof user === "string" ? await this.deps.store.accounts.byId(user) : user;
      if (!u?.email || u.emailVerified !== true) return;
      await mailer.send(
        composeSecurityMail(u, event, { at, origin, authUrl: this.deps.authUrl, service: this.deps.serviceName }),
      );
    })()
      .catch((err: unknown) => this.deps.onError(`security mail (${event.kind})`, err))
      .finally(() => this.pending.delete(sending));
    this.pending.add(sending);
  }

  /** Waits for the mails under way (the CLI, before it exits). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}

/** The language of a user's mails: the page's language when they last set their address, else English. */
export function mailLocale(user: UserRecord): Locale {
  return user.locale && isLocale(user.locale) ? user.locale : DEFAULT_LOCALE;
}

/** The mail about a change, in the user's language: text and a simple HTML body. */
export function composeSecurityMail(
  user: UserRecord,
  event: SecurityEvent,
  ctx: { at: number; origin: ChangeOrigin; authUrl: string; service: string },
): Mail {
  const locale = mailLocale(user);
  const { t, date } = translator(locale);
  const { service } = ctx;
  const names = (list: string[]) =>
    new Intl.ListFormat(locale, { type: "conjunction" }).format(
      list.map((n) => t("mail.security.quoted", { name: n })),
    );
  const p = {
    service,
    name: user.displayName,
    username: user.username,
    email: "email" in event ? event.email : "",
    passkey: "name" in event ? event.name : "",
    provider: "provider" in event ? event.provider : "",
  };
  const subject = t(`mail.${event.kind}.subject` as MessageKey, p);
  const body = [t(`mail.${event.kind}.body` as MessageKey, p)];
  if (event.kind === "passwordReset") {
    if (event.passkeysRemoved > 0) body.push(t("mail.passwordReset.passkeysRemoved", { count: event.passkeysRemoved }));
    if (event.passkeysLeft.length > 0)
      body.push(t("mail.passwordReset.passkeysLeft", { names: names(event.passkeysLeft) }));
  }
  const facts = [t("mail.security.when", { when: date(ctx.at) })];
  if (ctx.origin === "operator") facts.push(t("mail.security.byOperator", { service }));
  else {
    facts.push(t("mail.security.browser", { browser: ctx.origin.browser ?? t("mail.security.unknownBrowser") }));
    facts.push(t("mail.security.address", { address: ctx.origin.address }));
  }
  // A deleted account has no password to reset: the last line says whom to tell instead.
  const deleted = event.kind === "accountDeleted";
  const link = `${ctx.authUrl}/forgot`;
  const notYou = t(deleted ? "mail.security.deletedNotYou" : "mail.security.notYou", { service });
  const greeting = t("mail.greeting", p);
  const text = [greeting, "", ...body, "", ...facts, "", notYou, ...(deleted ? [] : [link]), "", `— ${service}`].join(
    "\n",
  );
  const html = `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a">
<p>${escapeHtml(greeting)}</p>
${body.map((b) => `<p>${escapeHtml(b)}</p>`).join("\n")}
<p style="font-size: 0.9em; color: #333333">${facts.map(escapeHtml).join("<br>")}</p>
<p>${escapeHtml(notYou)}</p>
${deleted ? "" : `<p><a href="${escapeHtml(link)}" style="display: inline-block; padding: 0.5em 1em; background: #1f4fd1; color: #ffffff; text-decoration: none; border-radius: 4px">${escapeHtml(t("mail.security.action"))}</a></p>\n<p style="font-size: 0.9em">${escapeHtml(t("mail.orCopy"))}<br>${escapeHtml(link)}</p>`}
<p>— ${escapeHtml(service)}</p>
</body></html>`;
  return { to: user.email!, subject, text, html };
}
