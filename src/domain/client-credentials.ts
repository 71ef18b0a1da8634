// Client credentials (RFC 6749 §4.4; docs/http-api.md#client-credentials): a confidential app asks
// /token for an access token of its own, no user involved, with scopes an admin allowed it
// (AppRecord.m2mScopes). The token's subject is the app (TokenRecord.m2m, userId = client id); it
// is saved, introspected, revoked and ended with its app like any other access token.
import { SigilError, invalidRequest, invalidScope } from "../errors.js";
import type { AppRecord } from "../store/port.js";
import { FormError } from "./accounts.js";
import type { Grants } from "./grants.js";
import { keyedHash } from "./secrets.js";
import { Remembered } from "../remembered.js";

/**
 * A machine scope: a conservative subset of RFC 6749's scope-token (letters, digits, . _ : / -),
 * so that it reads the same in a URL, a header, a log or a page.
 */
const M2M_SCOPE = /^[A-Za-z0-9._:/-]{1,64}$/;
export const M2M_SCOPES_MAX = 20;
/** Scopes that speak of a user: a token without one must never carry them. */
const USER_SCOPES: ReadonlySet<string> = new Set([
  "openid",
  "offline_access",
  "realtime",
  "profile",
  "email",
  "groups",
]);

/** An admin's list of machine scopes ("a b c", "" clears): the names, deduplicated; FormError otherwise. */
export function checkM2mScopes(raw: string): string[] {
  const trimmed = raw.trim();
  if (trimmed === "") return [];
  if (trimmed.length > 2000) throw new FormError("err.m2mScopes");
  const names = [...new Set(trimmed.split(/\s+/))];
  if (names.length > M2M_SCOPES_MAX || names.some((n) => !M2M_SCOPE.test(n) || USER_SCOPES.has(n))) {
    throw new FormError("err.m2mScopes");
  }
  return names;
}

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

const unauthorizedClient = (id: "err.m2mPublic" | "err.m2mNone") => new SigilError(400, "unauthorized_client", id, {});

/** Apps whose grant id is remembered (a keyed hash per token request otherwise); past it, forgotten at once. */
const GRANT_IDS_KEPT = 10_000;

export class ClientCredentials {
  /** Each app's one grant id (a keyed hash of its client id, the same for ever). */
  private readonly grantIds = new Remembered<string, string>(GRANT_IDS_KEPT);

  constructor(private readonly deps: { grants: Grants; secret: string; accessTokenTtl: number }) {}

  private grantId(clientId: string): string {
    return this.grantIds.get(clientId, () => keyedHash(this.deps.secret, "m2m", clientId));
  }

  /**
   * A token for the authenticated app: every allowed scope, or those asked for (in the admin's
   * order). unauthorized_client for a public client or one with none allowed; invalid_scope when a
   * scope asked for is not allowed.
   */
  async issue(app: AppRecord, rawScope: string | undefined) {
    if (app.public === true) throw unauthorizedClient("err.m2mPublic");
    const allowed = app.m2mScopes ?? [];
    if (allowed.length === 0) throw unauthorizedClient("err.m2mNone");
    if (rawScope !== undefined && (rawScope.length > 2000 || !SCOPE.test(rawScope))) {
      throw invalidRequest("err.scopeFormat");
    }
    const asked = rawScope?.split(" ");
    if (asked && !asked.every((s) => allowed.includes(s))) throw invalidScope("err.m2mScopeNotAllowed");
    const scope = asked ? allowed.filter((s) => asked.includes(s)) : [...allowed];
    const accessToken = await this.deps.grants.issueAccessToken({
      userId: app.clientId,
      clientId: app.clientId,
      // One grant id per app, never marked by a code: the token lives until it expires, is revoked,
      // or its app is deleted or disabled.
      codeHash: this.grantId(app.clientId),
      scope,
      m2m: true,
    });
    return { accessToken, expiresIn: this.deps.accessTokenTtl, scope };
  }
}
