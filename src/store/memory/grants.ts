// The in-process store's grants: consents, codes, access and refresh tokens, and what revokes them.
import { ExpiringMap } from "./expiring-map.js";
import { clone } from "./clone.js";
import type {
  AccountStore,
  CodeRecord,
  GrantStore,
  RefreshRecord,
  RefreshState,
  RotateResult,
  TokenRecord,
} from "../port.js";
import type { MemoryApps } from "./apps.js";
import type { MemoryConsentScopes } from "./keys.js";

/** What was issued for one app (forgetApp): the users who consented, its grants (code hashes), its access tokens. */
interface AppIssued {
  users: Set<string>;
  grants: Set<string>;
  tokens: Set<string>;
}

export class MemoryGrants implements GrantStore {
  /**
   * accounts and apps: what tokenUser reads besides the token; apps also tells the writes whether
   * the app exists; consentScopes: what forgetApp clears beside the consents.
   */
  constructor(
    private readonly others: { accounts: AccountStore; apps: MemoryApps; consentScopes: MemoryConsentScopes },
  ) {}

  /** client id → what was issued for it: the per-app index that forgetApp reads. */
  private readonly byApp = new Map<string, AppIssued>();
  /** grant id → the hashes of its refresh tokens (its chain). */
  private readonly chains = new Map<string, Set<string>>();
  /** Drops the index entries of records that ended, each minute (as Redis scores them). */
  private readonly sweeper = setInterval(() => this.sweepIndex(), 60_000).unref();

  private issued(clientId: string): AppIssued {
    let i = this.byApp.get(clientId);
    if (!i) this.byApp.set(clientId, (i = { users: new Set(), grants: new Set(), tokens: new Set() }));
    return i;
  }
  sweepIndex(): void {
    for (const [g, chain] of this.chains) {
      for (const h of chain) if (!this.refresh.has(h)) chain.delete(h);
      if (chain.size === 0) this.chains.delete(g);
    }
    for (const i of this.byApp.values()) {
      for (const t of i.tokens) if (!this.tokens.has(t)) i.tokens.delete(t);
      for (const g of i.grants) if (!this.codes.has(g) && !this.used.has(g) && !this.chains.has(g)) i.grants.delete(g);
    }
  }

  private readonly consentSets = new Map<string, Set<string>>();
  /** "<userId> <clientId>" → code hash → until when (ms) it matters: the codes of a consent. */
  private readonly grantCodes = new Map<string, Map<string, number>>();
  readonly codes = new ExpiringMap<CodeRecord>();
  readonly used = new ExpiringMap<"ok" | "revoked">();
  readonly tokens = new ExpiringMap<TokenRecord>();
  /** Refresh tokens by hash; a rotated one stays, "used", until its grant ends (reuse detection). */
  readonly refresh = new ExpiringMap<{ record: RefreshRecord; issuedAt: number; used: boolean }>();

