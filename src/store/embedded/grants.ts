// The embedded store's grants: consents, codes, access and refresh tokens, and what revokes them.
// Every step that is one Lua script on Redis is one write here. Indexes ([client, …], [user, …],
// [grant, hash]) let an app's or a user's deletion find what to forget without a scan; they expire
// with what they point to.
import type {
  AccountStore,
  CodeRecord,
  GrantStore,
  RefreshRecord,
  RefreshState,
  RotateResult,
  TokenRecord,
} from "../port.js";
import { extendTo, replaceKeepingExpiry, type Engine, type Table } from "./engine.js";
import type { EmbeddedApps } from "./apps.js";
import type { EmbeddedConsentScopes } from "./keys.js";

interface RefreshEntry {
  record: RefreshRecord;
  issuedAt: number;
  used: boolean;
}
type Mark = "ok" | "revoked";

export class EmbeddedGrants implements GrantStore {
  /** [user, client]: the user's consents. */
  private readonly consentsT: Table<1>;
  /** [client, user] and [user, client]: the users who consented to an app (forgetApp, forgetUserTokens). */
  private readonly appUsers: Table<1>;
  private readonly userApps: Table<1>;
  /** [user, client, code hash], expiring when the grant would: the codes of a consent. */
  private readonly grantCodes: Table<1>;
  private readonly codes: Table<CodeRecord>;
  /** code hash (the grant id) → whether its grant stands ("ok") or was revoked. */
  private readonly used: Table<Mark>;
  private readonly tokens: Table<TokenRecord>;
  /** Refresh tokens by hash; a rotated one stays, "used", until its grant ends (reuse detection). */
  private readonly refresh: Table<RefreshEntry>;
  /** [grant id, refresh hash]: a grant's chain. */
  private readonly chains: Table<1>;
  /** [client, grant id] and [client, token hash]: what was issued for an app (forgetApp). */
  private readonly appGrants: Table<1>;
  private readonly appTokens: Table<1>;
  /** [user, token hash] and [user, refresh hash] (forgetUserTokens). */
  private readonly userTokens: Table<1>;
  private readonly userRefresh: Table<1>;

  /**
   * accounts and apps: what tokenUser reads besides the token; apps also tells the writes whether
   * the app exists; consentScopes: what forgetApp clears beside the consents.
   */
  constructor(
    private readonly engine: Engine,
    private readonly others: { accounts: AccountStore; apps: EmbeddedApps; consentScopes: EmbeddedConsentScopes },
  ) {
    const t = <V>(name: string) => engine.table<V>(name);
    this.consentsT = t("consents");
    this.appUsers = t("consents-by-app");
    this.userApps = t("apps-by-user");
    this.grantCodes = t("grant-codes");
    this.codes = t("codes");
    this.used = t("grant-marks");
    this.tokens = t("access-tokens");
    this.refresh = t("refresh-tokens");
    this.chains = t("refresh-chains");
    this.appGrants = t("grants-by-app");
    this.appTokens = t("access-tokens-by-app");
    this.userTokens = t("access-tokens-by-user");
    this.userRefresh = t("refresh-tokens-by-user");
  }

  /** Keeps the app's index entry of a grant at least until `until`. */
  private keepGrant(clientId: string, grantId: string, until: number): void {
    const exp = this.appGrants.expiresAt([clientId, grantId]);
    if (exp === undefined || (exp !== 0 && exp < until)) this.appGrants.put([clientId, grantId], 1, until);
  }

