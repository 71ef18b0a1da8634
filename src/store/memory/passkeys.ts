// The embedded store's passkeys and WebAuthn challenges, in maps.
import { ExpiringMap } from "./expiring-map.js";
import type { PasskeyChange, PasskeyRecord, PasskeyStore } from "../port.js";
import { changedPasskey } from "../port.js";

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryPasskeys implements PasskeyStore {
  /** credential id → passkey. */
  private readonly byCredential = new Map<string, PasskeyRecord>();
  readonly challenges = new ExpiringMap<string>();

  async add(p: PasskeyRecord) {
    if (this.byCredential.has(p.id)) return false;
    this.byCredential.set(p.id, clone(p));
    return true;
  }
  async listForUser(userId: string) {
    return [...this.byCredential.values()]
      .filter((p) => p.userId === userId)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(clone);
  }
  async byId(id: string) {
    const p = this.byCredential.get(id);
    return p ? clone(p) : null;
  }
  /** Read, change and write with no await between: atomic in this process. */
  async update(userId: string, id: string, change: PasskeyChange) {
    const current = this.byCredential.get(id);
    if (current?.userId !== userId) return null;
    const next = changedPasskey(current, change);
    if (next) this.byCredential.set(id, clone(next));
    return clone(next ?? current);
  }
  async remove(userId: string, id: string) {
    if (this.byCredential.get(id)?.userId !== userId) return false;
    this.byCredential.delete(id);
    return true;
  }
  async removeForUser(userId: string) {
    let n = 0;
    for (const [id, p] of this.byCredential) if (p.userId === userId && this.byCredential.delete(id)) n++;
    return n;
  }
  async saveChallenge(challenge: string, state: string, ttlSeconds: number) {
    this.challenges.set(challenge, state, ttlSeconds * 1000);
  }
  async takeChallenge(challenge: string) {
    const v = this.challenges.get(challenge);
    if (v === undefined) return null;
    this.challenges.delete(challenge);
    return v;
  }
}
