// Which account an upstream identity signs in to (docs/upstream-providers.md#accounts): the one it
// is linked to; else, with UPSTREAM_LINK_BY_EMAIL=true and an address the upstream says is
// verified, the one account here that confirmed that address; else a new account (while sign-up
// is open). A local account is otherwise linked only by its owner, signed in (linkTo). Nothing is
// ever linked by an address the upstream does not vouch for.
import { randomInt, randomUUID } from "node:crypto";
import type { Config } from "../config.js";
import { FormError, checkDisplayName, USERNAME } from "./accounts.js";
import { checkEmailDomain, normalizeEmail } from "./email-address.js";
import type { UpstreamIdentity } from "./upstreams.js";
import { isDisabled, type Store, type UpstreamLinkRecord, type UserRecord } from "../store/port.js";

/** What a sign-in through an upstream did (UpstreamAccounts.signIn). */
export interface UpstreamSignIn {
  user: UserRecord;
  /** An account was made now (a sign-up). */
  created: boolean;
  /** The identity was linked now (to the account made, or to one by its verified address). */
  linked: boolean;
}

export class UpstreamAccounts {
  constructor(
    private readonly config: Config,
    private readonly store: Store,
    /** /signup's count of sign-ups per address (Accounts.countSignUp): one limit for both ways. */
    private readonly countSignUp: (address: string) => Promise<void>,
  ) {}

  private record(i: UpstreamIdentity, userId: string): UpstreamLinkRecord {
    return {
      upstream: i.upstream.id,
      issuer: i.issuer,
      subject: i.subject,
      userId,
      ...(i.email ? { email: i.email } : {}),
      linkedAt: Date.now(),
    };
  }

  /**
   * Links the identity to a signed-in user: true when linked now, false when it was the user's
   * already; 409 when it is another account's.
   */
  async link(i: UpstreamIdentity, userId: string): Promise<boolean> {
    if (await this.store.upstreamLinks.link(this.record(i, userId))) return true;
    const owner = await this.store.upstreamLinks.byIdentity(i.issuer, i.subject);
    if (owner?.userId !== userId) throw new FormError("err.upstreamTaken", 409);
    return false;
  }

  /** The link of the identity, or null. */
  linkOf(i: UpstreamIdentity): Promise<UpstreamLinkRecord | null> {
    return this.store.upstreamLinks.byIdentity(i.issuer, i.subject);
  }

  links(userId: string): Promise<UpstreamLinkRecord[]> {
    return this.store.upstreamLinks.listForUser(userId);
  }

  /**
   * Unlinks one of the user's identities, unless it is the account's last way in (no password, no
   * passkey, no other link): 409, nothing changed. Without a password the store checks and removes
   * in one step, so two unlinks of the last two links sent at once leave one (a password is never
   * taken away, so one seen set stays set). The link that went, for the audit log.
   */
  async unlink(user: UserRecord, issuer: string, subject: string): Promise<UpstreamLinkRecord> {
    const link = await this.store.upstreamLinks.byIdentity(issuer, subject);
    if (link?.userId !== user.id) throw new FormError("err.upstreamUnknown", 404);
    const stored = await this.store.accounts.byId(user.id);
    const done =
      stored && stored.passwordHash !== ""
        ? (await this.store.upstreamLinks.unlink(user.id, issuer, subject)) && "removed"
        : await this.store.upstreamLinks.unlinkUnlessLast(user.id, issuer, subject);
    if (done === "last") throw new FormError("err.upstreamLastWay", 409);
    if (done !== "removed") throw new FormError("err.upstreamUnknown", 404);
    return link;
  }

