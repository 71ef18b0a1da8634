// ---- Sign-in (docs/http-api.md#sign-in-with-sigil, docs/http-api.md#pages): accounts, sessions,
// apps and grants (consents, codes, access tokens).

export interface UserRecord {
  id: string;
  /** Lower-cased; unique. */
  username: string;
  displayName: string;
  /** "scrypt$N$r$p$salt$hash" — never the password. */
  passwordHash: string;
  /** Set once a picture was uploaded; bumped on each upload (cache busting). */
  picture?: { type: string; version: number };
  createdAt: number;
}

export interface AccountStore {
  /** Creates the user; false when the username is taken. */
  create(user: UserRecord): Promise<boolean>;
  byId(id: string): Promise<UserRecord | null>;
  byUsername(username: string): Promise<UserRecord | null>;
  /** Replaces the record of an existing user (the username never changes). */
  update(user: UserRecord): Promise<void>;
  savePicture(id: string, data: Buffer): Promise<void>;
  picture(id: string): Promise<Buffer | null>;
}

export interface SessionStore {
  get(sid: string): Promise<string | null>;
  set(sid: string, data: string, ttlSeconds: number): Promise<void>;
  destroy(sid: string): Promise<void>;
}

export interface AppRecord {
  clientId: string;
  ownerId: string;
  name: string;
  redirectUris: string[];
  /** Keyed hash of the current secret. */
  secretHash: string;
  /** The previous secret during its grace period. */
  previousSecretHash?: string;
  previousSecretUntil?: number;
  /**
   * A public client (browser or mobile app, docs/http-api.md#openid-connect): no secret (secretHash
   * is ""), authenticates with client_id alone and must use PKCE S256. Absent: confidential.
   */
  public?: boolean;
  /** Registered RP-initiated logout destinations (exact match, like redirectUris). */
  postLogoutRedirectUris?: string[];
  /** The app's homepage, shown (as its host) on the consent page. */
  homepage?: string;
  createdAt: number;
}

export interface AppStore {
  create(app: AppRecord): Promise<void>;
  get(clientId: string): Promise<AppRecord | null>;
  update(app: AppRecord): Promise<void>;
  delete(clientId: string): Promise<void>;
  listByOwner(ownerId: string): Promise<AppRecord[]>;
}

export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  /** false when the authorization request left redirect_uri out (then /token may too). */
  redirectUriGiven: boolean;
  userId: string;
  codeChallenge?: string;
  /** Granted scopes (space-free tokens); absent on codes from before OpenID Connect: ["profile"]. */
  scope?: string[];
  /** The authorization request's nonce, echoed in the ID token. */
  nonce?: string;
  /** When the user last authenticated (seconds since the epoch), for auth_time / max_age. */
  authTime?: number;
  /** RFC 8176 authentication methods of that sign-in (["pwd"], ["pwd","otp","mfa"], ["hwk","user"]). */
  amr?: string[];
}

export interface TokenRecord {
  userId: string;
  clientId: string;
  /** Hash of the code the token was issued from (its replay revokes the token). */
  codeHash: string;
  /** Granted scopes; absent on tokens from before OpenID Connect: ["profile"]. */
  scope?: string[];
}

export interface GrantStore {
  grantConsent(userId: string, clientId: string): Promise<void>;
  hasConsent(userId: string, clientId: string): Promise<boolean>;
  consents(userId: string): Promise<string[]>;
  /**
   * Withdraws the consent and revokes, at once and for every node, what was issued under it: each
   * code saved for this user and app (see saveCode) gets the same "revoked" mark as a replayed code
   * — an unredeemed one can no longer be taken, and the tokens issued from a redeemed one are
   * refused. Idempotent; markTtlSeconds as for takeCode.
   */
  withdrawConsent(userId: string, clientId: string, markTtlSeconds: number): Promise<void>;

  /**
   * Saves a code while the user's consent to code.clientId holds, and registers it with that
   * consent (for withdrawConsent) for grantTtlSeconds (≥ the code's TTL + the token lifetime).
   * The check and the registration are one atomic step, so a withdrawal either sees the code or
   * comes first; false (nothing saved) when there is no consent.
   */
  saveCode(codeHash: string, code: CodeRecord, ttlSeconds: number, grantTtlSeconds: number): Promise<boolean>;
  /**
   * Takes a code for its one use: "first" with the record (the code is gone after), "replay" when
   * it was taken before (the tokens issued from it are revoked by this call), "revoked" when it
   * was revoked already (a replay before, or a withdrawn consent), or "unknown".
   * markTtlSeconds: how long the "taken" mark outlives the code (≥ the token lifetime).
   */
  takeCode(
    codeHash: string,
    markTtlSeconds: number,
  ): Promise<{ kind: "first"; code: CodeRecord } | { kind: "replay" } | { kind: "revoked" } | { kind: "unknown" }>;

  saveToken(tokenHash: string, token: TokenRecord, ttlSeconds: number): Promise<void>;
  /**
   * The token, or null when unknown, expired, revoked through its code (a replay, or a withdrawn
   * consent), or issued to another client.
   */
  token(tokenHash: string, clientId: string): Promise<TokenRecord | null>;
  /**
   * What GET /auth/user needs: the token (as token() finds it) with its user, or null when either
   * is missing or the token's app was deleted. The Redis store reads the token and the app in one
   * MGET (same hash tag), then the revocation mark and the user together: two round trips.
   */
  tokenUser(tokenHash: string, clientId: string): Promise<{ token: TokenRecord; user: UserRecord } | null>;
}
