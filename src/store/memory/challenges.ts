// The embedded store's challenges: records, wrong-answer counters and the solve step.
import { timingSafeEqual } from "node:crypto";
import type { ChallengeRecord, ChallengeStore, SolveAttempt, SolveResult, SolveRules } from "../port.js";
import { ExpiringMap } from "./expiring-map.js";
import type { MemoryEventLog } from "./realtime.js";

export class MemoryChallenges implements ChallengeStore {
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