  /**
   * The account the identity signs in to, made or linked when needed: `created` when made now,
   * `linked` when an existing account was linked now (by its verified address).
   */
  async signIn(i: UpstreamIdentity, from: { address: string; locale?: string }): Promise<UpstreamSignIn> {
    const linked = await this.linkedUser(i);
    if (linked) return { user: linked, created: false, linked: false };
    const byEmail = await this.byVerifiedEmail(i);
    if (byEmail) {
      const user = usable(byEmail);
      return { user, created: false, linked: await this.link(i, user.id) };
    }
    if (this.config.signup !== "open") throw new FormError("err.upstreamSignupClosed", 403);
    // A sign-up, counted as /signup counts its posts (LIMITS.signUpPerAddress), before the rest.
    await this.countSignUp(from.address);
    this.checkDomains(i);
    const user = await this.create(i, from.locale);
    if (await this.store.upstreamLinks.link(this.record(i, user.id))) return { user, created: true, linked: true };
    // Another sign-in through the same identity linked first (both sent at once): one account.
    await this.store.accounts.delete(user);
    const winner = await this.linkedUser(i);
    if (!winner) throw new FormError("err.upstreamTaken", 409);
    return { user: winner, created: false, linked: false };
  }

  /**
   * SIGNUP_EMAIL_DOMAINS holds for accounts made through an upstream too: only an address the
   * upstream says is verified, in one of the domains, makes one (anyone has a GitHub account).
   */
  private checkDomains(i: UpstreamIdentity): void {
    const domains = this.config.signupEmailDomains;
    if (domains.length === 0) return;
    let email = "";
    try {
      if (i.emailVerified && i.email) email = normalizeEmail(i.email);
    } catch {
      // not an address: refused below, as none
    }
    checkEmailDomain(email, domains);
  }

  private async linkedUser(i: UpstreamIdentity): Promise<UserRecord | null> {
    const link = await this.store.upstreamLinks.byIdentity(i.issuer, i.subject);
    const user = link ? await this.store.accounts.byId(link.userId) : null;
    return user && usable(user);
  }

  private async byVerifiedEmail(i: UpstreamIdentity): Promise<UserRecord | null> {
    if (!this.config.upstreamLinkByEmail || !i.emailVerified || !i.email) return null;
    let email: string;
    try {
      email = normalizeEmail(i.email);
    } catch {
      return null;
    }
    const users = await Promise.all(
      (await this.store.email.usersByEmail(email)).map((id) => this.store.accounts.byId(id)),
    );
    const owners = users.filter((u): u is UserRecord => u?.email === email && u.emailVerified === true);
    // Two accounts confirmed it (before addresses were unique): neither is chosen.
    return owners.length === 1 ? owners[0]! : null;
  }

  /** A new account without a password (its way in is the upstream), named after the identity. */
  private async create(i: UpstreamIdentity, locale?: string): Promise<UserRecord> {
    const base = usernameBase(i);
    for (let attempt = 0; attempt < 20; attempt++) {
      const username = attempt === 0 ? base : `${base.slice(0, 27)}-${randomInt(1000, 9999)}`;
      const user: UserRecord = {
        id: randomUUID(),
        username,
        displayName: displayName(i, username),
        passwordHash: "",
        createdAt: Date.now(),
        ...(locale ? { locale } : {}),
      };
      if (await this.store.accounts.create(user)) return user;
    }
    throw new FormError("err.taken", 409);
  }
}

/** A disabled account's refusal (403, as accountDisabled()), naming it for the audit log. */
export class UpstreamAccountDisabled extends FormError {
  constructor(readonly user: UserRecord) {
    super("err.accountDisabled", 403);
  }
}

const usable = (user: UserRecord): UserRecord => {
  if (isDisabled(user)) throw new UpstreamAccountDisabled(user);
  return user;
};

/** A username from what the upstream calls the person: [a-z0-9_.-]{3,32}, "user" when nothing fits. */
function usernameBase(i: UpstreamIdentity): string {
  const from = i.preferredUsername ?? i.email?.split("@")[0] ?? "";
  const name = from
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 32);
  return USERNAME.test(name) ? name : "user";
}

/** The upstream's name for the person when it is a good display name here, else the username. */
function displayName(i: UpstreamIdentity, username: string): string {
  try {
    return checkDisplayName([...(i.name ?? i.preferredUsername ?? "")].slice(0, 64).join(""));
  } catch {
    return username;
  }
}
