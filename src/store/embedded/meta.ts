// The embedded store's own records (store/ports/meta.ts): the data version, the migration lock and
// the SECRET's check, in the "meta" table. On LMDB they last with the data, so a DATA_DIR written by an older Sigil is
// migrated at start as a Redis is; each step that is atomic on Redis is one write().
import type { MetaStore } from "../port.js";
import type { Engine } from "./engine.js";

/** The meta table's key of the restore horizon (BackupPort markRestored): a time (ms); absent: never restored. */
export const RESTORED_AT = "restored-at";

/** The store's restore horizon as it stands now (0: never restored), read afresh on every call. */
export function restoreHorizon(engine: Engine): number {
  const v = engine.table<unknown>("meta").get(RESTORED_AT);
  return typeof v === "number" ? v : 0;
}

interface Lock {
  token: string;
  until: number;
}

export class EmbeddedMeta implements MetaStore {
  private readonly meta;

  constructor(private readonly engine: Engine) {
    this.meta = engine.table<number | string | Lock>("meta");
  }

  async dataVersion(): Promise<number | null> {
    const v = this.meta.get("data-version");
    if (v === undefined) return null;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0)
      throw new Error("the store's data version is not a whole number");
    return v;
  }

  stampDataVersion(version: number): Promise<number> {
    return this.engine.write(() => {
      const v = this.meta.get("data-version");
      if (typeof v === "number") return v;
      this.meta.put("data-version", version);
      return version;
    });
  }

  async setDataVersion(version: number): Promise<void> {
    await this.engine.write(() => this.meta.put("data-version", version));
  }

  private lock(): Lock | undefined {
    const l = this.meta.get("migration-lock");
    return typeof l === "object" && l.until > Date.now() ? l : undefined;
  }

  async secretCheck(): Promise<string | null> {
    const v = this.meta.get("secret-check");
    return typeof v === "string" ? v : null;
  }

  stampSecretCheck(check: string): Promise<string> {
    return this.engine.write(() => {
      const v = this.meta.get("secret-check");
      if (typeof v === "string") return v;
      this.meta.put("secret-check", check);
      return check;
    });
  }

  async setSecretCheck(check: string): Promise<void> {
    await this.engine.write(() => this.meta.put("secret-check", check));
  }

  takeMigrationLock(token: string, ttlMs: number): Promise<boolean> {
    return this.engine.write(() => {
      if (this.lock()) return false;
      this.meta.put("migration-lock", { token, until: Date.now() + ttlMs });
      return true;
    });
  }

  renewMigrationLock(token: string, ttlMs: number): Promise<boolean> {
    return this.engine.write(() => {
      if (this.lock()?.token !== token) return false;
      this.meta.put("migration-lock", { token, until: Date.now() + ttlMs });
      return true;
    });
  }

  async releaseMigrationLock(token: string): Promise<void> {
    await this.engine.write(() => {
      const l = this.meta.get("migration-lock");
      if (typeof l === "object" && l.token === token) this.meta.remove("migration-lock");
    });
  }
}
