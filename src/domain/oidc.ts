// OpenID Connect on top of the OAuth code flow (docs/http-api.md#openid-connect): scopes, the
// claims each one reads, ID tokens (RS256 by default, signed with the store's shared keys; domain/keys.ts)
// and the check of an id_token_hint.
import { createHash, randomUUID } from "node:crypto";
import { SignJWT, compactVerify, createLocalJWKSet } from "jose";
import { SigilError } from "../errors.js";
import { isDisabled, type SigningAlg, type Store, type UserRecord } from "../store/port.js";
import { SIGNING_ALGS, type SigningKeys } from "./keys.js";
import { pictureUrl } from "./pictures-url.js";

/** The scopes Sigil knows, in the order it lists them. */

/** The `events` member of a logout token (Back-Channel Logout 1.0 §2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";
/** A logout token's lifetime, seconds: short, as §2.4 advises (its `jti` is new on every attempt). */
const LOGOUT_TOKEN_TTL = 120;
export const SCOPES = ["openid", "profile", "email", "groups", "offline_access", "realtime"] as const;
export type Scope = (typeof SCOPES)[number];

/** The claims each scope reads (discovery's claims_supported, and the consent page's wording). */
export const SCOPE_CLAIMS: Readonly<Record<Scope, readonly string[]>> = {
  openid: ["sub"],
  profile: ["name", "preferred_username", "picture"],
  email: ["email", "email_verified"],
  groups: ["groups"],
  offline_access: [],
  // Lets a signed-in page of the app open a socket as the user (docs/realtime.md#users-sockets).
  realtime: [],
};

/** What the ID token says besides the scope claims. */
export const ID_TOKEN_CLAIMS = ["iss", "aud", "exp", "iat", "auth_time", "nonce", "amr", "at_hash", "sid"];

/**
 * The granted scopes of an authorization request's `scope`: the known values, each once, in
 * SCOPES order (unknown values are ignored). Without `openid` it is a plain OAuth request and
 * gets what §3 gives: ["profile"].
 */
export function grantedScopes(raw: string | undefined): { openid: boolean; scopes: string[] } {
  const asked = new Set((raw ?? "").split(" ").filter(Boolean));
  if (!asked.has("openid")) return { openid: false, scopes: ["profile"] };
  return { openid: true, scopes: SCOPES.filter((s) => asked.has(s)) };
}

/** Whether `granted` covers every scope of `wanted`. */
export const covers = (granted: readonly string[], wanted: readonly string[]) =>
  wanted.every((s) => granted.includes(s));

/**
 * The claims of the granted scopes for a user (userinfo, and the ID token). `groups`: the user's
 * groups (groupsClaim), read only when the scopes hold "groups".
 */
export function scopeClaims(
  user: UserRecord,
  scopes: readonly string[],
  baseUrl: string,
  groups?: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (scopes.includes("profile")) {
    out.name = user.displayName;
    out.preferred_username = user.username;
    out.picture = pictureUrl(baseUrl, user);
  }
  // Email claims only for a user who gave an address; email_verified once its link confirmed it.
  if (scopes.includes("email") && typeof user.email === "string" && user.email !== "") {
    out.email = user.email;
    out.email_verified = user.emailVerified === true;
  }
  // The names of the user's groups, sorted; [] for a user in none (the scope was granted).
  if (scopes.includes("groups")) out.groups = [...(groups ?? [])];
  return out;
}

/** The user's groups when the scopes hold "groups" (one read of the store), else undefined. */
export async function groupsClaim(
  store: Store,
  userId: string,
  scopes: readonly string[],
): Promise<string[] | undefined> {
  return scopes.includes("groups") ? store.groups.groupsOf(userId) : undefined;
}

/**
 * OpenID Connect Core §3.1.3.6: the left half of the hash of the access token, base64url, by the
 * hash of the ID token's alg: SHA-256 for RS256 and ES256, SHA-512 for EdDSA (Ed25519), as
 * node-oidc-provider makes it and oauth4webapi checks its sibling claims c_hash and s_hash.
 */
export function atHash(accessToken: string, alg: SigningAlg): string {
  const d = createHash(alg === "EdDSA" ? "sha512" : "sha256")
    .update(accessToken, "ascii")
    .digest();
  return d.subarray(0, d.length / 2).toString("base64url");
}

