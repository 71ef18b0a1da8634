// The embedded store's part for sign-in: accounts, sessions, apps and grants, in maps.
import { ExpiringMap } from "./expiring-map.js";
import type {
  AccountStore,
  AppRecord,
  AppStore,
  CodeRecord,
  GrantStore,
  RefreshRecord,
  RefreshState,
  RotateResult,
  SessionOwner,
  SessionStore,
  SessionSummary,
  TokenRecord,
  UserChange,
  UserRecord,
} from "../port.js";
import { bySeen, changedUser, corsOriginKey, summaryOf } from "../port.js";
import type { MemoryConsentScopes } from "./keys.js";

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryAccounts implements AccountStore {
  private readonly users = new Map<string, UserRecord>();
  private readonly names = new Map<string, string>();
  private readonly pictures = new Map<string, Buffer>();

  async create(user: UserRecord): Promise<boolean> {
    if (this.names.has(user.username)) return false;
    this.names.set(user.username, user.id);
    this.users.set(user.id, clone(user));
    return true;
  }
  async byId(id: string) {
    const u = this.users.get(id);
    return u ? clone(u) : null;
  }
  async byUsername(username: string) {
    const id = this.names.get(username);
    return id === undefined ? null : this.byId(id);
  }
  /** Read, change and write with no await between: atomic in this process. */
  async update(id: string, change: UserChange) {
    const current = this.users.get(id);
    if (!current) return null;
    const next = changedUser(current, change);
    if (next) this.users.set(id, clone(next));
    return clone(next ?? current);
  }
  async delete(user: UserRecord) {
    const had = this.users.delete(user.id);
    if (this.names.get(user.username) === user.id) this.names.delete(user.username);
    this.pictures.delete(user.id);
    return had;
  }
  async savePicture(id: string, data: Buffer) {
    this.pictures.set(id, Buffer.from(data));
  }
  async picture(id: string) {
    return this.pictures.get(id) ?? null;
  }
}

export class MemorySessions implements SessionStore {
  readonly map = new ExpiringMap<string>();
  /**
   * userId → sid → summary: the per-user index. Entries of ended sessions are dropped on read and
   * by a sweep each minute, as Redis expires the index with the user's last session.
   */
  private readonly index = new Map<string, Map<string, SessionSummary>>();
  private readonly sweeper = setInterval(() => this.sweep(), 60_000).unref();
  sweep(): void {
    const now = Date.now();
    for (const [userId, sessions] of this.index) {
      for (const [sid, e] of sessions) if (e.expiresAt <= now || !this.map.has(sid)) sessions.delete(sid);
      if (sessions.size === 0) this.index.delete(userId);
    }
  }
  close(): void {
    clearInterval(this.sweeper);
    this.map.close();
    this.index.clear();
  }
  async get(sid: string) {
    return this.map.get(sid) ?? null;
  }
  async set(sid: string, data: string, ttlSeconds: number, owner?: SessionOwner) {
    if (owner && !owner.create && !this.map.has(sid)) return;
    this.map.set(sid, data, ttlSeconds * 1000);
    if (!owner) return;
    let sessions = this.index.get(owner.userId);
    if (!sessions) this.index.set(owner.userId, (sessions = new Map()));
    sessions.set(sid, summaryOf(sid, owner, Date.now() + ttlSeconds * 1000));
  }
  async destroy(sid: string, userId?: string) {
    this.map.delete(sid);
    if (userId !== undefined) this.forget(userId, sid);
  }
  async listForUser(userId: string) {
    const sessions = this.index.get(userId);
    if (!sessions) return [];
    const now = Date.now();
    for (const [sid, e] of sessions) if (e.expiresAt <= now || !this.map.has(sid)) sessions.delete(sid);
    if (sessions.size === 0) this.index.delete(userId);
    return [...sessions.values()].map(clone).sort(bySeen);
  }
  async destroyForUser(userId: string, exceptSid?: string) {
    let n = 0;
    for (const sid of [...(this.index.get(userId)?.keys() ?? [])]) {
      if (sid === exceptSid) continue;
      if (this.map.has(sid)) n++;
      this.map.delete(sid);
      this.forget(userId, sid);
    }
    return n;
  }
  /** How many users have index entries (tests: nothing outlives a deleted user). */
  indexedUsers(): string[] {
    return [...this.index.keys()];
  }
  private forget(userId: string, sid: string) {
    const sessions = this.index.get(userId);
    sessions?.delete(sid);
    if (sessions?.size === 0) this.index.delete(userId);
  }
}

export class MemoryApps implements AppStore {
  private readonly apps = new Map<string, AppRecord>();
  async create(app: AppRecord) {
    this.apps.set(app.clientId, clone(app));
  }
  async get(clientId: string) {
    const a = this.apps.get(clientId);
    return a ? clone(a) : null;
  }
  async update(app: AppRecord) {
    if (this.apps.has(app.clientId)) this.apps.set(app.clientId, clone(app));
  }
  async delete(clientId: string) {
    this.apps.delete(clientId);
  }
  /** Whether the app exists, at once (the grant store's writes check it in the same step). */
  has(clientId: string): boolean {
    return this.apps.has(clientId);
  }
  async listByOwner(ownerId: string) {
    return [...this.apps.values()].filter((a) => a.ownerId === ownerId).map(clone);
  }
  async publicOriginKnown(origin: string) {
    for (const a of this.apps.values()) {
      if (a.public && a.redirectUris.some((u) => corsOriginKey(u) === origin)) return true;
    }
    return false;
  }
}

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
