// Apps (OAuth clients): registration, secret rotation with a grace period, deletion, lookup.
// Secrets are stored only as keyed hashes and compared in constant time.
import { corsOriginKey, type AppRecord, type Store } from "../store/port.js";
import { FormError } from "./accounts.js";
import { redirectUriProblem } from "./redirect-uris.js";
import { keyedHash, randomId, randomToken, sameDigest } from "./secrets.js";
import { codePointLength } from "./text.js";
import { message } from "../errors.js";

export interface AppsDeps {
  store: Store;
  secret: string;
  /** Seconds an old secret keeps working after a rotation. */
  gracePeriod: number;
  /** Runs before an app is deleted (revokes its CUSTOM TOKENs); a failure keeps the app. */
  onDelete?: (clientId: string) => Promise<unknown>;
}

/** The longest search on /admin/apps (as /admin/users'). */
export const APP_QUERY_MAX = 200;

export const CLIENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether a registered app has this client_id (what CUSTOM TOKENs are issued for). */
export function appExistsIn(store: Store): (clientId: string) => Promise<boolean> {
  return async (clientId) => CLIENT_ID.test(clientId) && (await store.apps.get(clientId)) !== null;
}

/** How the realtime feed names an app (accessChanged, domain/user-access.ts): a keyed hash of its client id. */
export const appAccessKey = (secret: string, clientId: string): string => keyedHash(secret, "realtime-app", clientId);

export class Apps {
  constructor(private readonly deps: AppsDeps) {}

  private hash(clientId: string, secret: string): string {
    return keyedHash(this.deps.secret, "client-secret", clientId, secret);
  }

  /** Validates a name and redirect URLs as a person typed them. */
  static check(name: string, redirectUris: string[]): { name: string; redirectUris: string[] } {
    const n = name.trim();
    if (codePointLength(n) < 1 || codePointLength(n) > 64) throw new FormError("err.appName");
    const uris = [...new Set(redirectUris.map((u) => u.trim()).filter(Boolean))];
    if (uris.length === 0) throw new FormError("err.noRedirect");
    if (uris.length > 20) throw new FormError("err.tooManyRedirects");
    for (const u of uris) {
      const problem = redirectUriProblem(u);
      if (problem) throw new FormError(problem);
    }
    return { name: n, redirectUris: uris };
  }

  /**
   * An app's homepage as a person typed it: undefined when empty, else an absolute http(s) URL of
   * at most 2000 characters without a user name or password (shown as its host on consent).
   */
  static checkHomepage(raw: string | undefined): string | undefined {
    const h = (raw ?? "").trim();
    if (h === "") return undefined;
    let u: URL | undefined;
    try {
      u = new URL(h);
    } catch {
      u = undefined;
    }
    if (
      !u ||
      (u.protocol !== "https:" && u.protocol !== "http:") ||
      !u.host ||
      u.username ||
      u.password ||
      h.length > 2000
    )
      throw new FormError("err.homepage");
    return u.href;
  }

  /**
   * Checks RP-initiated logout destinations (OpenID Connect): registered like redirect URLs, and
   * matched exactly.
   */
  static checkPostLogout(uris: string[]): string[] {
    const list = [...new Set(uris.map((u) => u.trim()).filter(Boolean))];
    if (list.length > 20) throw new FormError("err.tooManyPostLogout");
    for (const u of list) {
      const problem = redirectUriProblem(u);
      if (problem) throw new FormError(message("err.postLogoutProblem", { problem }));
    }
    return list;
  }

  /**
   * Registers an app; the secret is returned this once. A public client (a browser or mobile app,
   * opts.public) gets none: it authenticates with its client_id alone and must use PKCE.
   * opts.postLogoutRedirectUris: where RP-initiated logout may return. The homepage is optional
   * (checkHomepage).
   */
  async create(
    ownerId: string,
    name: string,
    redirectUris: string[],
    opts: { public?: boolean; postLogoutRedirectUris?: string[]; homepage?: string | undefined } = {},
  ): Promise<{ app: AppRecord; clientSecret: string | undefined }> {
    const checked = Apps.check(name, redirectUris);
    const postLogout = Apps.checkPostLogout(opts.postLogoutRedirectUris ?? []);
    const homepage = Apps.checkHomepage(opts.homepage);
    const clientId = randomId(); // never begins with "-" (docs/cli.md)
    const clientSecret = opts.public ? undefined : randomToken(32);
    const app: AppRecord = {
      clientId,
      ownerId,
      name: checked.name,
      redirectUris: checked.redirectUris,
      secretHash: clientSecret === undefined ? "" : this.hash(clientId, clientSecret),
      ...(opts.public ? { public: true } : {}),
      ...(postLogout.length ? { postLogoutRedirectUris: postLogout } : {}),
      ...(homepage !== undefined ? { homepage } : {}),
      createdAt: Date.now(),
    };
    await this.deps.store.apps.create(app);
    return { app, clientSecret };
  }

