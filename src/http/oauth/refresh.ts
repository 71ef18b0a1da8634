// POST {base_url}/token with grant_type=refresh_token (docs/http-api.md#refresh-tokens, RFC 6749 §6):
// the presented refresh token is used up and a new access token and refresh token come back; a
// used one presented again revokes its grant (domain/grants.ts).
import type { OAuth } from "../../domain/oauth.js";
import type { AppRecord, RefreshRecord } from "../../store/port.js";
import { invalidRequest } from "../../errors.js";
import type { TokenResponse } from "../../protocol.js";
import { str } from "./fields.js";

/**
 * Signs the ID token of a refresh response (OpenID Connect Core §12.2) when the grant's scope
 * holds openid; undefined leaves it out. Wired by whoever owns the signing keys: without it a
 * refresh answers without id_token. auth_time and amr are the sign-in's, kept in the grant; no
 * nonce. With domain/oidc.ts's IdTokens: `(i) => idTokens.sign({ clientId: i.grant.clientId,
 * userId: i.grant.userId, scope: i.scope, authTime: i.grant.authTime ?? now, amr: i.grant.amr ??
 * ["pwd"], accessToken: i.accessToken })`.
 */
export type IdTokenForRefresh = (input: {
  grant: RefreshRecord;
  accessToken: string;
  scope: string[];
}) => Promise<string | undefined>;

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces (/device_authorization's too). */
export const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

export async function refreshGrant(
  deps: { oauth: OAuth; idTokenForRefresh?: IdTokenForRefresh | undefined },
  app: AppRecord,
  body: Record<string, unknown>,
): Promise<TokenResponse & { id_token?: string }> {
  const refreshToken = str(body.refresh_token, "refresh_token");
  if (!refreshToken) throw invalidRequest("err.required", { name: "refresh_token" });
  const rawScope = str(body.scope, "scope");
  if (rawScope !== undefined && (rawScope.length > 1000 || !SCOPE.test(rawScope))) {
    throw invalidRequest("err.scopeFormat");
  }
  const r = await deps.oauth.grants.refresh({
    refreshToken,
    clientId: app.clientId,
    scope: rawScope?.split(" "),
  });
  const idToken = r.scope.includes("openid")
    ? await deps.idTokenForRefresh?.({ grant: r.grant, accessToken: r.accessToken, scope: r.scope })
    : undefined;
  return {
    access_token: r.accessToken,
    token_type: "Bearer",
    expires_in: r.expiresIn,
    scope: r.scope.join(" "),
    refresh_token: r.refreshToken,
    ...(idToken !== undefined ? { id_token: idToken } : {}),
  };
}
