// ---- Sign-in (docs/http-api.md#sign-in-with-sigil, #pages): accounts, sessions, apps, grants (consents, codes, tokens).
import type { AppEventEndpoints } from "./deliveries.js";

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
  /** Optional email address, its domain lower-cased (domain/email.ts); unique only once confirmed. */
  email?: string;
  /** Whether the address was confirmed by its emailed link (scope email: email_verified). */
  emailVerified?: boolean;
  /** The page language of the user's last email request: the language of the mails Sigil sends them. */
  locale?: string;
  /** An administrator (§14): may open {auth_url}/admin. Set only by the CLI (users create --admin, users set-admin). */
  admin?: boolean;
  /**
   * Set by an operator (`sigil users disable`, AccountLife.disable): the user cannot sign in by any
   * way, and their sessions and tokens were ended. Absent (or false): the account works.
   */
  disabled?: boolean;
  /**
   * Made on /signup while SIGNUP_EMAIL_DOMAINS was set: the account signs in to apps (and registers
   * apps) only while its address is confirmed (mustConfirmEmailFirst, domain/email.ts). Absent: no
   * such hold (accounts made by the operator, or before the setting).
   */
  confirmEmailFirst?: boolean;
}

/** Whether the account was disabled by an operator (UserRecord.disabled). */
export const isDisabled = (user: UserRecord): boolean => user.disabled === true;

/** A change of a user's record (AccountStore.update): the new record, or undefined for none. */
export type UserChange = (user: UserRecord) => UserRecord | undefined;

/** The record change() makes of current, keeping its id and username (both stores). */
export function changedUser(current: UserRecord, change: UserChange): UserRecord | undefined {
  const next = change(structuredClone(current));
  return next && { ...next, id: current.id, username: current.username };
}

export interface AccountStore {
  /** Creates the user; false when the username is taken. */
  create(user: UserRecord): Promise<boolean>;
  byId(id: string): Promise<UserRecord | null>;
  byUsername(username: string): Promise<UserRecord | null>;
  /**
   * Changes an existing user's record in one atomic step, so that changes sent at once are never
   * lost: change gets the record as stored and returns the new one, or undefined to leave it as it
   * is. It may be called more than once (the Redis store runs it again when another write came
   * between its read and its write), so it must be synchronous and do nothing else. The id and
   * username never change. The record as stored after, or null (nothing written) when there is no
   * such user, or no longer.
   */
  update(id: string, change: UserChange): Promise<UserRecord | null>;
  /**
   * Deletes the user, its picture, and its username's claim (the name is free again); true for
   * the one call that deleted it (of any number at once), false when it was gone already.
   */
  delete(user: UserRecord): Promise<boolean>;
  savePicture(id: string, data: Buffer): Promise<void>;
  picture(id: string): Promise<Buffer | null>;
  /**
   * A page of users in username order (the CLI's users list, an admin's user list): at most
   * limit users whose username comes after `after` (none: from the first) and, with query, that
   * the query finds: it begins a word of their username, display name or email (normalized by the
   * caller, store/user-search.ts). Fewer than limit: there are no more. Both stores walk an
   * ordered index of usernames (no full sort), so a page without query reads about limit records;
   * a query reads the index of search words, then only the records it points at.
   */
  list(opts: UserListOptions): Promise<UserRecord[]>;
  /**
   * Puts a stored user in the indexes list() reads, when it is not there (data version 2's
   * migration: a Redis store of version 1 has no username index; version 4's: no store before it
   * has the index of search words). Idempotent; reads the stored record (user names which);
   * nothing for a user no longer stored.
   */
  reindex(user: UserRecord): Promise<void>;
}

export interface UserListOptions {
  /** Normalized (store/user-search.ts normalizeSearch); empty or absent: every user. */
  query?: string;
  /** The last username of the previous page (exclusive). */
  after?: string;
  limit: number;
}

/** Whether the user matches a normalized query (UserListOptions.query): prefix of a word (store/user-search.ts). */
export { normalizeSearch, userMatches } from "../user-search.js";

/** How many index entries a store reads at a time while a query skips users that do not match. */
export const USER_LIST_BATCH = 500;

export interface AppRecord extends AppEventEndpoints {
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
  /**
   * Restricted to these groups (names, sorted; domain/groups.ts): only their members may sign in to
   * it. Absent: everyone.
   */
  groups?: string[];
  /** Set by an admin: first-party (no consent page); disabled (tokens and sign-ins refused). */
  trusted?: boolean;
  disabled?: boolean;
  /**
   * Scopes an admin allowed the app's client credentials tokens (domain/client-credentials.ts).
   * Absent or empty: the app cannot use that grant.
   */
  m2mScopes?: string[];
  createdAt: number;
}

