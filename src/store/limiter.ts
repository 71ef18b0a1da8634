// Attempt limiters on rate-limiter-flexible (well-kept, atomic Lua on Redis, same semantics in
// memory), adapted to the port: "over the limit" is a result, a store failure is an error. What a
// limiter counts (an address, a username, a user id, an email address) never appears in a key: a
// counter is stored under a keyed hash of it (HMAC-SHA256 under a key derived from SECRET), so a
// deleted account's counters, which live out their window, name nobody.
import { createHmac, hkdfSync } from "node:crypto";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { StoreUnavailableError } from "../errors.js";
import { Remembered } from "../remembered.js";
import type { AttemptLimiter, LimitResult } from "./port.js";

/** The key counters' ids are hashed under: derived from SECRET for this one purpose. */
export function limiterKey(secret: string | Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "sigil", "sigil limiter ids v1", 32));
}

/** How a limiter's counter is keyed: the limiter's name and the id, hashed (base64url, 43 characters). */
export const counterId = (key: Buffer, name: string, id: string): string =>
  createHmac("sha256", key).update(`${name}\0${id}`).digest("base64url");

/**
 * Ids whose hash a limiter remembers (a keyed hash per check otherwise: a busy app's /token checks
 * the same client and address over and over); past it, forgotten at once. Only in this process's
 * memory, which holds the ids while their requests run anyway; never stored.
 */
const HASHES_KEPT = 1000;

export function adaptLimiter(
  rl: RateLimiterAbstract,
  /** The id as stored (counterId): what is counted, hashed. */
  stored: (id: string) => string,
  /**
   * Whether a counter is stored under the limiter's key (rl.getKey): one plain read, which on
   * Redis rides the automatic pipeline. rate-limiter-flexible's get() is a MULTI of GET and PTTL,
   * a transaction and a socket write of its own on every check; most checks (every /token
   * success) find no counter and need nothing more.
   */
  counterExists?: (key: string) => Promise<boolean>,
): AttemptLimiter {
  const hashes = new Remembered<string, string>(HASHES_KEPT);
  const hashed = (raw: string): string => hashes.get(raw, () => stored(raw));
  return {
    async consume(raw: string): Promise<LimitResult> {
      const id = hashed(raw);
      try {
        const res = await rl.consume(id, 1);
        return { allowed: true, remaining: res.remainingPoints };
      } catch (err) {
        if (err instanceof RateLimiterRes) return { allowed: false, retryAfterMs: err.msBeforeNext };
        throw new StoreUnavailableError(err);
      }
    },
    async check(raw: string): Promise<LimitResult> {
      const id = hashed(raw);
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
