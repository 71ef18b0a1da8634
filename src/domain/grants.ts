// Grants after the code (docs/http-api.md#refresh-tokens): refresh tokens with rotation and reuse
// detection (RFC 6749 §6, RFC 9700 §4.14), revocation (RFC 7009), introspection (RFC 7662), and
// revoking every grant of a user. A grant is what one redeemed code began; its id is the code's
// hash, and the code's "revoked" mark ends every access and refresh token of it at once.
import { invalidGrant, invalidScope } from "../errors.js";
import { isDisabled, type CodeRecord, type RefreshRecord, type Store, type TokenRecord } from "../store/port.js";
import { CLIENT_ID } from "./apps.js";
import { keyedHash, randomToken } from "./secrets.js";
import { UserAccess } from "./user-access.js";

export interface GrantsDeps {
  store: Store;
  secret: string;
  codeTtl: number;
  accessTokenTtl: number;
  /** Seconds a grant's refresh tokens work, from the sign-in (REFRESH_TOKEN_TTL). */
  refreshTokenTtl: number;
}

/** The scope that makes a grant hold refresh tokens (OpenID Connect Core §11). */
export const OFFLINE_ACCESS = "offline_access";

/** The granted scopes of a record; records from before OpenID Connect granted "profile". */
export const scopeOf = (scope: string[] | undefined): string[] => scope ?? ["profile"];

/** What a refresh hands back: the new pair, and what an ID token on it would need. */
export interface Refreshed {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  /** The access token's scopes (the grant's, or the narrower ones asked for). */
  scope: string[];
  grant: RefreshRecord;
}

/** RFC 7662's answer, without `iss` (the HTTP layer adds it). */
export type Introspection =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      sub: string;
      /** Absent for a client credentials token (its sub is the app's client id). */
      username?: string;
      exp?: number;
      iat?: number;
      token_type: "Bearer" | "refresh_token";
      /** With the scope "groups": the names of the user's groups, sorted. */
      groups?: string[];
    };

export class Grants {
  /** Ends the users' sockets whose tokens a revocation here ended, on every node, before it answers. */
  readonly userAccess: UserAccess;

  constructor(private readonly deps: GrantsDeps) {
    this.userAccess = new UserAccess(deps);
  }

  private hash(kind: "token" | "refresh", value: string): string {
    return keyedHash(this.deps.secret, kind, value);
  }

  /** How long a "revoked" mark set where there was none must last: past any access token. */
  private get markTtl(): number {
    return this.deps.accessTokenTtl + 60;
  }

  /**
   * How long a code's entry with its consent (for withdrawal) must last: past the code, past any
   * access token from it, and, when it will hold refresh tokens, past the end of those.
   */
  registrationTtl(scope: string[] | undefined): number {
    const refresh = scopeOf(scope).includes(OFFLINE_ACCESS) ? this.deps.refreshTokenTtl + 60 : 0;
    return this.deps.codeTtl + Math.max(this.markTtl, refresh);
  }

  /**
   * A new access token of a grant, saved with its times. An OpenID Connect token (its scope holds
   * openid) names its client before a "." (`<client_id>.<256 random bits>`), as the code's does
   * (domain/oauth.ts on the OpenID Connect branch: /userinfo gets no client_id header); the two
   * must stay one rule.
   */
  async issueAccessToken(record: Omit<TokenRecord, "issuedAt" | "expiresAt">, now = Date.now()): Promise<string> {
    const random = randomToken(32);
    // A client credentials token names its app too: another app may introspect it (introspect()).
    const named = record.scope?.includes("openid") || record.m2m === true;
    const token = named ? `${record.clientId}.${random}` : random;
    const issuedAt = Math.floor(now / 1000);
    const saved: TokenRecord = { ...record, issuedAt, expiresAt: issuedAt + this.deps.accessTokenTtl };
    if (!(await this.deps.store.grants.saveToken(this.hash("token", token), saved, this.deps.accessTokenTtl))) {
      throw invalidGrant("err.appDeleted");
    }
    return token;
  }