  /**
   * Edits an app's name, redirect URLs, post-logout URLs or homepage (those given; the others stay),
   * checked as at registration. The client id, secret, consents and tokens are kept; a refused
   * value changes nothing.
   */
  async update(
    app: AppRecord,
    changes: {
      name?: string;
      redirectUris?: string[];
      postLogoutRedirectUris?: string[];
      homepage?: string;
      /** The groups it is restricted to (checked by Groups.existing); []: no restriction. */
      groups?: string[];
      /** Disabled by an operator: its tokens and sign-ins are refused at once (every node reads it). */
      disabled?: boolean;
      /** First-party, by an operator: /authorize asks no consent (it is recorded as given). */
      trusted?: boolean;
      /** Scopes of its client credentials tokens, by an admin (checkM2mScopes); []: none (the grant is refused). */
      m2mScopes?: string[];
    },
  ): Promise<AppRecord> {
    const checked = Apps.check(changes.name ?? app.name, changes.redirectUris ?? app.redirectUris);
    const postLogout =
      changes.postLogoutRedirectUris === undefined ? undefined : Apps.checkPostLogout(changes.postLogoutRedirectUris);
    const homepage = changes.homepage === undefined ? undefined : Apps.checkHomepage(changes.homepage);
    // Applied to the record as stored (AppStore.update), so that a change made meanwhile by someone
    // else — an owner's rename, an operator's disabling — is kept: only the fields given change.
    const stored = await this.deps.store.apps.update(app.clientId, (next) => {
      if (changes.name !== undefined) next.name = checked.name;
      if (changes.redirectUris !== undefined) next.redirectUris = checked.redirectUris;
      if (postLogout !== undefined) {
        delete next.postLogoutRedirectUris;
        if (postLogout.length) next.postLogoutRedirectUris = postLogout;
      }
      if (changes.homepage !== undefined) {
        delete next.homepage;
        if (homepage !== undefined) next.homepage = homepage;
      }
      if (changes.groups !== undefined) {
        delete next.groups;
        if (changes.groups.length) next.groups = [...new Set(changes.groups)].sort();
      }
      if (changes.disabled !== undefined) {
        delete next.disabled;
        if (changes.disabled) next.disabled = true;
      }
      if (changes.trusted !== undefined) {
        delete next.trusted;
        if (changes.trusted) next.trusted = true;
      }
      if (changes.m2mScopes !== undefined) {
        delete next.m2mScopes;
        if (changes.m2mScopes.length) next.m2mScopes = [...changes.m2mScopes];
      }
      return next;
    });
    // A disabled app's users' sockets end, on every node, before this answers (domain/user-access.ts).
    if (changes.disabled === true)
      await this.deps.store.identityFeed.accessChanged({ app: appAccessKey(this.deps.secret, app.clientId) });
    return stored ?? app;
  }

  /** The app with this client id, or null. Other parts (CUSTOM TOKENs) use this to check an app exists. */
  async byClientId(clientId: string): Promise<AppRecord | null> {
    if (!CLIENT_ID.test(clientId)) return null;
    return this.deps.store.apps.get(clientId);
  }

  /**
   * CORS for /token and /revoke (docs/http-api.md#public-clients), a preflight: whether any public
   * client has a redirect URL on this origin (the preflight names no client).
   */
  async publicOriginKnown(origin: string): Promise<boolean> {
    const key = corsOriginKey(origin);
    return key ? this.deps.store.apps.publicOriginKnown(key) : false;
  }

  /** CORS for /token and /revoke, a request: whether the app it names is public, with a redirect URL on this origin. */
  async publicClientOn(clientId: string, origin: string): Promise<boolean> {
    const key = corsOriginKey(origin);
    if (!key) return false;
    const app = await this.byClientId(clientId);
    return app?.public === true && app.redirectUris.some((u) => corsOriginKey(u) === key);
  }