/** What an ID token is made from: one grant (a code now; a refresh later). */
export interface IdTokenGrant {
  clientId: string;
  userId: string;
  scope: readonly string[];
  nonce?: string | undefined;
  /** Seconds since the epoch. */
  authTime: number;
  amr: readonly string[];
  /** The signed-in page session's public id (session-ids.ts): the `sid` a logout token names. */
  sid?: string | undefined;
  /** The access token issued beside it (at_hash). */
  accessToken?: string | undefined;
}

/** The facts of a verified id_token_hint. */
export interface IdTokenHint {
  sub: string;
  /** The client it was issued to. */
  aud: string;
}

export interface IdTokensDeps {
  store: Store;
  keys: SigningKeys;
  /** The issuer (BASE_URL), also the base of picture URLs. */
  issuer: string;
  /** ID token lifetime, seconds. */
  ttl: number;
  now?: () => number;
}

export class IdTokens {
  constructor(private readonly deps: IdTokensDeps) {}

  /**
   * Signs the ID token of a grant (the active key's algorithm and `kid`, of the node's active key): what /token adds to
   * an OpenID Connect answer, on a code or a refresh. invalid_grant when the user is gone.
   */
  async sign(g: IdTokenGrant): Promise<string> {
    const [user, groups] = await Promise.all([
      this.deps.store.accounts.byId(g.userId),
      groupsClaim(this.deps.store, g.userId, g.scope),
    ]);
    if (!user || isDisabled(user)) throw new SigilError(400, "invalid_grant", "err.userGone", {});
    const signer = await this.deps.keys.signer();
    const iat = Math.floor((this.deps.now ?? Date.now)() / 1000);
    const claims: Record<string, unknown> = {
      iss: this.deps.issuer,
      sub: user.id,
      aud: g.clientId,
      exp: iat + this.deps.ttl,
      iat,
      auth_time: g.authTime,
      ...(g.nonce !== undefined ? { nonce: g.nonce } : {}),
      amr: [...g.amr],
      ...(g.accessToken !== undefined ? { at_hash: atHash(g.accessToken, signer.alg) } : {}),
      ...(g.sid !== undefined ? { sid: g.sid } : {}),
      ...scopeClaims(user, g.scope, this.deps.issuer, groups),
    };
    return new SignJWT(claims).setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: "JWT" }).sign(signer.key);
  }

  /**
   * An OpenID Connect Back-Channel Logout 1.0 logout token (§2.4) for the app: the user (`sub`),
   * and `sid` when one session ended (docs/events.md#back-channel-logout), the logout event, a new
   * `jti`, no `nonce`, signed like ID tokens (same key, `kid` and algorithm) and typed
   * `logout+jwt`; it lives two minutes.
   */
  async logoutToken(clientId: string, sub: string, sid?: string): Promise<string> {
    const signer = await this.deps.keys.signer();
    const iat = Math.floor((this.deps.now ?? Date.now)() / 1000);
    const claims = {
      iss: this.deps.issuer,
      aud: clientId,
      iat,
      exp: iat + LOGOUT_TOKEN_TTL,
      jti: randomUUID(),
      sub,
      ...(sid !== undefined ? { sid } : {}),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: "logout+jwt" })
      .sign(signer.key);
  }

  /**
   * An id_token_hint this service issued (signature by a published key, our issuer), or null.
   * An expired one still counts (OpenID Connect Core §3.1.2.1: the hint names who signed in).
   */
  async verifyHint(hint: string): Promise<IdTokenHint | null> {
    if (hint.length > 8192) return null;
    try {
      const jwks = createLocalJWKSet(await this.deps.keys.jwks());
      const { payload } = await compactVerify(hint, jwks, { algorithms: SIGNING_ALGS });
      const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
      const aud = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
      if (claims.iss !== this.deps.issuer || typeof claims.sub !== "string" || typeof aud !== "string") return null;
      return { sub: claims.sub, aud };
    } catch (err) {
      if (err instanceof Error && err.name === "StoreUnavailableError") throw err;
      return null;
    }
  }
}