  /**
   * The first refresh token of a grant whose code was just redeemed, when its scope holds
   * offline_access; undefined otherwise. invalid_grant when the grant was revoked meanwhile.
   */
  async start(code: CodeRecord, grantId: string, now = Date.now()): Promise<string | undefined> {
    const scope = scopeOf(code.scope);
    if (!scope.includes(OFFLINE_ACCESS)) return undefined;
    const record: RefreshRecord = {
      grantId,
      userId: code.userId,
      clientId: code.clientId,
      scope,
      grantExpiresAt: now + this.deps.refreshTokenTtl * 1000,
      ...(code.authTime !== undefined ? { authTime: code.authTime } : {}),
      ...(code.amr !== undefined ? { amr: code.amr } : {}),
      ...(code.sid !== undefined ? { sid: code.sid } : {}),
    };
    const token = randomToken(32);
    if (!(await this.deps.store.grants.startRefresh(this.hash("refresh", token), record, now))) {
      throw invalidGrant("err.codeRevoked");
    }
    return token;
  }

  /**
   * grant_type=refresh_token: the presented token is used up and a new pair is issued. A token
   * used before revokes its whole grant. `scope` may narrow the grant's scopes, never widen them.
   */
  async refresh(input: { refreshToken: string; clientId: string; scope?: string[] | undefined }): Promise<Refreshed> {
    const gone = "err.refreshUnknown";
    if (input.refreshToken.length > 512) throw invalidGrant(gone);
    const presented = this.hash("refresh", input.refreshToken);
    if (input.scope !== undefined) {
      // Checked before the token is used up, so that a bad scope does not cost the client its token.
      const state = await this.deps.store.grants.refreshToken(presented, input.clientId);
      // A used token goes on to the rotation, which finds it reused (a wider scope is no way around that).
      if (state?.active && !input.scope.every((s) => state.record.scope.includes(s))) {
        throw invalidScope("err.scopeWiden");
      }
    }
    const next = randomToken(32);
    const now = Date.now();
    const r = await this.deps.store.grants.rotateRefresh(presented, input.clientId, this.hash("refresh", next), now);
    if (r.kind === "reused") {
      // The grant was revoked: its access tokens' sockets end too.
      const state = await this.deps.store.grants.refreshToken(presented, input.clientId);
      if (state) await this.userAccess.grantChanged(state.grantId);
      throw invalidGrant("err.refreshReused");
    }
    if (r.kind !== "rotated") throw invalidGrant(gone);
    const grant = r.record;
    if (grant.grantExpiresAt <= now) throw invalidGrant(gone);
    const user = await this.deps.store.accounts.byId(grant.userId);
    if (!user || isDisabled(user)) {
      await this.deps.store.grants.revokeGrant(grant.grantId, this.markTtl);
      await this.userAccess.userChanged(grant.userId);
      throw invalidGrant(gone);
    }
    // The grant's scopes, or those of them asked for (in the grant's order; never wider).
    const asked = input.scope;
    const scope = asked ? grant.scope.filter((s) => asked.includes(s)) : grant.scope;
    const accessToken = await this.issueAccessToken(
      { userId: grant.userId, clientId: grant.clientId, codeHash: grant.grantId, scope },
      now,
    );
    return { accessToken, refreshToken: next, expiresIn: this.deps.accessTokenTtl, scope, grant };
  }

  /**
   * RFC 7009: a refresh token of this client revokes its grant (every access and refresh token
   * of it); an access token of this client is revoked alone. Anything else changes nothing.
   */
  /**
   * What a revocation ended, for the audit log: the user, and whether a refresh token (its whole
   * grant) or an access token; undefined when nothing live was found (unknown, expired, rotated
   * away, or another client's).
   */
  async revoke(
    token: string,
    clientId: string,
  ): Promise<{ userId: string; kind: "refresh_token" | "access_token"; m2m?: true } | undefined> {
    if (token.length === 0 || token.length > 512) return undefined;
    const refresh = await this.deps.store.grants.refreshToken(this.hash("refresh", token), clientId);
    if (refresh) {
      await this.deps.store.grants.revokeGrant(refresh.grantId, this.markTtl);
      // Every access token of the grant ended: their sockets too, on every node, before the answer.
      await this.userAccess.grantChanged(refresh.grantId);
      return refresh.active ? { userId: refresh.record.userId, kind: "refresh_token" } : undefined;
    }
    const tokenHash = this.hash("token", token);
    const access = await this.deps.store.grants.token(tokenHash, clientId);
    await this.deps.store.grants.revokeToken(tokenHash, clientId);
    if (access?.m2m) return { userId: access.userId, kind: "access_token", m2m: true };
    if (access) await this.userAccess.userChanged(access.userId);
    return access ? { userId: access.userId, kind: "access_token" } : undefined;
  }

