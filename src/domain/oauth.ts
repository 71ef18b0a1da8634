// Authorization codes and access tokens (RFC 6749 §4.1, RFC 7636 PKCE S256). Codes and tokens
// are opaque random strings; the store holds only their keyed hashes.
import { createHash } from "node:crypto";
import { SigilError, insufficientScope, invalidToken } from "../errors.js";
import type { AppRecord, Store, TokenRecord, UserRecord } from "../store/port.js";
import { CLIENT_ID } from "./apps.js";
import { redirectUriMatches } from "./redirect-uris.js";
import { keyedHash, randomToken, sameDigest } from "./secrets.js";

export interface OAuthDeps {
  store: Store;
  secret: string;
  codeTtl: number;
  accessTokenTtl: number;
}

/** RFC 7636 §4.1/4.2: 43–128 unreserved characters. */
export const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

export const invalidGrant = (d: string) => new SigilError(400, "invalid_grant", d);

export class OAuth {
  constructor(private readonly deps: OAuthDeps) {}

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
    /** OpenID Connect requests only (domain/oidc.ts): the granted scopes, nonce, and the sign-in. */
    oidc?: { scope: string[]; nonce?: string | undefined; authTime: number; amr: string[] } | undefined;
  }): Promise<string | null> {
    const code = randomToken(32); // 256 random bits
    const saved = await this.deps.store.grants.saveCode(
      this.hash("code", code),
      {
        clientId: input.clientId,
        redirectUri: input.redirectUri,
        redirectUriGiven: input.redirectUriGiven,
        userId: input.userId,
        ...(input.codeChallenge ? { codeChallenge: input.codeChallenge } : {}),
        ...(input.oidc
          ? {
              scope: input.oidc.scope,
              ...(input.oidc.nonce !== undefined ? { nonce: input.oidc.nonce } : {}),
              authTime: input.oidc.authTime,
              amr: input.oidc.amr,
            }
          : {}),
      },
      this.deps.codeTtl,
      // The code's entry with its consent must outlive the code and any token traded for it.
      this.deps.codeTtl + this.markTtl,
    );
    return saved ? code : null;
  }

  /** Trades a code for an access token; every failure is invalid_grant (a replay also revokes). */
  async redeem(input: {
    code: string;
    clientId: string;
    redirectUri: string | undefined;
    codeVerifier: string | undefined;
  }) {
    if (input.code.length > 512) throw invalidGrant("The code is unknown, expired or already used.");
    const codeHash = this.hash("code", input.code);
    const taken = await this.deps.store.grants.takeCode(codeHash, this.markTtl);
    if (taken.kind === "replay")
      throw invalidGrant("The code was already used; the tokens issued from it are revoked.");
    if (taken.kind === "revoked")
      throw invalidGrant("The code was revoked (already used, or the user withdrew the consent).");
    if (taken.kind === "unknown") throw invalidGrant("The code is unknown, expired or already used.");
    const code = taken.code;
    if (code.clientId !== input.clientId) throw invalidGrant("The code was issued to another client.");
    const redirectOk =
      input.redirectUri === undefined ? !code.redirectUriGiven : input.redirectUri === code.redirectUri;
    if (!redirectOk) throw invalidGrant("The redirect_uri does not match the authorization request.");
    if (code.codeChallenge === undefined) {
      if (input.codeVerifier !== undefined) throw invalidGrant("A code_verifier was sent but no code_challenge was.");
    } else {
      if (input.codeVerifier === undefined || !PKCE_VALUE.test(input.codeVerifier)) {
        throw invalidGrant("The code_verifier is missing or malformed.");
      }
      const s256 = createHash("sha256").update(input.codeVerifier).digest("base64url");
      const same =
        Buffer.from(s256).length === Buffer.from(code.codeChallenge).length &&
        sameDigest(Buffer.from(s256).toString("hex"), Buffer.from(code.codeChallenge).toString("hex"));
      if (!same) throw invalidGrant("The code_verifier does not match the code_challenge.");
    }
    const record: TokenRecord = {
      userId: code.userId,
      clientId: code.clientId,
      codeHash,
      ...(code.scope ? { scope: code.scope } : {}),
    };
    const accessToken = await this.issueAccessToken(record);
    return { accessToken, expiresIn: this.deps.accessTokenTtl, code };
  }

  /**
   * Saves and returns a new access token for a grant. An OpenID Connect token (its scope holds
   * openid) names its client before a "." (`<client_id>.<256 random bits>`): /userinfo gets no
   * client_id header, and the store files tokens by client. Plain OAuth tokens stay as §3 made them.
   */
  async issueAccessToken(record: TokenRecord): Promise<string> {
    const random = randomToken(32);
    const token = record.scope?.includes("openid") ? `${record.clientId}.${random}` : random;
    await this.deps.store.grants.saveToken(this.hash("token", token), record, this.deps.accessTokenTtl);
    return token;
  }

  /** /userinfo: the token's record and user when it is a live OpenID Connect token; invalid_token otherwise. */
  async openIdTokenUser(token: string): Promise<{ token: TokenRecord; user: UserRecord }> {
    const dot = token.indexOf(".");
    const clientId = dot > 0 ? token.slice(0, dot) : "";
    if (!this.plausible(token, clientId)) throw invalidToken();
    const found = await this.deps.store.grants.tokenUser(this.hash("token", token), clientId);
    if (!found || !found.token.scope?.includes("openid")) throw invalidToken();
    return found;
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
  /** Withdraws the consent and revokes at once the app's tokens for the user and its unredeemed codes. */
  async withdrawConsent(userId: string, clientId: string): Promise<void> {
    if (!CLIENT_ID.test(clientId)) return;
    await this.deps.store.grants.withdrawConsent(userId, clientId, this.markTtl);
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
    if (!found) throw invalidToken();
    // An OpenID Connect grant without "profile" (say "openid email") did not allow reading it.
    if (found.token.scope && !found.token.scope.includes("profile")) throw insufficientScope("profile");
    return found.user;
  }

  private plausible(token: string, clientId: string): boolean {
    return token.length > 0 && token.length <= 512 && CLIENT_ID.test(clientId);
  }
}
