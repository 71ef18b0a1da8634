// An account's life after sign-up (docs/http-api.md#account): what Sigil holds about a user (the
// export), deleting the account with everything it owns, and an operator's password reset. Every
// per-user record is named here once: what export lists is what deletion removes.
import {
  isDisabled,
  type AppRecord,
  type AuditActor,
  type SessionSummary,
  type Store,
  type UserRecord,
} from "../store/port.js";
import type { Accounts } from "./accounts.js";
import type { Apps } from "./apps.js";
import type { CustomTokens } from "./custom-tokens.js";
import type { OAuth } from "./oauth.js";
import { pictureUrl } from "./pictures-url.js";
import { publicSessionId } from "./session-ids.js";
import { forgetUserEmail } from "./email.js";
import { passkeysForExport } from "./webauthn.js";
import { OPERATOR, type ChangeOrigin, type SecurityMails } from "./security-mails.js";
import type { AuditLog } from "./audit.js";
import type { IdentityEvents } from "./identity-events.js";

export interface AccountLifeDeps {
  store: Store;
  secret: string;
  baseUrl: string;
  accounts: Accounts;
  apps: Apps;
  oauth: OAuth;
  customTokens: CustomTokens;
  /** A deletion, an operator's password reset: told to the confirmed address. */
  securityMails: SecurityMails;
  /** The audit log: the user's records are in their export, and go with the account. */
  audit: AuditLog;
  /** Tells the user's apps (docs/events.md): a session revoked, disabled, deleted. */
  identity: IdentityEvents;
}

