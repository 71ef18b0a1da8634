// Sign-up invitations (SIGNUP=invite; docs/pages.md#invitations, docs/choices.md): an admin (or the
// operator, `sigil invitations create`) makes a single-use link `{auth_url}/signup?invite=TOKEN`,
// valid INVITATION_DAYS, optionally for one email address. The link is returned once; the store
// keeps only a keyed hash of its token. Using one is atomic (store take): of any number of sign-ups
// with one link at once, exactly one gets it.
import { FormError } from "./accounts.js";
import { checkEmailDomain, normalizeEmail } from "./email-address.js";
import { keyedHash, randomId, randomToken } from "./secrets.js";
import type { InvitationRecord, Store } from "../store/port.js";

export const INVITATION_DAYS = 7;
/** InvitationRecord.createdBy of an invitation the CLI made. */
export const BY_OPERATOR = "operator";
const TOKEN_MAX = 100;

/** A used, revoked, ended or unknown invitation: the page says so (410: it is gone). */
export const invitationGone = (): FormError => new FormError("err.invitationGone", 410);

export class Invitations {
  private readonly now: () => number;

  constructor(
    private readonly deps: {
      store: Store;
      secret: string;
      authUrl: string;
      /** SIGNUP_EMAIL_DOMAINS: an invitation bound to an address elsewhere could never be used. */
      emailDomains?: readonly string[];
      now?: () => number;
    },
  ) {
    this.now = deps.now ?? Date.now;
  }

  private hash(token: string): string {
    return keyedHash(this.deps.secret, "sigil invitation", token);
  }

  /**
   * A new invitation; its link (shown once) and its record (no token in it). An address outside
   * SIGNUP_EMAIL_DOMAINS is refused (FormError err.emailDomain): the sign-up it binds could never pass.
   */
  async create(opts: {
    createdBy: string;
    email?: string | undefined;
  }): Promise<{ link: string; record: InvitationRecord }> {
    const email = opts.email?.trim() ? normalizeEmail(opts.email) : undefined;
    if (email) checkEmailDomain(email, this.deps.emailDomains ?? []);
    const token = randomToken(32);
    const createdAt = this.now();
    const record: InvitationRecord = {
      id: randomId(),
      tokenHash: this.hash(token),
      ...(email ? { email } : {}),
      createdBy: opts.createdBy,
      createdAt,
      expiresAt: createdAt + INVITATION_DAYS * 86_400_000,
    };
    await this.deps.store.invitations.save(record);
    const link = `${this.deps.authUrl.replace(/\/$/, "")}/signup?${new URLSearchParams({ invite: token })}`;
    return { link, record };
  }

  /** The invitations still pending, oldest first. */
  async list(): Promise<InvitationRecord[]> {
    return (await this.deps.store.invitations.list()).filter((r) => r.expiresAt > this.now());
  }

  /** Revokes one by id; the record, or null when there is none (used, ended, unknown). */
  async revoke(id: string): Promise<InvitationRecord | null> {
    if (id.length === 0 || id.length > 64) return null;
    return this.deps.store.invitations.revoke(id);
  }

  /** The pending invitation of a link's token, or null (used, revoked, ended, unknown, malformed). */
  async check(token: string): Promise<InvitationRecord | null> {
    if (token.length === 0 || token.length > TOKEN_MAX) return null;
    const r = await this.deps.store.invitations.peek(this.hash(token));
    return r && r.expiresAt > this.now() ? r : null;
  }

  /**
   * Takes the invitation for a sign-up (once, atomically), then runs make(); when make() throws
   * (a username taken, a bad password…), the invitation is put back and may be used again. Throws
   * invitationGone() when the link is not (or no longer) good, and the bound address's error when
   * the form's email is not the invitation's.
   */
  async use<T>(token: string, email: string, make: (invitation: InvitationRecord) => Promise<T>): Promise<T> {
    if (token.length === 0 || token.length > TOKEN_MAX) throw invitationGone();
    const pending = await this.check(token);
    if (!pending) throw invitationGone();
    if (pending.email && (!email.trim() || normalizeEmail(email).toLowerCase() !== pending.email.toLowerCase()))
      throw new FormError("err.invitationEmail");
    const taken = await this.deps.store.invitations.take(pending.tokenHash);
    if (!taken || taken.expiresAt <= this.now()) throw invitationGone();
    try {
      return await make(taken);
    } catch (err) {
      await this.deps.store.invitations.save(taken);
      throw err;
    }
  }
}
