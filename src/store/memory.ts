// The embedded in-process store: one node only, data lost on exit. Same contract as Redis.
import { RateLimiterMemory } from "rate-limiter-flexible";
import type { AttemptLimiter, ChallengeRecord, ChallengeStore, LimiterSpec, Store } from "./port.js";
import { adaptLimiter } from "./limiter.js";
import { MemoryBus, MemoryCustomTokens, MemoryEventLog } from "./memory/realtime.js";
import { MemoryAccounts, MemoryApps, MemoryGrants, MemorySessions } from "./memory/signin.js";

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

class MemoryChallenges implements ChallengeStore {
  readonly map = new ExpiringMap<ChallengeRecord>();

  async create(key: string, record: ChallengeRecord, ttlSeconds: number): Promise<boolean> {
    if (this.map.has(key)) return false;
    this.map.set(key, structuredClone(record), ttlSeconds * 1000);
    return true;
  }

  async get(key: string): Promise<ChallengeRecord | null> {
    const r = this.map.get(key);
    return r ? structuredClone(r) : null;
  }
}

export class MemoryStore implements Store {
  readonly kind = "memory" as const;
  readonly challenges = new MemoryChallenges();
  /** In-process feed of new events and revocations (MemoryFeed listens to it). */
  readonly bus = new MemoryBus();
  readonly customTokens = new MemoryCustomTokens(this.bus);
  readonly events = new MemoryEventLog(this.bus);
  readonly accounts = new MemoryAccounts();
  readonly sessions = new MemorySessions();
  readonly apps = new MemoryApps();
  readonly grants = new MemoryGrants({ accounts: this.accounts, apps: this.apps });

  limiter(spec: LimiterSpec): AttemptLimiter {
    return adaptLimiter(
      new RateLimiterMemory({ keyPrefix: spec.name, points: spec.points, duration: spec.windowSeconds }),
    );
  }

  /**
   * How many expiring entries the store holds (sessions, challenges, codes, tokens): what traffic
   * could grow. Tests compare it as they compare Redis's DBSIZE.
   */
  entryCount(): number {
    return this.sessions.map.size + this.challenges.map.size + this.grants.codes.size + this.grants.used.size + this.grants.tokens.size;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.challenges.map.close();
    this.sessions.map.close();
    this.grants.close();
  }
}