export { publicSessionId };

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export class AccountLife {
  constructor(private readonly deps: AccountLifeDeps) {}

  /** The sessions of a user as pages show them (id: publicSessionId). */
  async sessions(userId: string): Promise<Array<SessionSummary & { id: string }>> {
    const list = await this.deps.accounts.sessions(userId);
    return list.map((s) => ({ ...s, id: publicSessionId(this.deps.secret, s.sid) }));
  }

  /** Signs out the user's session with this public id (from the list) at once; any other id: nothing. */
  async endSession(userId: string, id: string): Promise<void> {
    const target = (await this.sessions(userId)).find((x) => x.id === id);
    if (!target) return;
    await this.deps.store.sessions.destroy(target.sid, userId);
    this.deps.identity.sessionsEnded(userId, [target.sid]);
  }

  /**
   * Everything Sigil holds about the user, as JSON: the account (never the password hash: only
   * that a password is set), the picture's URL, the signed-in sessions, the consents with their
   * scopes, and the apps the user registered with their redirect URLs and CUSTOM TOKENs' metadata
   * (never a secret, a hash or a token).
   */
  async exportData(user: UserRecord): Promise<Record<string, unknown>> {
    const { store, baseUrl } = this.deps;
    const sessions = await this.sessions(user.id);
    const consents = await Promise.all(
      (await this.deps.oauth.consents(user.id)).map(async (clientId) => {
        const app = await store.apps.get(clientId);
        return {
          client_id: clientId,
          app_name: app?.name ?? null,
          scopes: (await store.consentScopes.get(user.id, clientId)) ?? ["profile"],
        };
      }),
    );
    const apps = await Promise.all((await store.apps.listByOwner(user.id)).map((a) => this.exportApp(a)));
    // Two-factor: whether it is on, since when, and how many recovery codes are left (never the key
    // nor a code's hash).
    const twoFactor = await store.twoFactor.get(user.id);
    return {
      exported_at: new Date().toISOString(),
      account: {
        id: user.id,
        username: user.username,
        display_name: user.displayName,
        created_at: iso(user.createdAt),
        // An account made through an upstream provider has none until its owner sets one.
        password_set: user.passwordHash !== "",
        picture: user.picture ? { url: pictureUrl(baseUrl, user), type: user.picture.type } : null,
        // Email (domain/email.ts): the address, whether it is confirmed, the language of the mails.
        email: user.email ?? null,
        email_verified: user.email ? user.emailVerified === true : null,
        language: user.locale ?? null,
      },
      sessions: sessions.map((s) => ({
        id: s.id,
        user_agent: s.userAgent ?? null,
        address: s.address ?? null,
        signed_in_at: iso(s.createdAt),
        last_seen_at: iso(s.lastSeenAt),
        expires_at: iso(s.expiresAt),
      })),
      two_factor: twoFactor
        ? {
            enabled: true,
            enabled_at: iso(twoFactor.enabledAt),
            recovery_codes_left: await store.twoFactor.recoveryCodesLeft(user.id),
          }
        : { enabled: false },
      consents,
      apps,
      // Passkeys: name, dates, kind (never the public key or the counter).
      passkeys: await passkeysForExport(store, user.id),
      // Identities at upstream providers that sign in to the account (docs/upstream-providers.md).
      upstream_links: (await store.upstreamLinks.listForUser(user.id)).map((l) => ({
        upstream: l.upstream,
        issuer: l.issuer,
        subject: l.subject,
        email: l.email ?? null,
        linked_at: iso(l.linkedAt),
      })),
      // The names of the groups the user is in (sorted).
      groups: await store.groups.groupsOf(user.id),
      // The audit log's records naming the user (as the account or as the actor), newest first.
      activity: await this.activity(user.id),
    };
  }

  /** Every audit record naming the user (AUDIT_RETENTION's worth), newest first, times as ISO 8601. */
  private async activity(userId: string): Promise<Array<Record<string, unknown>>> {
    const out: Array<Record<string, unknown>> = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.audit.list({ userId, limit: 500, cursor });
      for (const r of page.records) out.push({ ...r, time: iso(r.time) });
      cursor = page.next;
    } while (cursor !== undefined);
    return out;
  }

  private async exportApp(a: AppRecord) {
    const tokens = await this.deps.customTokens.list(a.clientId);
    return {
      client_id: a.clientId,
      name: a.name,
      kind: a.public ? "public" : "confidential",
      redirect_uris: a.redirectUris,
      post_logout_redirect_uris: a.postLogoutRedirectUris ?? [],
      homepage: a.homepage ?? null,
      // Where the app hears about its users (never the webhook's secret).
      webhook_url: a.webhookUrl ?? null,
      backchannel_logout_uri: a.backchannelLogoutUri ?? null,
      created_at: iso(a.createdAt),
      custom_tokens: tokens.map((t) => ({
        id: t.id,
        name: t.name,
        created_at: iso(t.createdAt),
        expires_at: iso(t.expiresAt),
        revoked: t.revoked,
      })),
    };
  }

  /**
   * Deletes the account and everything it owns, at once: the user and picture (the username is
   * free again), every session, every grant (codes, access and refresh tokens) and consent with
   * its scopes, the user's group memberships, and the apps the user registered (their CUSTOM TOKENs revoked first, which drops
   * their sockets on every node). Idempotent; of calls made at once, exactly one answers true, and
   * that one mails the confirmed address that the account is gone.
   */
  async deleteAccount(user: UserRecord, origin: ChangeOrigin, actor?: AuditActor): Promise<boolean> {
    const { store, oauth, identity } = this.deps;
    // The apps to tell are those the user consented to: read before the consents go.
    const apps = await identity.appsOf(user.id);
    // The record goes first: from here on the user's sessions count as signed out everywhere.
    const deleted = await store.accounts.delete(user);
    await this.deps.accounts.endSessions(user.id, undefined, false);
    await oauth.grants.revokeUserGrants(user.id);
    for (const clientId of await oauth.consents(user.id)) await oauth.withdrawConsent(user.id, clientId, false);
    await store.grants.forgetUserTokens(user.id);
    await store.deviceCodes.forgetUser(user.id);
    await store.consentScopes.clear(user.id);
    await forgetUserEmail(store, user);
    await store.passkeys.removeForUser(user.id);
    await store.upstreamLinks.removeForUser(user.id); // the identity may sign up anew
    await store.twoFactor.disable(user.id); // the sealed key, the recovery codes, the used steps
    await store.groups.removeUser(user.id);
    for (const app of await store.apps.listByOwner(user.id)) await this.deps.apps.delete(app);
    await this.deps.audit.forgetUser(user.id);
    if (deleted) {
      this.deps.securityMails.notify(user, { kind: "accountDeleted" }, origin, actor);
      identity.emit("user.deleted", user.id, apps);
    }
    return deleted;
  }

  /**
   * Disables the account (CONTRACT §14; `sigil users disable`): the record is marked first, so
   * that from here on no way of signing in succeeds (Accounts.signIn, passkeys, the two-factor
   * step) and no page treats a session of theirs as signed in (pages/context.ts currentUser); then
   * every session ends and every grant (codes, access and refresh tokens) is revoked, at once and
   * for every node, as a password reset does. Token checks refuse a disabled user's tokens too
   * (one issued in a race with this). Idempotent: a repeat ends and revokes again (nothing left).
   * origin: who asked (the operator, or a browser: then actor names the admin); the audit log
   * records `user.disabled` when the account was enabled. The record as stored, or null: no such user.
   */
  async disable(user: UserRecord, origin: ChangeOrigin, actor?: AuditActor): Promise<UserRecord | null> {
    let changed = false;
    const saved = await this.deps.store.accounts.update(user.id, (u) => {
      // The last run of the update is the one stored (a store may run it again after a race).
      changed = !isDisabled(u);
      return changed ? { ...u, disabled: true } : undefined;
    });
    if (!saved) return null;
    if (changed) this.recordChange("user.disabled", saved, origin, actor);
    await this.deps.accounts.endSessions(user.id, undefined, false);
    await this.deps.oauth.grants.revokeUserGrants(user.id);
    // Once the sessions and tokens are gone: an app that hears it finds them refused.
    if (changed) this.deps.identity.emit("user.disabled", user.id);
    return saved;
  }

  /**
   * An admin's "sign out everywhere" (/admin/users/:id): every session of the user ends and every
   * grant (codes, access and refresh tokens) is revoked, at once and for every node, as a password
   * reset does. The account itself stays as it is. How many sessions ended.
   */
  async signOutEverywhere(userId: string): Promise<number> {
    const ended = await this.deps.accounts.endSessions(userId);
    await this.deps.oauth.grants.revokeUserGrants(userId);
    return ended;
  }

  /**
   * Enables a disabled account again: the user can sign in; the sessions and tokens that disabling
   * ended stay ended. Idempotent (`user.enabled` is recorded when it was disabled). The record as
   * stored, or null: no such user.
   */
  async enable(user: UserRecord, origin: ChangeOrigin, actor?: AuditActor): Promise<UserRecord | null> {
    let changed = false;
    const saved = await this.deps.store.accounts.update(user.id, (u) => {
      changed = isDisabled(u);
      if (!changed) return undefined;
      const { disabled: _, ...rest } = u;
      return rest;
    });
    if (saved && changed) this.recordChange("user.enabled", saved, origin, actor);
    return saved;
  }

  private recordChange(
    type: "user.disabled" | "user.enabled",
    user: UserRecord,
    origin: ChangeOrigin,
    actor: AuditActor | undefined,
  ): void {
    this.deps.audit?.record({ type, userId: user.id, username: user.username, actor, origin });
  }

  /**
   * An operator's password reset (CLI): the sign-up rules, then every session ends and every
   * access and refresh token of the user is revoked; the confirmed address is told. A FormError
   * when the password breaks a rule.
   */
  async resetPassword(user: UserRecord, password: string): Promise<void> {
    await this.deps.accounts.setPassword(user, password);
    await this.deps.oauth.grants.revokeUserGrants(user.id);
    this.deps.securityMails.notify(user.id, { kind: "passwordChanged" }, OPERATOR);
  }

  /**
   * The signed-in user's own change (after "Confirm it's you"): as a reset, but the session that
   * changed it (sid) stays signed in; the confirmed address is told. A FormError when the
   * password breaks a rule.
   */
  async changePassword(user: UserRecord, password: string, sid: string, origin: ChangeOrigin): Promise<void> {
    await this.deps.accounts.setPassword(user, password, sid);
    await this.deps.oauth.grants.revokeUserGrants(user.id);
    this.deps.securityMails.notify(user.id, { kind: "passwordChanged" }, origin);
  }
}