  async grantConsent(userId: string, clientId: string) {
    if (!this.others.apps.has(clientId)) return false;
    let s = this.consentSets.get(userId);
    if (!s) this.consentSets.set(userId, (s = new Set()));
    s.add(clientId);
    this.issued(clientId).users.add(userId);
    return true;
  }
  async hasConsent(userId: string, clientId: string) {
    return this.consentSets.get(userId)?.has(clientId) ?? false;
  }
  async consents(userId: string) {
    return [...(this.consentSets.get(userId) ?? [])];
  }
  async withdrawConsent(userId: string, clientId: string, markTtlSeconds: number) {
    this.consentSets.get(userId)?.delete(clientId);
    const key = `${userId} ${clientId}`;
    const now = Date.now();
    for (const [codeHash, until] of this.grantCodes.get(key) ?? []) {
      if (until <= now) continue;
      this.codes.delete(codeHash);
      this.used.replace(codeHash, "revoked", markTtlSeconds * 1000);
    }
    this.grantCodes.delete(key);
  }
  async saveCode(codeHash: string, code: CodeRecord, ttlSeconds: number, grantTtlSeconds: number) {
    if (!this.consentSets.get(code.userId)?.has(code.clientId)) return false;
    if (!this.others.apps.has(code.clientId)) return false;
    this.issued(code.clientId).grants.add(codeHash);
    const key = `${code.userId} ${code.clientId}`;
    const now = Date.now();
    let index = this.grantCodes.get(key);
    if (!index) this.grantCodes.set(key, (index = new Map()));
    for (const [h, until] of index) if (until <= now) index.delete(h);
    index.set(codeHash, now + grantTtlSeconds * 1000);
    this.codes.set(codeHash, clone(code), ttlSeconds * 1000);
    return true;
  }
  async takeCode(codeHash: string, markTtlSeconds: number) {
    if (this.used.get(codeHash) === "revoked") {
      this.codes.delete(codeHash);
      return { kind: "revoked" as const };
    }
    const code = this.codes.get(codeHash);
    if (code) {
      this.codes.delete(codeHash);
      this.used.set(codeHash, "ok", markTtlSeconds * 1000);
      return { kind: "first" as const, code };
    }
    if (this.used.has(codeHash)) {
      this.used.replace(codeHash, "revoked", markTtlSeconds * 1000);
      return { kind: "replay" as const };
    }
    return { kind: "unknown" as const };
  }
  async saveToken(tokenHash: string, token: TokenRecord, ttlSeconds: number) {
    if (!this.others.apps.has(token.clientId)) return false;
    this.tokens.set(tokenHash, clone(token), ttlSeconds * 1000);
    this.issued(token.clientId).tokens.add(tokenHash);
    return true;
  }
  async token(tokenHash: string, clientId: string) {
    const t = this.tokens.get(tokenHash);
    if (!t || t.clientId !== clientId || this.used.get(t.codeHash) === "revoked") return null;
    return clone(t);
  }
  async tokenUser(tokenHash: string, clientId: string) {
    const token = await this.token(tokenHash, clientId);
    if (!token || !(await this.others.apps.get(clientId))) return null;
    const user = await this.others.accounts.byId(token.userId);
    return user ? { token, user } : null;
  }
  async revokeToken(tokenHash: string, clientId: string) {
    if (this.tokens.get(tokenHash)?.clientId === clientId) this.tokens.delete(tokenHash);
  }
  async startRefresh(refreshHash: string, record: RefreshRecord, now: number) {
    // No mark: the code's taking left one, so the grant was deleted with its app meanwhile.
    const mark = this.used.get(record.grantId);
    if (mark !== "ok" || !this.others.apps.has(record.clientId)) return false;
    this.used.extendTo(record.grantId, record.grantExpiresAt);
    this.refresh.set(refreshHash, { record: clone(record), issuedAt: now, used: false }, record.grantExpiresAt - now);
    this.chain(record.grantId).add(refreshHash);
    return true;
  }
  private chain(grantId: string): Set<string> {
    let c = this.chains.get(grantId);
    if (!c) this.chains.set(grantId, (c = new Set()));
    return c;
  }
  async rotateRefresh(refreshHash: string, clientId: string, nextHash: string, now: number): Promise<RotateResult> {
    const e = this.refresh.get(refreshHash);
    if (!e || e.record.clientId !== clientId) return { kind: "unknown" };
    const grantId = e.record.grantId;
    if (this.used.get(grantId) === "revoked") return { kind: "revoked" };
    if (e.used) {
      this.used.replace(grantId, "revoked", e.record.grantExpiresAt - now);
      return { kind: "reused" };
    }
    e.used = true;
    this.refresh.set(nextHash, { record: e.record, issuedAt: now, used: false }, e.record.grantExpiresAt - now);
    this.chain(grantId).add(nextHash);
    return { kind: "rotated", record: clone(e.record) };
  }
  async refreshToken(refreshHash: string, clientId: string): Promise<RefreshState | null> {
    const e = this.refresh.get(refreshHash);
    if (!e || e.record.clientId !== clientId) return null;
    const grantId = e.record.grantId;
    if (e.used || this.used.get(grantId) === "revoked") return { active: false, grantId };
    return { active: true, grantId, record: clone(e.record), issuedAt: e.issuedAt };
  }
  async revokeGrant(grantId: string, markTtlSeconds: number) {
    this.used.replace(grantId, "revoked", markTtlSeconds * 1000);
  }
  async revokeUserGrants(userId: string, markTtlSeconds: number) {
    const now = Date.now();
    for (const clientId of this.consentSets.get(userId) ?? []) {
      const index = this.grantCodes.get(`${userId} ${clientId}`);
      for (const [codeHash, until] of index ?? []) {
        index?.delete(codeHash);
        if (until <= now) continue;
        this.codes.delete(codeHash);
        this.used.replace(codeHash, "revoked", markTtlSeconds * 1000);
      }
    }
  }
  async forgetUserTokens(userId: string) {
    this.tokens.deleteWhere((t) => t.userId === userId);
    this.refresh.deleteWhere((e) => e.record.userId === userId);
    // The user in the per-app index (the hashes there name no user, and lead to nothing now).
    for (const issued of this.byApp.values()) issued.users.delete(userId);
  }
  async forgetApp(clientId: string) {
    this.others.consentScopes.forgetApp(clientId);
    const issued = this.byApp.get(clientId);
    if (!issued) return;
    for (const userId of issued.users) {
      this.consentSets.get(userId)?.delete(clientId);
      this.grantCodes.delete(`${userId} ${clientId}`);
    }
    for (const g of issued.grants) {
      this.codes.delete(g);
      this.used.delete(g);
      for (const h of this.chains.get(g) ?? []) this.refresh.delete(h);
      this.chains.delete(g);
    }
    for (const t of issued.tokens) this.tokens.delete(t);
    this.byApp.delete(clientId);
  }
  /** Whether any record names the app, or is indexed under it (tests: nothing outlives a deleted app). */
  mentionsApp(clientId: string): boolean {
    return (
      this.byApp.has(clientId) ||
      this.tokens.some((t) => t.clientId === clientId) ||
      this.refresh.some((e) => e.record.clientId === clientId) ||
      this.codes.some((c) => c.clientId === clientId) ||
      [...this.grantCodes.keys()].some((k) => k.endsWith(` ${clientId}`)) ||
      [...this.consentSets.values()].some((s) => s.has(clientId)) ||
      this.others.consentScopes.mentionsApp(clientId)
    );
  }
  /** Whether any token or code record names the user (tests: nothing outlives a deleted user). */
  mentions(userId: string): boolean {
    return (
      this.tokens.some((t) => t.userId === userId) ||
      this.refresh.some((e) => e.record.userId === userId) ||
      this.codes.some((c) => c.userId === userId) ||
      [...this.grantCodes].some(([k, codes]) => k.startsWith(`${userId} `) && codes.size > 0) ||
      (this.consentSets.get(userId)?.size ?? 0) > 0 ||
      [...this.byApp.values()].some((i) => i.users.has(userId))
    );
  }
  close() {
    clearInterval(this.sweeper);
    this.refresh.close();
    this.codes.close();
    this.used.close();
    this.tokens.close();
  }
}
