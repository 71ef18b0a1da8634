// Attempt limiters on rate-limiter-flexible (well-kept, atomic Lua on Redis, same semantics in
// memory), adapted to the port: "over the limit" is a result, a store failure is an error.
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { StoreUnavailableError } from "../errors.js";
import type { AttemptLimiter, LimitResult } from "./port.js";

export function adaptLimiter(
  rl: RateLimiterAbstract,
  /**
   * Whether a counter is stored under the limiter's key (rl.getKey): one plain read, which on
   * Redis rides the automatic pipeline. rate-limiter-flexible's get() is a MULTI of GET and PTTL,
   * a transaction and a socket write of its own on every check; most checks (every /token
   * success) find no counter and need nothing more.
   */
  counterExists?: (key: string) => Promise<boolean>,
): AttemptLimiter {
  return {
    async consume(id: string): Promise<LimitResult> {
      try {
        const res = await rl.consume(id, 1);
        return { allowed: true, remaining: res.remainingPoints };
      } catch (err) {
        if (err instanceof RateLimiterRes) return { allowed: false, retryAfterMs: err.msBeforeNext };
        throw new StoreUnavailableError(err);
      }
    },
    async check(id: string): Promise<LimitResult> {
      // A read (GET and PTTL), never a write: a check of an id that never failed leaves no counter
      // (a consume(0) would make one, naming the id for a whole window, on every success).
      let res: RateLimiterRes | null;
      try {
        if (counterExists !== undefined && !(await counterExists(rl.getKey(id))))
          return { allowed: true, remaining: rl.points };
        res = await rl.get(id);
      } catch (err) {
        throw new StoreUnavailableError(err);
      }
      if (res === null) return { allowed: true, remaining: rl.points };
      // A check says no as soon as the points are used up.
      if (res.remainingPoints <= 0) return { allowed: false, retryAfterMs: Math.max(1, res.msBeforeNext) };
      return { allowed: true, remaining: res.remainingPoints };
    },
  };
}
