// The in-process store's data version and migration lock: fields of the process.
import type { MetaStore } from "../port.js";

export class MemoryMeta implements MetaStore {
  private version: number | null = null;
  private lock: { token: string; until: number } | undefined;

  async dataVersion(): Promise<number | null> {
    return this.version;
  }

  async stampDataVersion(version: number): Promise<number> {
    this.version ??= version;
    return this.version;
  }

  async setDataVersion(version: number): Promise<void> {
    this.version = version;
  }

  async takeMigrationLock(token: string, ttlMs: number): Promise<boolean> {
    if (this.lock && this.lock.until > Date.now()) return false;
    this.lock = { token, until: Date.now() + ttlMs };
    return true;
  }

  async renewMigrationLock(token: string, ttlMs: number): Promise<boolean> {
    if (this.lock?.token !== token || this.lock.until <= Date.now()) return false;
    this.lock.until = Date.now() + ttlMs;
    return true;
  }

  async releaseMigrationLock(token: string): Promise<void> {
    if (this.lock?.token === token) this.lock = undefined;
  }
}
