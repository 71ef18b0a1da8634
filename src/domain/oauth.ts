// Authorization codes and access tokens (RFC 6749 §4.1, RFC 7636 PKCE S256). Codes and tokens
// are opaque random strings; the store holds only their keyed hashes.
import type { IdentityEvents } from "./identity-events.js";
import { createHash } from "node:crypto";
import { insufficientScope, invalidGrant, invalidToken } from "../errors.js";
import {
  isDisabled,
  type AppRecord,
  type CodeRecord,
  type Store,
  type TokenRecord,
  type UserRecord,
} from "../store/port.js";
import { CLIENT_ID } from "./apps.js";
import { ClientCredentials } from "./client-credentials.js";
import { DeviceFlow } from "./device-flow.js";
import { Grants } from "./grants.js";
import { covers, groupsClaim } from "./oidc.js";
import { redirectUriMatches } from "./redirect-uris.js";
import { keyedHash, randomToken, sameDigest } from "./secrets.js";

export interface OAuthDeps {
  store: Store;
  secret: string;
  codeTtl: number;
  accessTokenTtl: number;
  /** REFRESH_TOKEN_TTL (docs/settings.md). */
  refreshTokenTtl: number;
  /** DEVICE_CODE_TTL (docs/settings.md); absent: 600. */
  deviceCodeTtl?: number;
  /** Tells the app that a user withdrew their consent (docs/events.md). */
  identity?: IdentityEvents;
}

/** RFC 7636 §4.1/4.2: 43–128 unreserved characters. */
export const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/** What a consent given before OpenID Connect (or to a plain OAuth request) allows. */
const LEGACY_SCOPES: readonly string[] = ["openid", "profile"];

export class OAuth {
  /** Refresh tokens, revocation, introspection (domain/grants.ts). */
  readonly grants: Grants;
  /** grant_type=client_credentials (domain/client-credentials.ts). */
  readonly clientCredentials: ClientCredentials;
  /** Device authorization (domain/device-flow.ts). */
  readonly device: DeviceFlow<Awaited<ReturnType<OAuth["redeem"]>>>;

  constructor(private readonly deps: OAuthDeps) {
    this.grants = new Grants(deps);
    this.clientCredentials = new ClientCredentials({ ...deps, grants: this.grants });
    this.device = new DeviceFlow({ store: deps.store, secret: deps.secret, ttl: deps.deviceCodeTtl ?? 600 }, this);
  }

  private hash(kind: string, value: string): string {
    return keyedHash(this.deps.secret, kind, value);
  }

  /** The redirect URL the request names (or the app's only one), or undefined when unregistered. */
  static resolveRedirect(app: AppRecord, given: string | undefined): string | undefined {
    if (given === undefined) return app.redirectUris.length === 1 ? app.redirectUris[0] : undefined;
    return app.redirectUris.some((r) => redirectUriMatches(r, given)) ? given : undefined;
  }

  /**
   * How long a "taken" or "revoked" mark is kept: longer than any token issued from its code.
   */
  private get markTtl(): number {
    return this.deps.accessTokenTtl + 60;
  }

  /**
   * A new code for a user who consented to the app; null when the consent is not there (it was
   * withdrawn meanwhile): a code is only ever issued under a consent that a withdrawal will see.
   */
  async issueCode(input: {
    clientId: string;
    redirectUri: string;
    redirectUriGiven: boolean;
    userId: string;
    codeChallenge?: string | undefined;
    /** Granted scopes (absent: ["profile"]). */
    scope?: string[] | undefined;
    /** OpenID Connect requests only (domain/oidc.ts): the nonce, and when and how the user signed in. */
    nonce?: string | undefined;
    authTime?: number | undefined;
    amr?: string[] | undefined;
    /** The page session's public id (session-ids.ts), the ID token's `sid`. */
    sid?: string | undefined;
  }): Promise<string | null> {
    const code = randomToken(32); // 256 random bits
    const record: CodeRecord = {
      clientId: input.clientId,
      redirectUri: input.redirectUri,
      redirectUriGiven: input.redirectUriGiven,
      userId: input.userId,
      ...(input.codeChallenge ? { codeChallenge: input.codeChallenge } : {}),
      ...(input.scope ? { scope: input.scope } : {}),
      ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
      ...(input.authTime !== undefined ? { authTime: input.authTime } : {}),
      ...(input.amr !== undefined ? { amr: input.amr } : {}),
      ...(input.sid !== undefined ? { sid: input.sid } : {}),
    };
    const saved = await this.deps.store.grants.saveCode(
      this.hash("code", code),
      record,
      this.deps.codeTtl,
      // The code's entry with its consent must outlive the code and any token (refresh tokens too) traded for it.
      this.grants.registrationTtl(record.scope),
    );
    return saved ? code : null;
  }

