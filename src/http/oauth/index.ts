// What the OAuth and OpenID Connect rows of the route table (http/routes.ts) share. (/authorize
// and /logout are pages: http/pages/index.ts.)
import type { OpenId } from "../../domain/oidc-setup.js";
import type { IdTokenForRefresh } from "./refresh.js";

/** A refresh of an OpenID Connect grant answers with a new ID token too (OpenID Connect Core §12.2). */
export function idTokenForRefresh(openid: OpenId): IdTokenForRefresh {
  return ({ grant, accessToken, scope }) =>
    openid.idTokens.sign({
      clientId: grant.clientId,
      userId: grant.userId,
      scope,
      authTime: grant.authTime ?? Math.floor(Date.now() / 1000),
      amr: grant.amr ?? ["pwd"],
      // The session the grant began in, as auth_time is that sign-in's (it may have ended since).
      sid: grant.sid,
      accessToken,
    });
}
