// Failure counters shared by every node (sign-in, client authentication, challenges).

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