  /** Trades a code for an access token; every failure is invalid_grant (a replay also revokes). */
  async redeem(input: {
    code: string;
    clientId: string;
    redirectUri: string | undefined;
    codeVerifier: string | undefined;
    /** A public client: its codes must carry a PKCE challenge (docs/http-api.md#public-clients). */
    publicClient?: boolean;
  }) {
    if (input.code.length > 512) throw invalidGrant("err.codeUnknown");
    const codeHash = this.hash("code", input.code);
    const taken = await this.deps.store.grants.takeCode(codeHash, this.markTtl);
    if (taken.kind === "replay") {
      // The replay revoked the grant: the sockets of its access token end too.
      await this.grants.userAccess.grantChanged(codeHash);
      throw invalidGrant("err.codeReused");
    }
    if (taken.kind === "revoked") throw invalidGrant("err.codeRevoked");
    if (taken.kind === "unknown") throw invalidGrant("err.codeUnknown");
    const code = taken.code;
    if (code.clientId !== input.clientId) throw invalidGrant("err.codeOtherClient");
    const redirectOk =
      input.redirectUri === undefined ? !code.redirectUriGiven : input.redirectUri === code.redirectUri;
    if (!redirectOk) throw invalidGrant("err.redirectMismatch");
    if (code.codeChallenge === undefined) {
      if (input.publicClient) throw invalidGrant("err.pkceRequired");
      if (input.codeVerifier !== undefined) throw invalidGrant("err.verifierWithoutChallenge");
    } else {
      if (input.codeVerifier === undefined || !PKCE_VALUE.test(input.codeVerifier)) {
        throw invalidGrant("err.verifierMalformed");
      }
      const s256 = createHash("sha256").update(input.codeVerifier).digest("base64url");
      const same =
        Buffer.from(s256).length === Buffer.from(code.codeChallenge).length &&
        sameDigest(Buffer.from(s256).toString("hex"), Buffer.from(code.codeChallenge).toString("hex"));
      if (!same) throw invalidGrant("err.verifierMismatch");
    }
    const record: TokenRecord = {
      userId: code.userId,
      clientId: code.clientId,
      codeHash,
      ...(code.scope ? { scope: code.scope } : {}),
    };
    const token = await this.grants.issueAccessToken(record);
    // With offline_access the grant holds refresh tokens from here on (domain/grants.ts).
    const refreshToken = await this.grants.start(code, codeHash);
    return { accessToken: token, expiresIn: this.deps.accessTokenTtl, refreshToken, code };
  }

  grantConsent(userId: string, clientId: string) {
    return this.deps.store.grants.grantConsent(userId, clientId);
  }
  hasConsent(userId: string, clientId: string) {
    return this.deps.store.grants.hasConsent(userId, clientId);
  }
  consents(userId: string) {
    return this.deps.store.grants.consents(userId);
  }

  /** The scopes the user's consent to the app allows; null without a consent. */
  private async consentScopes(userId: string, clientId: string): Promise<readonly string[] | null> {
    if (!(await this.hasConsent(userId, clientId))) return null;
    return (await this.deps.store.consentScopes.get(userId, clientId)) ?? LEGACY_SCOPES;
  }

