// Handshake token checks, remembered for a moment (docs/realtime.md#connecting): a burst of sockets
// presenting one CUSTOM TOKEN (an app's workers reconnecting after a node went away) costs one
// signature check and one store read, not one per socket. Revocation stays immediate:
// - a revocation heard on the feed forgets the token at once (and the registry drops its sockets);
// - nothing is remembered while the feed is not heard (before it is subscribed, or from the moment
//   its connection closes until it is back), since revocations made meanwhile would go unheard;
// - a check started before a revocation was heard is used for the handshakes that waited on it
//   (as an uncached check racing the revocation would be: the registry drops those sockets as they
//   connect) but never remembered;
// - an entry lives at most LIFETIME_MS, bounding what a feed failure nobody noticed could let in;
// - the token's own expiry is checked on every use.
// Only successes are remembered; a refused token is checked again each time.
import type { CustomTokens, TokenIdentity } from "../domain/custom-tokens.js";

/** How long a verified token is reused without a new check. */
const LIFETIME_MS = 1000;
/** Most tokens remembered at once (oldest forgotten first). */
const MAX_ENTRIES = 10_000;

interface Entry {
  /** The check, shared by the handshakes that arrive while it runs. */
  check: Promise<TokenIdentity>;
  /** Its result, once known. */
  who?: TokenIdentity;
  at: number;
}

export class VerifiedTokens {
  private readonly entries = new Map<string, Entry>();
  /** Whether the feed is heard (revocations reach this node). */
  private live = false;
  /** Bumped by every revocation and every loss of the feed. */
  private epoch = 0;

  constructor(private readonly tokens: Pick<CustomTokens, "verify">) {}

  verify(token: unknown): Promise<TokenIdentity> {
    if (!this.live || typeof token !== "string") return this.tokens.verify(token);
    const now = Date.now();
    const hit = this.entries.get(token);
    if (hit) {
      const expired = hit.who?.expiresAt !== undefined && hit.who.expiresAt <= now;
      if (now - hit.at < LIFETIME_MS && !expired) return hit.check;
      this.entries.delete(token);
    }
    const epoch = this.epoch;
    const entry: Entry = { check: this.tokens.verify(token), at: now };
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(token, entry);
    entry.check.then(
      (who) => {
        if (this.epoch === epoch && this.entries.get(token) === entry) entry.who = who;
        else if (this.entries.get(token) === entry) this.entries.delete(token);
      },
      () => {
        if (this.entries.get(token) === entry) this.entries.delete(token);
      },
    );
    return entry.check;
  }

  /** A token was revoked (heard on the feed): forget it, and every check still running. */
  revoked(tokenId: string): void {
    this.epoch++;
    for (const [token, e] of this.entries) if (!e.who || e.who.tokenId === tokenId) this.entries.delete(token);
  }

  /** The feed is heard (subscribed, or back after an interruption). */
  heard(): void {
    this.live = true;
  }

  /** The feed's connection closed: revocations may go unheard until it is back. */
  lost(): void {
    this.live = false;
    this.epoch++;
    this.entries.clear();
  }
}
