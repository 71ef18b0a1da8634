// The store port: what the domain and the realtime channel need from persistence, and nothing
// more. The ports live by area in ports/ (challenges, limits, signin, realtime); this file gathers
// them, and says what a backend hands a node. Two implementations (redis/, embedded/) pass one
// contract suite (test/store.contract.test.ts, test/store-signin.contract.test.ts). Every method
// may throw StoreUnavailableError when the backing store cannot be reached.
import type { RedisClient } from "./redis/redis-client.js";
import type { ChallengeStore } from "./ports/challenges.js";
import type { AttemptLimiter, LimiterSpec } from "./ports/limits.js";
import type { AccountStore, AppStore, GrantStore } from "./ports/signin.js";
import type { SessionStore } from "./ports/sessions.js";
import type { ChannelLog, CustomTokenStore, EventLog, Feed } from "./ports/realtime.js";
import type { ConsentScopeStore, SigningKeyStore } from "./ports/keys.js";
import type { EmailStore } from "./ports/email.js";
import type { PasskeyStore } from "./ports/passkeys.js";
import type { UpstreamLinkStore } from "./ports/upstream-links.js";
import type { UpstreamProviderStore } from "./ports/upstream-providers.js";
import type { TwoFactorStore } from "./ports/two-factor.js";
import type { MetaStore } from "./ports/meta.js";
import type { BackupPort } from "./ports/backup.js";
import type { AuditStore } from "./ports/audit.js";
import type { GroupStore } from "./ports/groups.js";
import type { InvitationStore } from "./ports/invitations.js";
import type { DeliveryStore, IdentityFeed } from "./ports/deliveries.js";
import type { PresenceStore } from "./ports/presence.js";
import type { DeviceCodeStore } from "./ports/device-codes.js";

export * from "./ports/challenges.js";
export * from "./ports/limits.js";
export * from "./ports/signin.js";
export * from "./ports/sessions.js";
export * from "./ports/realtime.js";
export * from "./ports/keys.js";
export * from "./ports/email.js";
export * from "./ports/passkeys.js";
export * from "./ports/upstream-links.js";
export * from "./ports/upstream-providers.js";
export * from "./ports/two-factor.js";
export * from "./ports/meta.js";
export * from "./ports/backup.js";
export * from "./ports/audit.js";
export * from "./ports/groups.js";
export * from "./ports/invitations.js";
export * from "./ports/deliveries.js";
export * from "./ports/presence.js";
export * from "./ports/device-codes.js";

export interface Store {
  /** "embedded" (LMDB in DATA_DIR, or in process memory) or "redis". */
  readonly kind: "embedded" | "redis";
  readonly challenges: ChallengeStore;
  readonly customTokens: CustomTokenStore;
  readonly events: EventLog;
  /** The history of the apps' own channels. */
  readonly channels: ChannelLog;
  /** Sign-in (below). */
  readonly accounts: AccountStore;
  readonly sessions: SessionStore;
  readonly apps: AppStore;
  readonly grants: GrantStore;
  /** OpenID Connect: the signing keys, and the scopes granted per app. */
  readonly signingKeys: SigningKeyStore;
  readonly consentScopes: ConsentScopeStore;
  /** Email: single-use links sent by mail, users by address. */
  readonly email: EmailStore;
  /** Passkeys (WebAuthn) and their ceremonies' challenges. */
  readonly passkeys: PasskeyStore;
  /** Which account an identity at an upstream provider signs in to. */
  readonly upstreamLinks: UpstreamLinkStore;
  /** The upstream providers added on /admin (beside those the settings name). */
  readonly upstreamProviders: UpstreamProviderStore;
  /** Two-factor with an authenticator app, per user. */
  readonly twoFactor: TwoFactorStore;
  /** Groups of users (the `groups` claim). */
  readonly groups: GroupStore;
  /** Sign-up invitations (SIGNUP=invite). */
  readonly invitations: InvitationStore;
  /** The store's data version and migration lock (src/store/migrations.ts). */
  readonly meta: MetaStore;
  /** Backup and restore (src/store/backup.ts). */
  readonly backup: BackupPort;
  /** The audit log (domain/audit.ts writes it off the requests' path). */
  readonly audit: AuditStore;
  /** Identity events' deliveries to apps' webhook and back-channel logout URLs (domain/deliveries.ts). */
  readonly deliveries: DeliveryStore;
  /** Identity events to every node's sockets of an app (the realtime feed). */
  readonly identityFeed: IdentityFeed;
  /** Who is subscribed to the apps' channels, on every node (domain/presence.ts). */
  readonly presence: PresenceStore;
  /** Device authorization requests (RFC 8628). */
  readonly deviceCodes: DeviceCodeStore;
  limiter(spec: LimiterSpec): AttemptLimiter;
  /** Resolves when the store answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  /** Releases what the store holds (not the injected Redis clients: their owner closes them). */
  close(): Promise<void>;
}

/**
 * What a node's realtime channel needs beside the store: the feed, and the Redis clients of
 * @socket.io/redis-adapter. Each backend opens its own (embedded/index.ts, redis/index.ts).
 */
export interface RealtimeClients {
  feed: Feed;
  /** Clients for @socket.io/redis-adapter; absent on the embedded store. */
  adapter?: { pub: RedisClient; sub: RedisClient };
  close(): Promise<void>;
}

/** An open store and what it holds; close() releases it (and closes the clients it made). */
export interface OpenedStore {
  store: Store;
  /** The request-path Redis client (fail-fast), when on Redis. */
  redis?: RedisClient;
  close(): Promise<void>;
}

/** What a backend's open function returns: the store, and how to open its realtime clients. */
export interface OpenedBackend extends OpenedStore {
  openRealtime(): RealtimeClients;
}

/** Everything a node needs from its backend; close() releases the realtime clients, then the store. */
export interface OpenedNode extends OpenedStore {
  realtime: RealtimeClients;
}