  /** { groups } when the scopes hold "groups" (introspection's answer), else nothing. */
  private async groupsOf(userId: string, scopes: readonly string[]): Promise<{ groups?: string[] }> {
    return scopes.includes("groups") ? { groups: await this.deps.store.groups.groupsOf(userId) } : {};
  }

  /**
   * RFC 7662: what a client may know of one of its own tokens; others are inactive, but for a
   * client credentials token, which a confidential app (`confidential`) may introspect whoever's it
   * is: the service it was sent to asks (docs/http-api.md#client-credentials). It names no user.
   */
  async introspect(token: string, clientId: string, confidential = false): Promise<Introspection> {
    if (token.length === 0 || token.length > 512) return { active: false };
    const dot = token.indexOf(".");
    const named = dot > 0 ? token.slice(0, dot) : "";
    if (confidential && named !== clientId && CLIENT_ID.test(named)) {
      const other = await this.deps.store.grants.token(this.hash("token", token), named);
      return other?.m2m ? this.machine(other) : { active: false };
    }
    const [access, refresh] = await Promise.all([
      this.deps.store.grants.token(this.hash("token", token), clientId),
      this.deps.store.grants.refreshToken(this.hash("refresh", token), clientId),
    ]);
    if (access?.m2m) return this.machine(access);
    if (access && (access.expiresAt === undefined || access.expiresAt > Date.now() / 1000)) {
      const user = await this.deps.store.accounts.byId(access.userId);
      if (!user || isDisabled(user)) return { active: false };
      return {
        active: true,
        scope: scopeOf(access.scope).join(" "),
        client_id: access.clientId,
        sub: user.id,
        username: user.username,
        ...(access.expiresAt !== undefined ? { exp: access.expiresAt } : {}),
        ...(access.issuedAt !== undefined ? { iat: access.issuedAt } : {}),
        token_type: "Bearer",
        ...(await this.groupsOf(user.id, scopeOf(access.scope))),
      };
    }
    if (refresh?.active && refresh.record.grantExpiresAt > Date.now()) {
      const user = await this.deps.store.accounts.byId(refresh.record.userId);
      if (!user || isDisabled(user)) return { active: false };
      return {
        active: true,
        scope: refresh.record.scope.join(" "),
        client_id: refresh.record.clientId,
        sub: user.id,
        username: user.username,
        exp: Math.floor(refresh.record.grantExpiresAt / 1000),
        iat: Math.floor(refresh.issuedAt / 1000),
        token_type: "refresh_token",
        ...(await this.groupsOf(user.id, refresh.record.scope)),
      };
    }
    return { active: false };
  }

  /** A client credentials token's introspection: active while it lasts and its app is enabled. */
  private async machine(access: TokenRecord): Promise<Introspection> {
    if (access.expiresAt === undefined || access.expiresAt <= Date.now() / 1000) return { active: false };
    const app = await this.deps.store.apps.get(access.clientId);
    if (!app || app.disabled === true) return { active: false };
    return {
      active: true,
      scope: scopeOf(access.scope).join(" "),
      client_id: access.clientId,
      sub: access.clientId,
      exp: access.expiresAt,
      ...(access.issuedAt !== undefined ? { iat: access.issuedAt } : {}),
      token_type: "Bearer",
    };
  }

  /**
   * Revokes every grant of the user under every consent (codes, access and refresh tokens), and
   * keeps the consents: a password reset calls this (issue #13).
   */
  async revokeUserGrants(userId: string): Promise<void> {
    await this.deps.store.grants.revokeUserGrants(userId, this.markTtl);
    // Signing out everywhere, disabling, deleting, a password reset: the user's sockets end too.
    await this.userAccess.userChanged(userId);
  }
}
