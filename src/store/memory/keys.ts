// The embedded store's signing keys and consented scopes (store/ports/keys.ts), in maps.
import type { ConsentScopeStore, SigningKeyRecord, SigningKeyStore } from "../port.js";

export class MemorySigningKeys implements SigningKeyStore {
  private readonly keys = new Map<string, SigningKeyRecord>();
  async list() {
    return [...this.keys.values()].map((k) => structuredClone(k));
  }
  async addFirst(key: SigningKeyRecord) {
    if (this.keys.size > 0) return false;
    this.keys.set(key.kid, structuredClone(key));
    this.claimedUntil = 0;
    return true;
  }
  private claimedUntil = 0;
  async claimFirst(ttlSeconds: number) {
    if (Date.now() < this.claimedUntil) return false;
    this.claimedUntil = Date.now() + ttlSeconds * 1000;
    return true;
  }
  async add(key: SigningKeyRecord) {
    this.keys.set(key.kid, structuredClone(key));
  }
  async addUnchanged(key: SigningKeyRecord, kids: string[]) {
    const read = new Set(kids);
    const same = read.size === this.keys.size && [...read].every((k) => this.keys.has(k));
    if (same) this.keys.set(key.kid, structuredClone(key));
    return same;
  }
  async remove(kids: string[]) {
    for (const k of kids) this.keys.delete(k);
  }
}

export class MemoryConsentScopes implements ConsentScopeStore {
  /** apps: whether the app exists (no scopes are kept for one that does not). */
  constructor(private readonly apps: { has(clientId: string): boolean }) {}
  private readonly map = new Map<string, string[]>();
  /** client id → the users who have scopes recorded for it (forgetApp). */
  private readonly byApp = new Map<string, Set<string>>();
  async get(userId: string, clientId: string) {
    const s = this.map.get(`${userId} ${clientId}`);
    return s ? [...s] : null;
  }
  async set(userId: string, clientId: string, scopes: string[]) {
    if (!this.apps.has(clientId)) return false;
    this.map.set(`${userId} ${clientId}`, [...scopes]);
    let users = this.byApp.get(clientId);
    if (!users) this.byApp.set(clientId, (users = new Set()));
    users.add(userId);
    return true;
  }
  async clear(userId: string) {
    for (const k of [...this.map.keys()]) if (k.startsWith(`${userId} `)) this.map.delete(k);
    for (const users of this.byApp.values()) users.delete(userId);
  }
  /** Forgets every user's scopes for the app (its deletion: MemoryGrants.forgetApp). */
  forgetApp(clientId: string): void {
    for (const userId of this.byApp.get(clientId) ?? []) this.map.delete(`${userId} ${clientId}`);
    this.byApp.delete(clientId);
  }
  mentionsApp(clientId: string): boolean {
    return this.byApp.has(clientId) || [...this.map.keys()].some((k) => k.endsWith(` ${clientId}`));
  }
}
