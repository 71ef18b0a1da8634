// The embedded store's two-factor (store/ports/two-factor.ts): the record, the recovery code
// hashes ([user, hash]) and the used time steps ([user, step], expiring).
import type { TwoFactorRecord, TwoFactorStore } from "../port.js";
import type { Engine } from "./engine.js";

export class EmbeddedTwoFactor implements TwoFactorStore {
  private readonly records;
  private readonly recovery;
  private readonly steps;

  constructor(private readonly engine: Engine) {
    this.records = engine.table<TwoFactorRecord>("two-factor");
    this.recovery = engine.table<1>("recovery-codes");
    this.steps = engine.table<1>("used-steps");
  }

  async get(userId: string) {
    return this.records.get(userId) ?? null;
  }
  private setRecovery(userId: string, hashes: string[]): void {
    for (const { key } of this.recovery.range([userId])) this.recovery.remove(key);
    for (const h of hashes) this.recovery.put([userId, h], 1);
  }
  enable(userId: string, record: TwoFactorRecord, recoveryHashes: string[], expect?: { replaces: number | null }) {
    return this.engine.write(() => {
      if (expect && (this.records.get(userId)?.enabledAt ?? null) !== expect.replaces) return false;
      this.records.put(userId, record);
      this.setRecovery(userId, recoveryHashes);
      return true;
    });
  }
  disable(userId: string) {
    return this.engine.write(() => {
      this.setRecovery(userId, []);
      for (const { key } of this.steps.range([userId])) this.steps.remove(key);
      return this.records.remove(userId);
    });
  }
  useStep(userId: string, step: number, ttlSeconds: number) {
    return this.engine.write(() => {
      if (this.steps.has([userId, step])) return false;
      this.steps.put([userId, step], 1, Date.now() + ttlSeconds * 1000);
      return true;
    });
  }
  useRecoveryCode(userId: string, hash: string) {
    return this.engine.write(() => this.recovery.remove([userId, hash]));
  }
  replaceRecoveryCodes(userId: string, recoveryHashes: string[]) {
    return this.engine.write(() => {
      if (!this.records.has(userId)) return false;
      this.setRecovery(userId, recoveryHashes);
      return true;
    });
  }
  async recoveryCodesLeft(userId: string) {
    return this.recovery.count([userId]);
  }
}
