// The embedded store's signing keys and consented scopes (store/ports/keys.ts), in tables.
import type { ConsentScopeStore, SigningKeyRecord, SigningKeyStore } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedSigningKeys implements SigningKeyStore {
  private readonly keys;
  /** "first" → the claim on making the first key, expiring. */
  private readonly claims;

  constructor(private readonly engine: Engine) {
    this.keys = engine.table<SigningKeyRecord>("signing-keys");
    this.claims = engine.table<1>("signing-key-claims");
  }
  private scan(): SigningKeyRecord[] {
    return this.keys.range([]).map((e) => e.value);
  }
  async list() {
    return this.scan();
  }
  addFirst(key: SigningKeyRecord) {
    return this.engine.write(() => {
      if (this.scan().length > 0) return false;
      this.keys.put(key.kid, key);
      this.claims.remove("first");
      return true;
    });
  }
  claimFirst(ttlSeconds: number) {
    return this.engine.write(() => {
      if (this.claims.has("first")) return false;
      this.claims.put("first", 1, Date.now() + ttlSeconds * 1000);
      return true;
    });
  }
  async add(key: SigningKeyRecord) {
    await this.engine.write(() => this.keys.put(key.kid, key));
  }
  addUnchanged(key: SigningKeyRecord, kids: string[]) {
    return this.engine.write(() => {
      const read = new Set(kids);
      const now = this.scan().map((k) => k.kid);
      const same = read.size === now.length && now.every((k) => read.has(k));
      if (same) this.keys.put(key.kid, key);
      return same;
    });
  }
  async remove(kids: string[]) {
    await this.engine.write(() => kids.forEach((k) => this.keys.remove(k)));
  }
}

export class EmbeddedConsentScopes implements ConsentScopeStore {
  private readonly scopes;
  /** [client id, user id]: the users who have scopes recorded for an app (forgetApp). */
  private readonly byApp;

  /** apps: whether the app exists (no scopes are kept for one that does not). */
  constructor(
    private readonly engine: Engine,
    private readonly apps: { has(clientId: string): boolean },
  ) {
    this.scopes = engine.table<string[]>("consent-scopes");
    this.byApp = engine.table<1>("consent-scopes-by-app");
  }
  async get(userId: string, clientId: string) {
    return this.scopes.get([userId, clientId]) ?? null;
  }
  set(userId: string, clientId: string, scopes: string[]) {
    return this.engine.write(() => {
      if (!this.apps.has(clientId)) return false;
      this.scopes.put([userId, clientId], scopes);
      this.byApp.put([clientId, userId], 1);
      return true;
    });
  }
  async clear(userId: string) {
    await this.engine.write(() => {
      for (const { key } of this.scopes.range([userId])) {
        this.scopes.remove(key);
        this.byApp.remove([key[1]!, userId]); // [user, client]
      }
    });
  }
  /** Inside write(): forgets every user's scopes for the app (its deletion: EmbeddedGrants.forgetApp). */
  forgetAppIn(clientId: string): void {
    for (const { key } of this.byApp.range([clientId])) {
      this.scopes.remove([key[1]!, clientId]); // [client, user]
      this.byApp.remove(key);
    }
  }
}