  /** Every app, a page at a time in client id order (`sigil apps list`, /admin/apps). */
  list(opts: { after?: string; limit: number }): Promise<AppRecord[]> {
    return this.deps.store.apps.list(opts);
  }

  /**
   * The admin's app list (/admin/apps): apps whose name holds the query (whatever its case) or
   * whose client id begins with it, in client id order after the cursor, at most `limit`. An empty
   * query is every app. It walks the app index in pages of 500 (no name index: an admin's search,
   * not a request's path). A query over 200 characters is a form error, and nothing is read.
   */
  async search(opts: { query: string; after?: string | undefined; limit: number }): Promise<AppRecord[]> {
    const query = opts.query.trim();
    if (query.length > APP_QUERY_MAX) throw new FormError("err.queryTooLong", 400);
    const base = opts.after === undefined ? {} : { after: opts.after };
    if (query === "") return this.deps.store.apps.list({ ...base, limit: opts.limit });
    const folded = query.toLowerCase();
    const found: AppRecord[] = [];
    for (let after = opts.after; ;) {
      const page = await this.deps.store.apps.list({ limit: 500, ...(after === undefined ? {} : { after }) });
      for (const app of page) {
        if (app.clientId.startsWith(query) || app.name.toLowerCase().includes(folded)) found.push(app);
        if (found.length === opts.limit) return found;
      }
      if (page.length < 500) return found;
      after = page.at(-1)!.clientId;
    }
  }
  listByOwner(ownerId: string): Promise<AppRecord[]> {
    return this.deps.store.apps.listByOwner(ownerId);
  }

  /** The owner's app, or null when it is not theirs (or gone). */
  async owned(ownerId: string, clientId: string): Promise<AppRecord | null> {
    const app = await this.byClientId(clientId);
    return app && app.ownerId === ownerId ? app : null;
  }

  /** A new secret; the old one keeps working for the grace period unless revokeNow. */
  async rotateSecret(app: AppRecord, revokeNow: boolean): Promise<string> {
    if (app.public) throw new FormError("err.publicNoSecret");
    const clientSecret = randomToken(32);
    const secretHash = this.hash(app.clientId, clientSecret);
    const graceUntil = !revokeNow && this.deps.gracePeriod > 0 ? Date.now() + this.deps.gracePeriod * 1000 : undefined;
    await this.deps.store.apps.update(app.clientId, (next) => {
      // The secret replaced is the one stored now (another rotation may have come first).
      const previous = next.secretHash;
      delete next.previousSecretHash;
      delete next.previousSecretUntil;
      next.secretHash = secretHash;
      if (graceUntil !== undefined) {
        next.previousSecretHash = previous;
        next.previousSecretUntil = graceUntil;
      }
      return next;
    });
    return clientSecret;
  }

  async delete(app: AppRecord): Promise<void> {
    await this.deps.onDelete?.(app.clientId);
    await this.deps.store.apps.delete(app.clientId);
    // Its users' sockets end on every node (domain/user-access.ts): their tokens are refused from here on.
    await this.deps.store.identityFeed.accessChanged({ app: appAccessKey(this.deps.secret, app.clientId) });
    // Every user's consent to it, its codes and access and refresh tokens go now, not as they
    // expire (the app's own deletion first: the store refuses them from there on).
    await this.deps.store.grants.forgetApp(app.clientId);
    // Its CUSTOM TOKENs were revoked (their sockets dropped); now nothing of the app is kept.
    await this.deps.store.customTokens.deleteAll(app.clientId);
    await this.deps.store.events.deleteHistory(app.clientId);
    await this.deps.store.channels.deleteAll(app.clientId);
    await this.deps.store.deliveries.forgetApp(app.clientId);
    await this.deps.store.deviceCodes.forgetApp(app.clientId);
  }

  /** Client authentication: the app when the secret is its current (or still graced) one. */
  async authenticate(clientId: string, clientSecret: string): Promise<AppRecord | null> {
    const app = await this.byClientId(clientId);
    const given = this.hash(clientId, clientSecret);
    // A public client has no secret: one sent for it is wrong (client-auth.ts lets it in without).
    if (!app || app.public) return null;
    if (sameDigest(given, app.secretHash)) return app;
    if (
      app.previousSecretHash &&
      (app.previousSecretUntil ?? 0) > Date.now() &&
      sameDigest(given, app.previousSecretHash)
    ) {
      return app;
    }
    return null;
  }
}
