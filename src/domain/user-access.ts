// Users' sockets (docs/realtime.md#users-sockets): a page of an app, signed in with Sigil, opens a
// socket with an access token the app obtained with the scope `realtime`. This checks such a token
// at the handshake and again whenever the user's or the app's access may have ended, and tells
// every node when it may have.
//
// "At once" is kept by the use cases that end access (revoking a token, revoking a grant: its
// refresh token revoked or reused, its code replayed; withdrawing a consent; revoking a user's
// grants: signing out everywhere, disabling, deleting; deleting or disabling an app,
// domain/apps.ts): each awaits the feed's accessChanged() after the store holds the change and
// before it answers. Every node hears it and checks the sockets concerned against the store again,
// which already refuses the token: they end within one feed hop and one store read of the answer.
// What a node could not hear (its feed was away) it checks when the feed is back
// (realtime/access-checks.ts).
import { insufficientScope, invalidToken } from "../errors.js";
import { isDisabled, type Store } from "../store/port.js";
import { appAccessKey, CLIENT_ID } from "./apps.js";
import { keyedHash } from "./secrets.js";

/** The scope an access token needs to open a user's socket. */
export const REALTIME_SCOPE = "realtime";

/** A user's socket's identity: whose, which app's, and how to check its access token again. */
export interface UserIdentity {
  app: string;
  /** The user's id as the app sees it (the ID token's and /userinfo's `sub`). */
  sub: string;
  /** The access token's keyed hash, as the store keys it: what a recheck reads (never the token). */
  tokenHash: string;
  /** When the access token expires, ms since the epoch. */
  expiresAt: number;
  /** The keyed hash of the user's id that the feed names them by (accessChanged). */
  userKey: string;
  /** The keyed hash of the app's client id that the feed names it by (appAccessKey). */
  appKey: string;
  /** The grant the token was issued under (its code's hash), which a revocation may name. */
  grantId: string;
}

export class UserAccess {
  constructor(private readonly deps: { store: Store; secret: string }) {}

  /** How the feed names a user: a keyed hash, so no user id travels in clear. */
  userKey(userId: string): string {
    return keyedHash(this.deps.secret, "realtime-user", userId);
  }

  /**
   * The user and app behind a presented access token: invalid_token when it is missing, malformed,
   * unknown, expired, revoked, of a disabled user or of a deleted or disabled app;
   * insufficient_scope when its grant lacks `realtime`.
   */
  async verify(token: unknown): Promise<UserIdentity> {
    // Tokens with a scope beside openid name their client before a "." (Grants.issueAccessToken).
    if (typeof token !== "string" || token.length === 0 || token.length > 512) throw invalidToken();
    const dot = token.indexOf(".");
    const app = dot > 0 ? token.slice(0, dot) : "";
    if (!CLIENT_ID.test(app)) throw invalidToken();
    const tokenHash = keyedHash(this.deps.secret, "token", token);
    const found = await this.live(tokenHash, app);
    if (!found) throw invalidToken();
    if (!found.scope.includes(REALTIME_SCOPE)) throw insufficientScope(REALTIME_SCOPE);
    const { userId, expiresAt, grantId } = found;
    const appKey = appAccessKey(this.deps.secret, app);
    return { app, sub: userId, tokenHash, expiresAt, userKey: this.userKey(userId), appKey, grantId };
  }

  /** Whether a socket's access token still works (its user, grant, consent and app included). */
  async isLive(who: UserIdentity): Promise<boolean> {
    return (await this.live(who.tokenHash, who.app)) !== null;
  }

  /** Tells every node to check the user's sockets again; resolves once the feed has it. */
  userChanged(userId: string): Promise<void> {
    return this.deps.store.identityFeed.accessChanged({ user: this.userKey(userId) });
  }

  /** Tells every node to check again the sockets of a grant's access tokens (it was revoked). */
  grantChanged(grantId: string): Promise<void> {
    return this.deps.store.identityFeed.accessChanged({ grant: grantId });
  }

  private async live(tokenHash: string, app: string) {
    const found = await this.deps.store.grants.tokenUser(tokenHash, app);
    // A client credentials token is no user's: it never opens a user's socket.
    if (!found || found.token.m2m || isDisabled(found.user)) return null;
    const { token } = found;
    // Tokens carry their end (seconds); one without is of an old grant and cannot open a socket.
    if (token.expiresAt === undefined || token.expiresAt * 1000 <= Date.now()) return null;
    return {
      userId: token.userId,
      scope: token.scope ?? [],
      expiresAt: token.expiresAt * 1000,
      grantId: token.codeHash,
    };
  }
}
