// ---- The store's own records (docs/operations.md#upgrading): the data version, the format its
// data is in (src/store/migrations.ts), the lock that lets one node at a time migrate it, and the
// check of the SECRET it was made with (store/start.ts: an HMAC under SECRET, never the secret).

export interface MetaStore {
  /**
   * The data version recorded in the store, or null when none is (a store no node has started on
   * since versions were recorded). Throws when the record is not a whole number.
   */
  dataVersion(): Promise<number | null>;
  /** Records the version only when none is recorded (atomic); returns the version recorded now. */
  stampDataVersion(version: number): Promise<number>;
  /** Records the version (after a migration step). */
  setDataVersion(version: number): Promise<void>;
  /**
   * Takes the migration lock for ttlMs under token, when nobody holds it (atomic): true when taken.
   * A holder that crashes lets it lapse after ttlMs; a live holder renews it.
   */
  takeMigrationLock(token: string, ttlMs: number): Promise<boolean>;
  /** Extends the lock to ttlMs from now when token still holds it: false when it was lost. */
  renewMigrationLock(token: string, ttlMs: number): Promise<boolean>;
  /** Releases the lock when token holds it (compare and delete); a lock taken over is left alone. */
  releaseMigrationLock(token: string): Promise<void>;
  /** The check value of the SECRET the store was made with, or null when none is recorded. */
  secretCheck(): Promise<string | null>;
  /** Records the check only when none is recorded (atomic); returns the check recorded now. */
  stampSecretCheck(check: string): Promise<string>;
  /** Records the check in place of any other (a node started after a change of SECRET). */
  setSecretCheck(check: string): Promise<void>;
}

/** A recorded version that is not a whole number: the store was written by something else. */
export function parseDataVersion(raw: string | null): number | null {
  if (raw === null) return null;
  if (!/^\d{1,9}$/.test(raw))
    throw new Error(`the store's data version is not a whole number (${JSON.stringify(raw.slice(0, 20))})`);
  return Number(raw);
}