  grantConsent(userId: string, clientId: string) {
    return this.engine.write(() => {
      if (!this.others.apps.has(clientId)) return false;
      this.consentsT.put([userId, clientId], 1);
      this.appUsers.put([clientId, userId], 1);
      this.userApps.put([userId, clientId], 1);
      return true;
    });
  }
  async hasConsent(userId: string, clientId: string) {
    return this.consentsT.has([userId, clientId]);
  }
  async consents(userId: string) {
    return this.consentsT.range([userId]).map((e) => e.key[1] as string); // [user, client]
  }
  /** Inside write(): revokes the live codes of a consent and forgets its index. */
  private revokeCodes(userId: string, clientId: string, markTtlSeconds: number): void {
    const until = Date.now() + markTtlSeconds * 1000;
    for (const { key } of this.grantCodes.range([userId, clientId])) {
      const codeHash = key[2] as string; // [user, client, hash]
      this.grantCodes.remove(key);
      this.codes.remove(codeHash);
      replaceKeepingExpiry(this.used, codeHash, "revoked", until);
      this.keepGrant(clientId, codeHash, this.used.expiresAt(codeHash) ?? until);
    }
  }
  async withdrawConsent(userId: string, clientId: string, markTtlSeconds: number) {
    return this.engine.write(() => {
      const removed = this.consentsT.remove([userId, clientId]);
      this.revokeCodes(userId, clientId, markTtlSeconds);
      return removed;
    });
  }
  saveCode(codeHash: string, code: CodeRecord, ttlSeconds: number, grantTtlSeconds: number) {
    return this.engine.write(() => {
      if (!this.consentsT.has([code.userId, code.clientId])) return false;
      if (!this.others.apps.has(code.clientId)) return false;
      const now = Date.now();
      const grantUntil = now + grantTtlSeconds * 1000;
      this.keepGrant(code.clientId, codeHash, Math.max(grantUntil, now + ttlSeconds * 1000));
      this.grantCodes.put([code.userId, code.clientId, codeHash], 1, grantUntil);
      this.codes.put(codeHash, code, now + ttlSeconds * 1000);
      return true;
    });
  }
  takeCode(codeHash: string, markTtlSeconds: number) {
    return this.engine.write(() => {
      const until = Date.now() + markTtlSeconds * 1000;
      if (this.used.get(codeHash) === "revoked") {
        this.codes.remove(codeHash);
        return { kind: "revoked" as const };
      }
      const code = this.codes.get(codeHash);
      if (code) {
        this.codes.remove(codeHash);
        this.used.put(codeHash, "ok", until);
        this.keepGrant(code.clientId, codeHash, until);
        return { kind: "first" as const, code };
      }
      if (this.used.has(codeHash)) {
        replaceKeepingExpiry(this.used, codeHash, "revoked", until);
        return { kind: "replay" as const };
      }
      return { kind: "unknown" as const };
    });
  }
  saveToken(tokenHash: string, token: TokenRecord, ttlSeconds: number) {
    return this.engine.write(() => {
      if (!this.others.apps.has(token.clientId)) return false;
      const until = Date.now() + ttlSeconds * 1000;
      this.tokens.put(tokenHash, token, until);
      this.appTokens.put([token.clientId, tokenHash], 1, until);
      // A client credentials token has no user to index it under.
      if (token.m2m !== true) this.userTokens.put([token.userId, tokenHash], 1, until);
      return true;
    });
  }
  async token(tokenHash: string, clientId: string) {
    const t = this.tokens.get(tokenHash);
    if (!t || t.clientId !== clientId || this.used.get(t.codeHash) === "revoked") return null;
    return t;
  }
  async tokenUser(tokenHash: string, clientId: string) {
    const token = await this.token(tokenHash, clientId);
    const app = token ? await this.others.apps.get(clientId) : null;
    // A deleted or disabled app's tokens stop at once.
    if (!token || !app || app.disabled === true) return null;
    const user = await this.others.accounts.byId(token.userId);
    return user ? { token, user } : null;
  }
  /** Inside write(): forgets an access token and its index entries. */
  private dropToken(tokenHash: string): void {
    const t = this.tokens.get(tokenHash);
    this.tokens.remove(tokenHash);
    if (!t) return;
    this.appTokens.remove([t.clientId, tokenHash]);
    this.userTokens.remove([t.userId, tokenHash]);
  }
  async revokeToken(tokenHash: string, clientId: string) {
    await this.engine.write(() => {
      if (this.tokens.get(tokenHash)?.clientId === clientId) this.dropToken(tokenHash);
    });
  }
  /** Inside write(): a refresh token of the grant's chain, expiring with the grant. */
  private putRefresh(hash: string, entry: RefreshEntry, until: number): void {
    this.refresh.put(hash, entry, until);
    this.chains.put([entry.record.grantId, hash], 1, until);
    this.userRefresh.put([entry.record.userId, hash], 1, until);
  }
  /** Inside write(): forgets a refresh token and its index entries. */
  private dropRefresh(hash: string): void {
    const e = this.refresh.get(hash);
    this.refresh.remove(hash);
    if (!e) return;
    this.chains.remove([e.record.grantId, hash]);
    this.userRefresh.remove([e.record.userId, hash]);
  }
  startRefresh(refreshHash: string, record: RefreshRecord, now: number) {
    return this.engine.write(() => {
      // No mark: the code's taking left one, so the grant was deleted with its app meanwhile.
      const mark = this.used.get(record.grantId);
      if (mark !== "ok" || !this.others.apps.has(record.clientId)) return false;
      const until = Date.now() + (record.grantExpiresAt - now);
      extendTo(this.used, record.grantId, until);
      this.keepGrant(record.clientId, record.grantId, until);
      this.putRefresh(refreshHash, { record, issuedAt: now, used: false }, until);
      return true;
    });
  }
  rotateRefresh(refreshHash: string, clientId: string, nextHash: string, now: number): Promise<RotateResult> {
    return this.engine.write((): RotateResult => {
      const e = this.refresh.get(refreshHash);
      if (!e || e.record.clientId !== clientId) return { kind: "unknown" };
      const grantId = e.record.grantId;
      if (this.used.get(grantId) === "revoked") return { kind: "revoked" };
      const until = Date.now() + (e.record.grantExpiresAt - now);
      if (e.used) {
        replaceKeepingExpiry(this.used, grantId, "revoked", until);
        return { kind: "reused" };
      }
      this.refresh.put(refreshHash, { ...e, used: true }, this.refresh.expiresAt(refreshHash));
      this.putRefresh(nextHash, { record: e.record, issuedAt: now, used: false }, until);
      return { kind: "rotated", record: e.record };
    });
  }
  async refreshToken(refreshHash: string, clientId: string): Promise<RefreshState | null> {
    const e = this.refresh.get(refreshHash);
    if (!e || e.record.clientId !== clientId) return null;
    const grantId = e.record.grantId;
    if (e.used || this.used.get(grantId) === "revoked") return { active: false, grantId };
    return { active: true, grantId, record: e.record, issuedAt: e.issuedAt };
  }
  async revokeGrant(grantId: string, markTtlSeconds: number) {
    await this.engine.write(() =>
      replaceKeepingExpiry(this.used, grantId, "revoked", Date.now() + markTtlSeconds * 1000),
    );
  }
  async revokeUserGrants(userId: string, markTtlSeconds: number) {
    await this.engine.write(() => {
      for (const { key } of this.consentsT.range([userId])) this.revokeCodes(userId, key[1] as string, markTtlSeconds);
    });
  }
  async forgetUserTokens(userId: string) {
    await this.engine.write(() => {
      for (const { key } of this.userTokens.range([userId])) {
        this.dropToken(key[1] as string); // [user, hash]
        this.userTokens.remove(key);
      }
      for (const { key } of this.userRefresh.range([userId])) {
        this.dropRefresh(key[1] as string);
        this.userRefresh.remove(key);
      }
      // The user in the per-app index (the hashes there name no user, and lead to nothing now).
      for (const { key } of this.userApps.range([userId])) {
        this.appUsers.remove([key[1]!, userId]); // [user, client]
        this.userApps.remove(key);
      }
    });
  }
  async forgetApp(clientId: string) {
    await this.engine.write(() => {
      this.others.consentScopes.forgetAppIn(clientId);
      for (const { key } of this.appUsers.range([clientId])) {
        const userId = key[1] as string; // [client, user]
        this.consentsT.remove([userId, clientId]);
        for (const c of this.grantCodes.range([userId, clientId])) this.grantCodes.remove(c.key);
        this.userApps.remove([userId, clientId]);
        this.appUsers.remove(key);
      }
      for (const { key } of this.appGrants.range([clientId])) {
        const grantId = key[1] as string; // [client, grant]
        this.codes.remove(grantId);
        this.used.remove(grantId);
        for (const c of this.chains.range([grantId])) this.dropRefresh(c.key[1] as string);
        this.appGrants.remove(key);
      }
      for (const { key } of this.appTokens.range([clientId])) {
        this.dropToken(key[1] as string); // [client, hash]
        this.appTokens.remove(key);
      }
    });
  }
}
