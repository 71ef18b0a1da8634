// The store port: what the domain needs from persistence, and nothing more. Two implementations
// (redis.ts, memory.ts) pass one contract suite (test/store.contract.test.ts). Every method may
// throw StoreUnavailableError when the backing store cannot be reached.
import type { CustomTokenStore, EventLog, HistoryLimits, StoredEvent } from "./realtime-port.js";

import type { AccountStore, AppStore, GrantStore, SessionStore } from "./signin-port.js";

export interface ChallengeRecord {
  question: string;
  /** Keyed hash of the NFC-normalised answer (hex); the answer itself is never stored. */
  answerHash: string;
  /** client_id of the app that owns the challenge (its solve results are pushed to it). */
  owner?: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

export interface ChallengeStore {
  /** Stores a new challenge that expires after ttlSeconds. Returns false when the key exists. */
  create(key: string, record: ChallengeRecord, ttlSeconds: number): Promise<boolean>;
  /** The challenge, or null when unknown or expired. */
  get(key: string): Promise<ChallengeRecord | null>;
  /**
   * Decides one solve attempt in one atomic step (docs/http-api.md#challenges): refused when wrong answers have
   * already reached a limit; else compared, counted when wrong, and, on an owned challenge,
   * recorded in the app's history (and told to every node) before it is answered.
   */
  solve(attempt: SolveAttempt, rules: SolveRules): Promise<SolveResult>;
}

export interface SolveAttempt {
  key: string;
  /** The client address; wrong answers are limited per (key, address) and per key. */
  address: string;
  /** Keyed hash of the NFC-normalised answer, made as ChallengeRecord.answerHash is. */
  answerHash: string;
  /** ISO 8601: the time of the attempt, as its event says. */
  at: string;
}

export interface SolveRules {
  /** Wrong answers allowed per window (seconds), per (key, address) and per key. */
  limits: { perAddress: number; perAddressWindow: number; perKey: number; perKeyWindow: number };
  history: HistoryLimits;
}

export type SolveResult =
  | { status: "unknown" }
  /** Wrong answers had already reached a limit; nothing was counted or recorded. */
  | { status: "limited"; retryAfterMs: number }
  /** Compared (and counted when wrong); `event` is the history entry of an owned challenge. */
  | { status: "counted"; correct: boolean; event?: StoredEvent & { app: string } };

export type LimitResult = { allowed: true; remaining: number } | { allowed: false; retryAfterMs: number };

/**
 * A fixed-window counter of failures shared by every node. Callers check before the costly work
 * and count only what failed, so successes never use up the limit.
 */
export interface AttemptLimiter {
  /** Counts one attempt, atomically; refused when it goes past the limit. */
  consume(id: string): Promise<LimitResult>;
  /** Whether id has an attempt left (refused once the limit is used up), without counting one. */
  check(id: string): Promise<LimitResult>;
}

export interface LimiterSpec {
  /** Short name; part of the key, so two limiters never share counters. */
  name: string;
  points: number;
  windowSeconds: number;
}

export interface Store {
  readonly kind: "memory" | "redis";
  readonly challenges: ChallengeStore;
  readonly customTokens: CustomTokenStore;
  readonly events: EventLog;
  /** Sign-in (signin-port.ts). */
  readonly accounts: AccountStore;
  readonly sessions: SessionStore;
  readonly apps: AppStore;
  readonly grants: GrantStore;
  limiter(spec: LimiterSpec): AttemptLimiter;
  /** Resolves when the store answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  /** Releases what the store holds (not the injected Redis clients: their owner closes them). */
  close(): Promise<void>;
}
