// The embedded store's challenges: records, wrong-answer counters and the solve step, which is
// one write with the event it appends (as the Redis Lua script).
import { timingSafeEqual } from "node:crypto";
import type { ChallengeRecord, ChallengeStore, SolveAttempt, SolveResult, SolveRules } from "../port.js";
import type { Engine } from "./engine.js";
import type { EmbeddedEventLog } from "./realtime.js";

interface Counter {
  n: number;
  resetAt: number;
}

export class EmbeddedChallenges implements ChallengeStore {
  private readonly records;
  /** Wrong answers per key and per (key, address), in fixed windows (as the Redis counters). */
  private readonly wrong;

  constructor(
    private readonly engine: Engine,
    private readonly events: EmbeddedEventLog,
  ) {
    this.records = engine.table<ChallengeRecord>("challenges");
    this.wrong = engine.table<Counter>("wrong-answers");
  }

  create(key: string, record: ChallengeRecord, ttlSeconds: number): Promise<boolean> {
    return this.engine.write(() => this.records.add(key, record, Date.now() + ttlSeconds * 1000));
  }

  async get(key: string): Promise<ChallengeRecord | null> {
    return this.records.get(key) ?? null;
  }

  async solve(a: SolveAttempt, rules: SolveRules): Promise<SolveResult> {
    const result = await this.engine.write((): SolveResult => {
      const rec = this.records.get(a.key);
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
      const event = this.events.appendIn(rec.owner, { key: a.key, correct, at: a.at }, rules.history);
      return { status: "counted", correct, event: { app: rec.owner, ...event } };
    });
    // Told once durable (the Redis script publishes in the same step).
    if (result.status === "counted" && result.event) {
      const { app, ...event } = result.event;
      this.events.announce(app, event);
    }
    return result;
  }

  private waitFor(id: string, limit: number): number {
    const c = this.wrong.get(id);
    return c && c.n >= limit ? Math.max(1, c.resetAt - Date.now()) : 0;
  }

  private countWrong(id: string, windowSeconds: number): void {
    const c = this.wrong.get(id);
    if (c) this.wrong.put(id, { ...c, n: c.n + 1 }, c.resetAt);
    else {
      const resetAt = Date.now() + windowSeconds * 1000;
      this.wrong.put(id, { n: 1, resetAt }, resetAt);
    }
  }
}
