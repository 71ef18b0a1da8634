// A map with expiring entries: the embedded store's stand-in for Redis key TTLs.
/** A map whose entries expire; expired entries are dropped on read and by a periodic sweep. */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(sweepMs = 30_000) {
    this.timer = setInterval(() => this.sweep(), sweepMs);
    this.timer.unref();
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.entries.set(key, { value, expiresAt: Date.now() + ttlMs });
  }

  /** Replaces the value and keeps the entry's expiry; a missing entry gets ttlMs. */
  replace(key: string, value: V, ttlMs: number): void {
    const e = this.entries.get(key);
    if (e && e.expiresAt > Date.now()) e.value = value;
    else this.set(key, value, ttlMs);
  }

  /** Moves a live entry's expiry to untilMs (epoch ms) when that is later (Redis PEXPIREAT GT). */
  extendTo(key: string, untilMs: number): void {
    const e = this.entries.get(key);
    if (e && e.expiresAt > Date.now() && untilMs > e.expiresAt) e.expiresAt = untilMs;
  }

  /** Whether a live entry's value matches. */
  some(match: (value: V) => boolean): boolean {
    const now = Date.now();
    for (const e of this.entries.values()) if (e.expiresAt > now && match(e.value)) return true;
    return false;
  }

  /** Deletes every entry whose value matches. */
  deleteWhere(match: (value: V) => boolean): void {
    for (const [k, e] of this.entries) if (match(e.value)) this.entries.delete(k);
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  /** How many entries are held (expired ones until the next sweep or read drops them). */
  get size(): number {
    return this.entries.size;
  }

  sweep(): void {
    const now = Date.now();
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
  }

  close(): void {
    clearInterval(this.timer);
    this.entries.clear();
  }
}
