// Attempt limiters on rate-limiter-flexible (well-kept, atomic Lua on Redis, same semantics in
// memory), adapted to the port: "over the limit" is a result, a store failure is an error.
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { StoreUnavailableError } from "../errors.js";
import type { AttemptLimiter, LimitResult } from "./port.js";

export function adaptLimiter(rl: RateLimiterAbstract): AttemptLimiter {
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
      try {
        const res = await rl.consume(id, 0);
        // consume(0) is refused only past the limit; a check says no as soon as it is used up.
        if (res.remainingPoints <= 0) return { allowed: false, retryAfterMs: Math.max(1, res.msBeforeNext) };
        return { allowed: true, remaining: res.remainingPoints };
      } catch (err) {
        if (err instanceof RateLimiterRes) return { allowed: false, retryAfterMs: err.msBeforeNext };
        throw new StoreUnavailableError(err);
      }
    },
  };
}
