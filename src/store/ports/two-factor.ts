// Two-factor with an authenticator app (docs/http-api.md#two-factor): the sealed TOTP secret, the
// hashes of the recovery codes, and the time steps already used (each code works once).

export interface TwoFactorRecord {
  /** The TOTP secret (base32), sealed under SECRET (domain/two-factor.ts): never in clear. */
  sealedSecret: string;
  /** When two-factor was turned on (ms since the epoch). */
  enabledAt: number;
}

export interface TwoFactorStore {
  /** The user's two-factor, or null when it is off. */
  get(userId: string): Promise<TwoFactorRecord | null>;
  /**
   * Turns two-factor on (or replaces it): the record and exactly these recovery code hashes. With
   * `expect`, atomically and only while the user's two-factor is still as expected (`replaces`:
   * null for off, or the enabledAt of the record to replace); false, and nothing changed, otherwise.
   */
  enable(
    userId: string,
    record: TwoFactorRecord,
    recoveryHashes: string[],
    expect?: { replaces: number | null },
  ): Promise<boolean>;
  /**
   * Turns two-factor off: the record, the recovery codes and the used steps are gone (everything
   * the store holds for the user's two-factor). true when it was on.
   */
  disable(userId: string): Promise<boolean>;
  /**
   * Uses the time step of a TOTP code, atomically: true the first time for (userId, step), false
   * after (a replay), until ttlSeconds have passed (longer than the step can be accepted).
   */
  useStep(userId: string, step: number, ttlSeconds: number): Promise<boolean>;
  /** Uses a recovery code, atomically: true once (the hash is removed), false when unknown or used. */
  useRecoveryCode(userId: string, hash: string): Promise<boolean>;
  /**
   * Replaces the recovery codes with exactly these hashes, atomically and only while two-factor is
   * on; false, and nothing changed, otherwise.
   */
  replaceRecoveryCodes(userId: string, recoveryHashes: string[]): Promise<boolean>;
  /** How many recovery codes are left. */
  recoveryCodesLeft(userId: string): Promise<number>;
}
