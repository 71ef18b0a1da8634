// The embedded in-process store: one node only, data lost on exit. Same contract as Redis.
import { timingSafeEqual } from "node:crypto";
import { RateLimiterMemory } from "rate-limiter-flexible";
import type { AttemptLimiter, ChallengeRecord, ChallengeStore, LimiterSpec, SolveAttempt, SolveResult, SolveRules, Store } from "./port.js";
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
  /** Wrong answers per key and per (key, address), in fixed windows (as the Redis counters). */
  readonly wrong = new ExpiringMap<{ n: number; resetAt: number }>();

  constructor(private readonly events: MemoryEventLog) {}

  async create(key: string, record: ChallengeRecord, ttlSeconds: number): Promise<boolean> {
    if (this.map.has(key)) return false;
    this.map.set(key, structuredClone(record), ttlSeconds * 1000);
    return true;
  }

  async get(key: string): Promise<ChallengeRecord | null> {
    const r = this.map.get(key);
    return r ? structuredClone(r) : null;
  }

  // Synchronous from the read to the event, so that it is one atomic step in this process.
  async solve(a: SolveAttempt, rules: SolveRules): Promise<SolveResult> {
    const rec = this.map.get(a.key);
    if (!rec) return { status: "unknown" };
    const l = rules.limits;
    const perKey = `${a.key}\n`;
    const perAddress = `${a.key}\n${a.address}`;
    const wait = Math.max(this.waitFor(perAddress, l.perAddress), this.waitFor(perKey, l.perKey));
    if (wait > 0) return { status: "limited", retryAfterMs: wait };
    const given = Buffer.from(a.answerHash, "hex");
    const stored = Buffer.from(rec.answerHash, "hex");
    const correct = given.length === stored.length && timingSafeEqual(given, stored);
    if (!correct) {
      this.countWrong(perAddress, l.perAddressWindow);
      this.countWrong(perKey, l.perKeyWindow);
    }
    if (rec.owner === undefined) return { status: "counted", correct };
    const event = this.events.appendNow(rec.owner, { key: a.key, correct, at: a.at }, rules.history);
    return { status: "counted", correct, event: { app: rec.owner, ...event } };
  }

  private waitFor(id: string, limit: number): number {
    const c = this.wrong.get(id);
    return c && c.n >= limit ? Math.max(1, c.resetAt - Date.now()) : 0;
  }

  private countWrong(id: string, windowSeconds: number): void {
    const c = this.wrong.get(id);
    if (c) c.n++;
    else this.wrong.set(id, { n: 1, resetAt: Date.now() + windowSeconds * 1000 }, windowSeconds * 1000);
  }
}

export class MemoryStore implements Store {
  readonly kind = "memory" as const;
  /** In-process feed of new events and revocations (MemoryFeed listens to it). */
  readonly bus = new MemoryBus();
  readonly customTokens = new MemoryCustomTokens(this.bus);
  readonly events = new MemoryEventLog(this.bus);
  readonly challenges = new MemoryChallenges(this.events);
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
    this.challenges.wrong.close();
    this.sessions.map.close();
    this.grants.close();
  }
}