/**
 * The origin a public client's redirect URL lets call /token and /revoke from a browser (CORS), as
 * publicOriginKnown looks it up: the URL's origin, but a loopback one without its port (a native
 * app's loopback redirect matches any port, RFC 8252 §7.3, so its pages may run on any port too).
 * undefined for what no browser sends as an Origin.
 */
export function corsOriginKey(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return undefined;
  if (u.protocol === "http:" && (u.hostname === "127.0.0.1" || u.hostname === "[::1]")) return `http://${u.hostname}`;
  return u.origin;
}

/** A change of an app's record (AppStore.update): the new record, or undefined for none. */
export type AppChange = (app: AppRecord) => AppRecord | undefined;

/** The record change() makes of current, keeping its client id (both stores). */
export function changedApp(current: AppRecord, change: AppChange): AppRecord | undefined {
  const next = change(structuredClone(current));
  return next && { ...next, clientId: current.clientId };
}

export interface AppStore {
  create(app: AppRecord): Promise<void>;
  get(clientId: string): Promise<AppRecord | null>;
  /**
   * Changes an existing app's record in one atomic step, as AccountStore.update does a user's: an
   * owner's edit and an operator's disabling sent at once both hold. change gets the record as
   * stored and returns the new one (or undefined: nothing to write); it may run more than once, so
   * it must be synchronous and do nothing else. The client id never changes; a public client's
   * origins (CORS) follow its redirect URLs. The record as stored after, or null (nothing written)
   * when there is no such app.
   */
  update(clientId: string, change: AppChange): Promise<AppRecord | null>;
  delete(clientId: string): Promise<void>;
  listByOwner(ownerId: string): Promise<AppRecord[]>;
  /**
   * Every app, in client id order, a page at a time: up to limit apps whose client id comes after
   * `after` (exclusive). Fewer than limit: there are no more. Both stores walk an ordered index.
   */
  list(opts: { after?: string; limit: number }): Promise<AppRecord[]>;
  /**
   * Puts a stored app in the index list() walks, when it is not there (data version 3's
   * migration). Idempotent; nothing for an app no longer stored. Embedded: nothing to do.
   */
  reindex(app: AppRecord): Promise<void>;
  /**
   * Whether a registered public client has a redirect URL on this origin ("https://app.example"):
   * the CORS preflight of /token and /revoke, which carries no client_id, asks this.
   */
  publicOriginKnown(origin: string): Promise<boolean>;
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
  /** The signed-in page session's public id (domain/session-ids.ts): the ID token's `sid`. */
  sid?: string;
}

export interface TokenRecord {
  userId: string;
  clientId: string;
  /** Hash of the code the token was issued from (its replay revokes the token). */
  codeHash: string;
  /** Granted scopes; absent on tokens from before OpenID Connect: ["profile"]. */
  scope?: string[];
  /** When it was issued and when it ends (seconds since the epoch), for introspection. */
  issuedAt?: number;
  expiresAt?: number;
  /** A client credentials token: no user, its subject is the app (userId holds the client id). */
  m2m?: true;
}

/**
 * A grant: what one redeemed code began. Its id is the code's hash, so the code's "revoked" mark
 * (a replay, a withdrawn consent, a reused refresh token, a revocation) ends every access and
 * refresh token of the grant at once. With offline_access it holds a chain of refresh tokens of
 * which only the newest works (rotation); the mark then lives as long as the chain may.
 */
export interface RefreshRecord {
  /** The hash of the code the grant began with. */
  grantId: string;
  userId: string;
  clientId: string;
  /** The grant's scopes: a refresh may narrow an access token's, never these. */
  scope: string[];
  /** When the grant's refresh tokens end (ms since the epoch): REFRESH_TOKEN_TTL after the sign-in. */
  grantExpiresAt: number;
  /** Of the sign-in that began the grant, for ID tokens issued on a refresh. */
  authTime?: number;
  amr?: string[];
  sid?: string;
}

/**
 * A refresh token as revocation and introspection see it: live, with its record and when this
 * token of the chain was issued (ms since the epoch); or no longer (rotated, or its grant revoked),
 * with its grant alone: a rotated token keeps only what reuse detection needs, so that a chain
 * rotated every hour for a month stays small.
 */
export type RefreshState =
  { active: true; grantId: string; record: RefreshRecord; issuedAt: number } | { active: false; grantId: string };

export type RotateResult =
  | { kind: "rotated"; record: RefreshRecord }
  /** The token was rotated before: this call revoked its grant (reuse detection). */
  | { kind: "reused" }
  /** The grant was revoked before. */
  | { kind: "revoked" }
  /** Unknown, past its grant's end, or another client's (then left as it was). */
  | { kind: "unknown" };

