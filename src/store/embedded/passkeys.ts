// The embedded store's passkeys (with an index by user) and WebAuthn challenges, in tables.
import type { PasskeyChange, PasskeyRecord, PasskeyStore, UnlessLast } from "../port.js";
import { changedPasskey } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedPasskeys implements PasskeyStore {
  /** credential id → passkey. */
  private readonly byCredential;
  /** [user id, credential id]. */
  private readonly byUser;
  private readonly challenges;

  constructor(private readonly engine: Engine) {
    this.byCredential = engine.table<PasskeyRecord>("passkeys");
    this.byUser = engine.table<1>("passkeys-by-user");
    this.challenges = engine.table<string>("passkey-challenges");
    this.linksByUser = engine.table<1>("upstream-links-by-user");
  }
  /** The upstream links' index by user (upstream-links.ts): another way in, for removeUnlessLast. */
  private readonly linksByUser;

  add(p: PasskeyRecord) {
    return this.engine.write(() => {
      if (this.byCredential.has(p.id)) return false;
      this.byCredential.put(p.id, p);
      this.byUser.put([p.userId, p.id], 1);
      return true;
    });
  }
  async listForUser(userId: string) {
    return this.byUser
      .range([userId])
      .map((e) => this.byCredential.get(e.key[1]!)) // [user, id]
      .filter((p): p is PasskeyRecord => p !== undefined)
      .sort((a, b) => a.createdAt - b.createdAt);
  }
  async byId(id: string) {
    return this.byCredential.get(id) ?? null;
  }
  update(userId: string, id: string, change: PasskeyChange) {
    return this.engine.write(() => {
      const current = this.byCredential.get(id);
      if (current?.userId !== userId) return null;
      const next = changedPasskey(current, change);
      if (next) this.byCredential.put(id, next);
      return next ?? current;
    });
  }
  remove(userId: string, id: string) {
    return this.engine.write(() => {
      if (this.byCredential.get(id)?.userId !== userId) return false;
      this.byCredential.remove(id);
      this.byUser.remove([userId, id]);
      return true;
    });
  }
  removeUnlessLast(userId: string, id: string) {
    return this.engine.write((): UnlessLast => {
      if (this.byCredential.get(id)?.userId !== userId) return "unknown";
      if (this.byUser.count([userId]) + this.linksByUser.count([userId]) <= 1) return "last";
      this.byCredential.remove(id);
      this.byUser.remove([userId, id]);
      return "removed";
    });
  }
  removeForUser(userId: string) {
    return this.engine.write(() => {
      let n = 0;
      for (const { key } of this.byUser.range([userId])) {
        if (this.byCredential.get(key[1]!)?.userId === userId && this.byCredential.remove(key[1]!)) n++;
        this.byUser.remove(key);
      }
      return n;
    });
  }
  async saveChallenge(challenge: string, state: string, ttlSeconds: number) {
    await this.engine.write(() => this.challenges.put(challenge, state, Date.now() + ttlSeconds * 1000));
  }
  takeChallenge(challenge: string) {
    return this.engine.write(() => {
      const v = this.challenges.get(challenge);
      if (v === undefined) return null;
      this.challenges.remove(challenge);
      return v;
    });
  }
}
