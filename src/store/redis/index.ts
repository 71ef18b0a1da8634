// The Redis store (standalone Redis or Redis Cluster), and openRedis(): the clients a node needs
// on Redis. The store's clients are made by openRedis (or a test) and injected; RedisStore never
// closes them.
import { RateLimiterRedis } from "rate-limiter-flexible";
import type { Config } from "../../config.js";
import { StoreUnavailableError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { adaptLimiter, counterId, limiterKey } from "../limiter.js";
import type {
  AttemptLimiter,
  ChallengeStore,
  CustomTokenStore,
  ChannelLog,
  EventLog,
  LimiterSpec,
  OpenedBackend,
  RealtimeClients,
  Store,
} from "../port.js";
import { RedisChallenges } from "./challenges.js";
import { guarded } from "./guarded.js";
import { keyspace, type Keyspace } from "./keys.js";
import { RedisBackup } from "./backup.js";
import { RedisFeed } from "./feed.js";
import { RedisChannelLog } from "./channels.js";
import { RedisCustomTokens, RedisEventLog } from "./realtime.js";
import { createRedisClient, waitReady, withHandledCommands, type RedisClient } from "./redis-client.js";
import { commandTimeoutWithWait, ReplicaWait, WAIT_WRITERS, type ReplicaWaitPolicy } from "./replica-wait.js";
import { RedisConsentScopes, RedisSigningKeys } from "./keys-store.js";
import { RedisPasskeys } from "./passkeys.js";
import { RedisDeviceCodes } from "./device-codes.js";
import { RedisUpstreamLinks } from "./upstream-links.js";
import { RedisUpstreamProviders } from "./upstream-providers.js";
import { RedisTwoFactor } from "./two-factor.js";
import { RedisGroups } from "./groups.js";
import { RedisInvitations } from "./invitations.js";
import { RedisAccounts } from "./accounts.js";
import { RedisApps } from "./apps.js";
import { RedisGrants } from "./grants.js";
import { RedisSessions } from "./sessions.js";
import { RedisEmail } from "./email.js";
import { RedisMeta } from "./meta.js";
import { RedisAudit } from "./audit.js";
import { RedisDeliveries, RedisIdentityFeed } from "./deliveries.js";
import { RedisPresence } from "./presence.js";

export class RedisStore implements Store {
  readonly kind = "redis" as const;
  readonly keys: Keyspace;
  readonly challenges: ChallengeStore;
  readonly customTokens: CustomTokenStore;
  readonly events: EventLog;
  readonly channels: ChannelLog;
  readonly accounts: RedisAccounts;
  readonly sessions: RedisSessions;
  readonly apps: RedisApps;
  readonly grants: RedisGrants;
  readonly signingKeys: RedisSigningKeys;
  readonly consentScopes: RedisConsentScopes;
  readonly email: RedisEmail;
  readonly passkeys: RedisPasskeys;
  readonly upstreamLinks: RedisUpstreamLinks;
  readonly upstreamProviders: RedisUpstreamProviders;
  readonly twoFactor: RedisTwoFactor;
  readonly deviceCodes: RedisDeviceCodes;
  readonly groups: RedisGroups;
  readonly invitations: RedisInvitations;
  readonly meta: RedisMeta;
  readonly backup: RedisBackup;
  readonly audit: RedisAudit;
  readonly deliveries: RedisDeliveries;
  readonly identityFeed: RedisIdentityFeed;
  readonly presence: RedisPresence;

  constructor(
    readonly redis: RedisClient,
    prefix: string,
    /**
     * REDIS_WAIT_REPLICAS: the writes that wait for replicas before they are acknowledged — a new
     * challenge, a solve attempt (its counters and its event), an appended event, a CUSTOM TOKEN
     * issued or revoked. Sign-in data (accounts, sessions, codes, grants) does not wait.
     */
    replicaWait: { policy: ReplicaWaitPolicy; writers: RedisClient[] } | undefined,
    /** SECRET: limit counters are keyed by a hash of what they count under a key derived from it, alike on every node. */
    secret: string,
  ) {
    this.limiterKey = limiterKey(secret);
    this.keys = keyspace(prefix);
    const acked = new ReplicaWait(replicaWait?.policy, replicaWait?.writers);
    this.challenges = new RedisChallenges(redis, this.keys, acked);
    this.customTokens = new RedisCustomTokens(redis, this.keys, acked);
    this.events = new RedisEventLog(redis, this.keys, acked);
    this.channels = new RedisChannelLog(redis, this.keys, acked);
    this.accounts = new RedisAccounts(redis, this.keys);
    this.sessions = new RedisSessions(redis, this.keys);
    this.apps = new RedisApps(redis, this.keys);
    this.grants = new RedisGrants(redis, this.keys);
    this.signingKeys = new RedisSigningKeys(redis, this.keys);
    this.consentScopes = new RedisConsentScopes(redis, this.keys);
    this.email = new RedisEmail(redis, this.keys);
    this.passkeys = new RedisPasskeys(redis, this.keys);
    this.upstreamLinks = new RedisUpstreamLinks(redis, this.keys);
    this.upstreamProviders = new RedisUpstreamProviders(redis, this.keys);
    this.twoFactor = new RedisTwoFactor(redis, this.keys);
    this.deviceCodes = new RedisDeviceCodes(redis, this.keys);
    this.groups = new RedisGroups(redis, this.keys);
    this.invitations = new RedisInvitations(redis, this.keys);
    this.meta = new RedisMeta(redis, this.keys);
    this.backup = new RedisBackup(redis, this.keys, prefix);
    this.audit = new RedisAudit(redis, this.keys);
    this.deliveries = new RedisDeliveries(redis, this.keys);
    this.identityFeed = new RedisIdentityFeed(redis, this.keys);
    this.presence = new RedisPresence(redis, this.keys);
  }

  private readonly limiterKey: Buffer;

  limiter(spec: LimiterSpec): AttemptLimiter {
    return adaptLimiter(
      new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: this.keys.limiter(spec.name),
        points: spec.points,
        duration: spec.windowSeconds,
        rejectIfRedisNotReady: true,
      }),
      (id) => counterId(this.limiterKey, spec.name, id),
      async (key) => (await this.redis.exists(key)) === 1,
    );
  }

  async ping(): Promise<void> {
    if (this.redis.status !== "ready") throw new StoreUnavailableError();
    await guarded(() => this.redis.ping());
  }

  async close(): Promise<void> {}
}