/**
 * Every record a GrantStore (and the ConsentScopeStore) keeps names an app that exists: a write
 * for an app that does not exist, or whose deletion began, saves nothing (or undoes itself) and
 * says so. forgetApp, called once the app is deleted, removes what was written before.
 */
export interface GrantStore {
  /** Records the consent; false (nothing kept) when the app does not exist. */
  grantConsent(userId: string, clientId: string): Promise<boolean>;
  hasConsent(userId: string, clientId: string): Promise<boolean>;
  consents(userId: string): Promise<string[]>;
  /**
   * Withdraws the consent and revokes, at once and for every node, what was issued under it: each
   * code saved for this user and app (see saveCode) gets the same "revoked" mark as a replayed code
   * — an unredeemed one can no longer be taken, and the tokens issued from a redeemed one are
   * refused. Idempotent: true for the one call that removed the consent; markTtlSeconds as for takeCode.
   */
  withdrawConsent(userId: string, clientId: string, markTtlSeconds: number): Promise<boolean>;

  /**
   * Saves a code while the user's consent to code.clientId holds, and registers it with that
   * consent (for withdrawConsent) for grantTtlSeconds (≥ the code's TTL + the token lifetime).
   * The check and the registration are one atomic step, so a withdrawal either sees the code or
   * comes first; false (nothing saved) when there is no consent, or no app.
   */
  saveCode(codeHash: string, code: CodeRecord, ttlSeconds: number, grantTtlSeconds: number): Promise<boolean>;
  /**
   * Takes a code for its one use: "first" with the record (the code is gone after), "replay" when
   * it was taken before (the tokens issued from it, the whole grant, are revoked by this call; the
   * mark keeps how long it lives, as long as the grant's refresh tokens), "revoked" when it
   * was revoked already (a replay before, or a withdrawn consent), or "unknown".
   * markTtlSeconds: how long the "taken" mark outlives the code (≥ the token lifetime).
   */
  takeCode(
    codeHash: string,
    markTtlSeconds: number,
  ): Promise<{ kind: "first"; code: CodeRecord } | { kind: "replay" } | { kind: "revoked" } | { kind: "unknown" }>;

  /** Saves an access token; false (nothing saved) when its app does not exist. */
  saveToken(tokenHash: string, token: TokenRecord, ttlSeconds: number): Promise<boolean>;
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
  /** Deletes one access token when it was issued to clientId (RFC 7009); otherwise nothing. */
  revokeToken(tokenHash: string, clientId: string): Promise<void>;

  /**
   * Saves the first refresh token of a grant (record.grantId, a code taken just before) and keeps
   * the grant's mark as long as record.grantExpiresAt, so that a replay of its code or a
   * revocation still ends the chain. false (nothing saved) when the grant was revoked meanwhile,
   * or deleted with its app.
   */
  startRefresh(refreshHash: string, record: RefreshRecord, now: number): Promise<boolean>;
  /**
   * Rotation, atomic per token: the live refresh token refreshHash of clientId is used up and
   * nextHash takes its place (same record, issued at now). Any number of concurrent calls with one
   * token: exactly one "rotated"; the others find it used, "reused", and revoke the grant.
   * "unknown" (nothing kept of nextHash) when the app was deleted meanwhile.
   */
  rotateRefresh(refreshHash: string, clientId: string, nextHash: string, now: number): Promise<RotateResult>;
  /** The refresh token when it is clientId's (live, rotated or revoked) and its grant has not ended, or null. */
  refreshToken(refreshHash: string, clientId: string): Promise<RefreshState | null>;
  /**
   * Revokes every token of a grant: sets its mark to "revoked" (keeping how long the mark lives,
   * or markTtlSeconds when it had none). Idempotent.
   */
  revokeGrant(grantId: string, markTtlSeconds: number): Promise<void>;
  /**
   * Revokes every grant of the user, under every consent (a password reset), keeping the
   * consents. Codes not yet taken are revoked too. Idempotent; markTtlSeconds as for revokeGrant.
   */
  revokeUserGrants(userId: string, markTtlSeconds: number): Promise<void>;
  /**
   * Deletes every access and refresh token record issued to the user (account deletion, after
   * revokeUserGrants and the consents' withdrawal), so that no record naming the user is left.
   */
  forgetUserTokens(userId: string): Promise<void>;
  /**
   * Deletes every record issued for the app (after apps.delete): every user's consent to it and
   * its scopes, its codes with their marks, its access and refresh tokens, and their entries in
   * the users' indexes. A write for the app still in flight saves nothing after this, so that no
   * record about a deleted app outlives its deletion. Idempotent.
   */
  forgetApp(clientId: string): Promise<void>;
}