  /**
   * Whether the user's consent to the app covers the scopes asked (a consent from before OpenID
   * Connect: openid and profile). The plain OAuth path asks for profile like any other scope: a
   * consent to "openid email" alone does not let it through silently.
   */
  async consentCovers(userId: string, clientId: string, asked: readonly string[]): Promise<boolean> {
    const granted = await this.consentScopes(userId, clientId);
    return granted !== null && covers(granted, asked);
  }

  /**
   * The user allows the app these scopes (undefined: a plain OAuth request, which allows what
   * openid and profile read), added to what they still allow; a withdrawn consent's old scopes
   * are forgotten. Then the consent is given.
   */
  async allow(userId: string, clientId: string, scopes: readonly string[] | undefined): Promise<void> {
    const before = (await this.consentScopes(userId, clientId)) ?? [];
    const now = scopes ?? LEGACY_SCOPES;
    await this.deps.store.consentScopes.set(userId, clientId, [...new Set([...before, ...now])]);
    await this.grantConsent(userId, clientId);
  }

  /**
   * Withdraws the consent and revokes at once the app's tokens for the user and its unredeemed
   * codes. Whether there was a consent to withdraw (the audit log records only those); then the
   * app hears `consent.withdrawn`, unless `tell` is false (an account's deletion tells of that).
   */
  async withdrawConsent(userId: string, clientId: string, tell = true): Promise<boolean> {
    if (!CLIENT_ID.test(clientId)) return false;
    // Of withdrawals at once, the one that removed the consent says so (and the app hears it once).
    const removed = await this.deps.store.grants.withdrawConsent(userId, clientId, this.markTtl);
    // Told by every call, not only the one that removed it: none answers before the sockets hear.
    await this.grants.userAccess.userChanged(userId);
    if (removed && tell) this.deps.identity?.emit("consent.withdrawn", userId, [clientId]);
    return removed;
  }

  /** The token's record when it is live and was issued to clientId; invalid_token otherwise. */
  async verifyToken(token: string, clientId: string): Promise<TokenRecord> {
    if (!this.plausible(token, clientId)) throw invalidToken();
    const rec = await this.deps.store.grants.token(this.hash("token", token), clientId);
    if (!rec) throw invalidToken();
    return rec;
  }

  /**
   * The token's user, when the token is live, was issued to clientId and that app still exists (a
   * deleted app's tokens stop working at once); invalid_token otherwise.
   */
  async tokenUser(token: string, clientId: string): Promise<UserRecord> {
    if (!this.plausible(token, clientId)) throw invalidToken();
    const found = await this.deps.store.grants.tokenUser(this.hash("token", token), clientId);
    // A disabled user's tokens were revoked; this also refuses one issued in a race with that. A
    // client credentials token has no user at all.
    if (!found || found.token.m2m || isDisabled(found.user)) throw invalidToken();
    // An OpenID Connect grant without "profile" (say "openid email") did not allow reading it.
    if (found.token.scope && !found.token.scope.includes("profile")) throw insufficientScope("profile");
    return found.user;
  }

  /**
   * /userinfo: the token's record and user when it is a live OpenID Connect token; invalid_token
   * otherwise. Such a token names its client before a "." (Grants.issueAccessToken).
   */
  async openIdTokenUser(
    token: string,
  ): Promise<{ token: TokenRecord; user: UserRecord; groups: string[] | undefined }> {
    const dot = token.indexOf(".");
    const clientId = dot > 0 ? token.slice(0, dot) : "";
    if (!this.plausible(token, clientId)) throw invalidToken();
    const found = await this.deps.store.grants.tokenUser(this.hash("token", token), clientId);
    if (!found || found.token.m2m || !found.token.scope?.includes("openid") || isDisabled(found.user)) {
      throw invalidToken();
    }
    return { ...found, groups: await groupsClaim(this.deps.store, found.user.id, found.token.scope) };
  }

  private plausible(token: string, clientId: string): boolean {
    return token.length > 0 && token.length <= 512 && CLIENT_ID.test(clientId);
  }
}
