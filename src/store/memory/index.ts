// The embedded in-process store: one node only, data lost on exit. Same contract as Redis.
import { randomBytes } from "node:crypto";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { adaptLimiter, counterId, limiterKey } from "../limiter.js";
import type { AttemptLimiter, LimiterSpec, OpenedBackend, Store } from "../port.js";
import { MemoryChallenges } from "./challenges.js";
import { MemoryEmail } from "./email.js";
import { MemoryBus, MemoryCustomTokens, MemoryEventLog, MemoryFeed } from "./realtime.js";
import { MemoryPasskeys } from "./passkeys.js";
import { MemoryConsentScopes, MemorySigningKeys } from "./keys.js";
import { MemoryTwoFactor } from "./two-factor.js";
import { MemoryAccounts } from "./accounts.js";
import { MemoryApps } from "./apps.js";
import { MemoryGrants } from "./grants.js";
import { MemorySessions } from "./sessions.js";
import { MemoryMeta } from "./meta.js";

export class MemoryStore implements Store {
  readonly kind = "memory" as const;
  /** In-process feed of new events and revocations (MemoryFeed listens to it). */
  readonly bus = new MemoryBus();
  readonly customTokens = new MemoryCustomTokens(this.bus);
  readonly events = new MemoryEventLog(this.bus);
  readonly challenges = new MemoryChallenges(this.events);
  readonly accounts = new MemoryAccounts();
  readonly sessions = new MemorySessions();
  readonly apps = new MemoryApps();
  readonly consentScopes = new MemoryConsentScopes(this.apps);
  readonly grants = new MemoryGrants({ accounts: this.accounts, apps: this.apps, consentScopes: this.consentScopes });
  readonly signingKeys = new MemorySigningKeys();
  readonly email = new MemoryEmail();
  readonly passkeys = new MemoryPasskeys();
  readonly twoFactor = new MemoryTwoFactor();
  readonly meta = new MemoryMeta();

  /** Counters' ids are hashed under a key of this process's own: nothing outlives it to share them with. */
  private readonly limiterKey = limiterKey(randomBytes(32));
  /** The limiters made (their counters are the store's, as Redis's rl: keys are). */
  readonly limiters: RateLimiterMemory[] = [];

  limiter(spec: LimiterSpec): AttemptLimiter {
    const rl = new RateLimiterMemory({ keyPrefix: spec.name, points: spec.points, duration: spec.windowSeconds });
    this.limiters.push(rl);
    return adaptLimiter(rl, (id) => counterId(this.limiterKey, spec.name, id));
  }

  /**
   * How many expiring entries the store holds (sessions, challenges, codes, tokens): what traffic
   * could grow. Tests compare it as they compare Redis's DBSIZE.
   */
  entryCount(): number {
    return (
      this.sessions.map.size +
      this.challenges.map.size +
      this.grants.codes.size +
      this.grants.used.size +
      this.grants.tokens.size +
      this.passkeys.challenges.size
    );
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.challenges.map.close();
    this.challenges.wrong.close();
    this.sessions.close();
    this.passkeys.challenges.close();
    this.grants.close();
    this.email.links.close();
  }
}

/** The embedded store; its realtime clients are the in-process feed over the store's bus. */
export function openMemory(): OpenedBackend & { store: MemoryStore } {
  const store = new MemoryStore();
  return {
    store,
    openRealtime() {
      const feed = new MemoryFeed(store.bus);
      return { feed, close: () => feed.close() };
    },
    close: () => store.close(),
  };
}