/**
 * What a failed command of the Socket.IO adapter (withHandledCommands) leaves in the log: one that
 * was given up as a connection closed (a node stopping while Redis is away) is expected and only
 * debug; any other (a broadcast lost to a Cluster that is down) a warning, at most every few seconds.
 */
function adapterFailureLog(logger: Logger): (err: unknown) => void {
  let last = 0;
  return (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    if (message === "Connection is closed.")
      return logger.debug("redis (realtime): an adapter command was given up at close");
    const now = Date.now();
    if (now - last < 5000) return;
    last = now;
    logger.warn({ err: { message } }, "redis (realtime): a command of the Socket.IO adapter failed");
  };
}

/** Logs Redis connection errors at most once every few seconds, so an outage does not flood. */
function throttledErrorLog(logger: Logger, what: string) {
  let last = 0;
  return (err: Error) => {
    const now = Date.now();
    if (now - last < 5000) return;
    last = now;
    logger.error({ err: { message: err.message } }, `${what}: connection error`);
  };
}

export interface RedisOpenOptions {
  waitMs?: number;
  commandTimeoutMs?: number;
}

/**
 * The request-path client (fail-fast) and the store on it. Waits up to waitMs for Redis, then
 * goes on regardless: requests answer 503 and /readyz says so until Redis answers.
 */
export async function openRedis(
  config: Config & { redisUrl: string },
  logger: Logger,
  opts: RedisOpenOptions = {},
): Promise<OpenedBackend & { store: RedisStore; redis: RedisClient }> {
  const url = config.redisUrl;
  // A WAIT takes up to REDIS_WAIT_TIMEOUT_MS: the command timeout leaves it that long, and more.
  const commandTimeoutMs = commandTimeoutWithWait(config.redisWait, opts.commandTimeoutMs);
  const onError = throttledErrorLog(logger, "redis");
  const redis = createRedisClient(url, { onError, commandTimeoutMs });
  const policy = config.redisWait;
  const writers = policy
    ? Array.from({ length: WAIT_WRITERS }, () => createRedisClient(url, { onError, commandTimeoutMs }))
    : [];
  try {
    // The writers of waited writes too: they carry the challenges and tokens made first.
    await Promise.all([redis, ...writers].map((c) => waitReady(c, opts.waitMs ?? 5000)));
  } catch {
    // Keep going: requests answer 503 and /readyz says so until Redis answers; the client
    // keeps reconnecting in the background.
    logger.error("Redis is not reachable yet; serving 503 until it is");
  }
  const store = new RedisStore(redis, config.keyPrefix, policy ? { policy, writers } : undefined, config.secret);
  return {
    store,
    redis,
    openRealtime: () => openRealtimeClients(url, config.redisAdapter === "sharded", logger, store.keys),
    async close() {
      await store.close();
      redis.disconnect();
      for (const w of writers) w.disconnect();
    },
  };
}

// The extra connections of the realtime channel: the Socket.IO adapter's publisher and its own
// subscriber, and a subscriber for the feed. Unlike the request-path client these queue commands
// while Redis is away (failFast: false), so a subscription survives an outage.
function openRealtimeClients(url: string, sharded: boolean, logger: Logger, keys: Keyspace): RealtimeClients {
  const onError = throttledErrorLog(logger, "redis (realtime)");
  const pub = createRedisClient(url, { failFast: false, onError });
  const sub = createRedisClient(url, { failFast: false, onError, shardedSubscribers: sharded });
  const feedSub = createRedisClient(url, { failFast: false, onError });
  const clients = [pub, sub, feedSub];
  const feed = new RedisFeed(feedSub, keys);
  const failed = adapterFailureLog(logger);
  return {
    feed,
    adapter: { pub: withHandledCommands(pub, failed), sub: withHandledCommands(sub, failed) },
    async close() {
      await feed.close();
      await Promise.all(clients.map(closeGently));
    },
  };
}

/**
 * QUIT rather than a bare disconnect: Redis answers QUIT after the commands sent before it, such as
 * the unsubscribes that @socket.io/redis-adapter's close() sends without awaiting them. A
 * disconnect would reject those with "Connection is closed." and nobody would catch it: an
 * unhandled rejection, which ends a Node process. When Redis is away or slow, disconnect after 1 s.
 */
async function closeGently(c: RedisClient): Promise<void> {
  if (c.status !== "ready") {
    c.disconnect();
    return;
  }
  const slow = setTimeout(() => c.disconnect(), 1000);
  try {
    await c.quit();
  } catch {
    // Already gone: nothing to wait for.
  } finally {
    clearTimeout(slow);
  }
}
