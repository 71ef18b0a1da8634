// The embedded store: one store over an engine (engine.ts) — in LMDB under DATA_DIR (lmdb-engine.ts;
// the default: data that lasts) or in process memory (map-engine.ts; DATA_DIR=:memory:). Same
// contract as Redis. A server process owns the data; the CLI opens it beside the server, and what
// it publishes (a revoked CUSTOM TOKEN) reaches the server through the notices table.
import { randomBytes } from "node:crypto";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { adaptLimiter, counterId, limiterKey } from "../limiter.js";
import type { AttemptLimiter, LimiterSpec, OpenedBackend, Store } from "../port.js";
import type { Engine } from "./engine.js";
import { EmbeddedAccounts } from "./accounts.js";
import { EmbeddedApps } from "./apps.js";
import { EmbeddedChallenges } from "./challenges.js";
import { EmbeddedEmail } from "./email.js";
import { EmbeddedGrants } from "./grants.js";
import { EmbeddedMeta } from "./meta.js";
import { EmbeddedBackup } from "./backup.js";
import { EmbeddedAudit } from "./audit.js";
import { EmbeddedDeliveries, EmbeddedIdentityFeed } from "./deliveries.js";
import { EmbeddedConsentScopes, EmbeddedSigningKeys } from "./keys.js";
import { EmbeddedPasskeys } from "./passkeys.js";
import { EmbeddedUpstreamLinks } from "./upstream-links.js";
import { EmbeddedPresence } from "./presence.js";
import { EmbeddedBus, EmbeddedCustomTokens, EmbeddedEventLog, EmbeddedFeed, NoticePoller } from "./realtime.js";
import { EmbeddedChannelLog } from "./channels.js";
import { EmbeddedSessions } from "./sessions.js";
import { EmbeddedDeviceCodes } from "./device-codes.js";
import { EmbeddedTwoFactor } from "./two-factor.js";
import { EmbeddedGroups } from "./groups.js";
import { EmbeddedInvitations } from "./invitations.js";
import { EmbeddedUpstreamProviders } from "./upstream-providers.js";

export class EmbeddedStore implements Store {
  readonly kind = "embedded" as const;
  /** This process's feed of new events and revocations (EmbeddedFeed listens to it). */
  readonly bus: EmbeddedBus;
  readonly customTokens: EmbeddedCustomTokens;
  readonly events: EmbeddedEventLog;
  readonly channels: EmbeddedChannelLog;
  readonly challenges: EmbeddedChallenges;
  readonly accounts: EmbeddedAccounts;
  readonly sessions: EmbeddedSessions;
  readonly apps: EmbeddedApps;
  readonly consentScopes: EmbeddedConsentScopes;
  readonly grants: EmbeddedGrants;
  readonly signingKeys: EmbeddedSigningKeys;
  readonly email: EmbeddedEmail;
  readonly passkeys: EmbeddedPasskeys;
  readonly upstreamLinks: EmbeddedUpstreamLinks;
  readonly upstreamProviders: EmbeddedUpstreamProviders;
  readonly twoFactor: EmbeddedTwoFactor;
  readonly deviceCodes: EmbeddedDeviceCodes;
  readonly groups: EmbeddedGroups;
  readonly invitations: EmbeddedInvitations;
  readonly meta: EmbeddedMeta;
  readonly backup: EmbeddedBackup;
  readonly audit: EmbeddedAudit;
  readonly deliveries: EmbeddedDeliveries;
  readonly identityFeed: EmbeddedIdentityFeed;
  /** In this process's memory: the embedded store serves one node. */
  readonly presence: EmbeddedPresence;

  /**
   * Counters live in this process (docs/choices.md: attempt limits on the embedded store), their
   * ids hashed under a key of its own: nothing outlives it to share them with.
   */
  private readonly limiterKey = limiterKey(randomBytes(32));

  /** toOthers: this process is not the server (the CLI), so what it publishes goes to the notices. */
  constructor(
    readonly engine: Engine,
    opts: { toOthers?: boolean } = {},
  ) {
    this.bus = new EmbeddedBus(engine, opts.toOthers ?? false);
    this.customTokens = new EmbeddedCustomTokens(engine, this.bus);
    this.events = new EmbeddedEventLog(engine, this.bus);
    this.channels = new EmbeddedChannelLog(engine, this.bus);
    this.challenges = new EmbeddedChallenges(engine, this.events);
    this.accounts = new EmbeddedAccounts(engine);
    this.sessions = new EmbeddedSessions(engine);
    this.apps = new EmbeddedApps(engine);
    this.consentScopes = new EmbeddedConsentScopes(engine, this.apps);
    this.grants = new EmbeddedGrants(engine, {
      accounts: this.accounts,
      apps: this.apps,
      consentScopes: this.consentScopes,
    });
    this.signingKeys = new EmbeddedSigningKeys(engine);
    this.email = new EmbeddedEmail(engine);
    this.passkeys = new EmbeddedPasskeys(engine);
    this.upstreamLinks = new EmbeddedUpstreamLinks(engine);
    this.upstreamProviders = new EmbeddedUpstreamProviders(engine);
    this.twoFactor = new EmbeddedTwoFactor(engine);
    this.deviceCodes = new EmbeddedDeviceCodes(engine);
    this.groups = new EmbeddedGroups(engine);
    this.invitations = new EmbeddedInvitations(engine);
    this.meta = new EmbeddedMeta(engine);
    this.backup = new EmbeddedBackup(engine);
    this.audit = new EmbeddedAudit(engine);
    this.deliveries = new EmbeddedDeliveries(engine);
    this.identityFeed = new EmbeddedIdentityFeed(this.bus);
    this.presence = new EmbeddedPresence((m) => {
      this.bus.publish(m).catch(() => {});
    });
  }

  limiter(spec: LimiterSpec): AttemptLimiter {
    const rl = new RateLimiterMemory({ keyPrefix: spec.name, points: spec.points, duration: spec.windowSeconds });
    return adaptLimiter(rl, (id) => counterId(this.limiterKey, spec.name, id));
  }

  /** Every live record, one line each ("table [key] => value"): tests look for what should not be there. */
  dump(): string[] {
    return this.engine.dump();
  }

  /** What the engine's timer does every 30 s, now (tests): expired records and idle histories. */
  sweep(): Promise<void> {
    return this.engine.sweep();
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    await this.engine.close();
  }
}

/** The embedded store on an engine; its realtime clients are this process's feed (and, when the data is shared, the notices' poller). */
export function openEmbedded(
  engine: Engine,
  opts: { toOthers?: boolean } = {},
): OpenedBackend & { store: EmbeddedStore } {
  const store = new EmbeddedStore(engine, opts);
  return {
    store,
    openRealtime() {
      const feed = new EmbeddedFeed(store.bus);
      const poller = engine.shared ? new NoticePoller(engine, store.bus) : undefined;
      return {
        feed,
        async close() {
          poller?.close();
          await feed.close();
        },
      };
    },
    close: () => store.close(),
  };
}
