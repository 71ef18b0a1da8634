// The store port: what the domain needs from persistence, and nothing more. Two implementations
// (redis.ts, memory.ts) pass one contract suite (test/store.contract.test.ts). Every method may
// throw StoreUnavailableError when the backing store cannot be reached.
import type { CustomTokenStore, EventLog } from "./realtime-port.js";

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
}

export type LimitResult = { allowed: true; remaining: number } | { allowed: false; retryAfterMs: number };

/** A fixed-window counter shared by every node: reserve an attempt, refund it if it did not count. */
export interface AttemptLimiter {
  consume(id: string): Promise<LimitResult>;
  /** Whether id is already over its limit, without counting an attempt. */
  check(id: string): Promise<LimitResult>;
  refund(id: string): Promise<void>;
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
