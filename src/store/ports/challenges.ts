// Challenges: records, and the one atomic solve step (docs/http-api.md#challenges).
import type { HistoryLimits, StoredEvent } from "./realtime.js";

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
