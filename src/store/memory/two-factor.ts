// The embedded store's two-factor (store/ports/two-factor.ts), in maps.
import type { TwoFactorRecord, TwoFactorStore } from "../port.js";

export class MemoryTwoFactor implements TwoFactorStore {
  readonly records = new Map<string, TwoFactorRecord>();
  readonly recovery = new Map<string, Set<string>>();
  /** "<user id> <step>" → when the mark ends (ms). */
  readonly steps = new Map<string, number>();

  async get(userId: string) {
    const r = this.records.get(userId);
    return r ? { ...r } : null;
  }
  async enable(
    userId: string,
    record: TwoFactorRecord,
    recoveryHashes: string[],
    expect?: { replaces: number | null },
  ) {
    if (expect && (this.records.get(userId)?.enabledAt ?? null) !== expect.replaces) return false;
    this.records.set(userId, { ...record });
    this.recovery.set(userId, new Set(recoveryHashes));
    return true;
  }
  async disable(userId: string) {
    this.recovery.delete(userId);
    for (const k of this.steps.keys()) if (k.startsWith(`${userId} `)) this.steps.delete(k);
    return this.records.delete(userId);
  }
  async useStep(userId: string, step: number, ttlSeconds: number) {
    const now = Date.now();
    for (const [k, until] of this.steps) if (until <= now) this.steps.delete(k);
    const key = `${userId} ${step}`;
    if (this.steps.has(key)) return false;
    this.steps.set(key, now + ttlSeconds * 1000);
    return true;
  }
  async useRecoveryCode(userId: string, hash: string) {
    return this.recovery.get(userId)?.delete(hash) ?? false;
  }
  async replaceRecoveryCodes(userId: string, recoveryHashes: string[]) {
    if (!this.records.has(userId)) return false;
    this.recovery.set(userId, new Set(recoveryHashes));
    return true;
  }
  async recoveryCodesLeft(userId: string) {
    return this.recovery.get(userId)?.size ?? 0;
  }
}
