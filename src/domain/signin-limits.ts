// The sign-in limits (docs/http-api.md#rate-limits, numbers in domain/limits.ts): failed sign-ins per
// username and address, and per address. One pair of counters for every way of signing
// in — a wrong password (accounts.ts) and a refused passkey answer (passkeys.ts) — so that neither
// way gives more tries than the other, and switching between them gives none at all.
import { rateLimited } from "../errors.js";
import type { AttemptLimiter, LimitResult, Store } from "../store/port.js";
import { LIMITS } from "./limits.js";

/**
 * The per-username limit is counted per address too (docs/http-api.md#pages): counting a username's failures
 * from every address together would let anyone lock its owner out with ten wrong passwords. The
 * address comes first; it holds no space, so no two (username, address) pairs share a key.
 */
const userAtAddress = (username: string, address: string) => `${address} ${username}`;

/**
 * Callers check before the costly work and count only what failed (as with challenge answers):
 * - while a limit is used up every attempt is refused (429) before anything is checked, the right
 *   one too, so the limit never tells which attempt would have been right;
 * - a failure is counted on both limits at once (each atomic in the store), and the one that goes
 *   past a limit is answered 429 instead of its own refusal, so failures sent at once never get
 *   more answers than the limit allows;
 * - a success counts nothing. A right password is checked once more after the work, so that it
 *   is refused when failures reached a limit meanwhile (passwords sent at once never have more
 *   than the limit's worth judged); a passkey's answer cannot be guessed, so it needs no second check.
 * `username` is the name tried (a password sign-in: whatever was typed, known or not) or the
 * owner of the passkey answered with; null when there is none (a passkey nobody has): then only
 * the address's limit applies.
 */
export class SignInLimits {
  private readonly perUserAddress: AttemptLimiter;
  private readonly perAddress: AttemptLimiter;

  constructor(store: Store) {
    this.perUserAddress = store.limiter(LIMITS.signInPerUserAddress);
    this.perAddress = store.limiter(LIMITS.signInPerAddress);
  }

  /** 429 when this address, or this username from it, has used up its failures; counts nothing. */
  async check(username: string | null, address: string): Promise<void> {
    refuseWhenLimited(
      await Promise.all([
        ...(username === null ? [] : [this.perUserAddress.check(userAtAddress(username, address))]),
        this.perAddress.check(address),
      ]),
    );
  }

  /** Counts one failure on both limits; 429 when it goes past one (the caller then answers that instead). */
  async fail(username: string | null, address: string): Promise<void> {
    refuseWhenLimited(
      await Promise.all([
        ...(username === null ? [] : [this.perUserAddress.consume(userAtAddress(username, address))]),
        this.perAddress.consume(address),
      ]),
    );
  }
}

function refuseWhenLimited(results: LimitResult[]): void {
  if (results.every((r) => r.allowed)) return;
  const waits = results.map((r) => (r.allowed ? 0 : r.retryAfterMs));
  throw rateLimited(Math.max(...waits) / 1000, "err.signinThrottled");
}
