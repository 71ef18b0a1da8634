// The store port, all of it in one file: what the domain and the realtime channel need from
// persistence, and nothing more. Two implementations (redis/, memory/) pass one contract suite
// (test/store.contract.test.ts, test/store-signin.contract.test.ts). Every method may throw
// StoreUnavailableError when the backing store cannot be reached.
import { orderEventIds } from "../event-ids.js";
import type { RedisClient } from "./redis/redis-client.js";

export interface ChallengeRecord {
  question: string;
  /** Keyed hash of the NFC-normalised answer (hex); the answer itself is never stored. */
  answerHash: string;
  /** client_id of the app that owns the challenge (its solve results are pushed to it). */
  owner?: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

export interface ChallengeStore {
  /** Stores a new challenge that expires after ttlSeconds. Returns false when the key exists. */
  create(key: string, record: ChallengeRecord, ttlSeconds: number): Promise<boolean>;
  /** The challenge, or null when unknown or expired. */
  get(key: string): Promise<ChallengeRecord | null>;
  /**
   * Decides one solve attempt in one atomic step (docs/http-api.md#challenges): refused when wrong answers have
   * already reached a limit; else compared, counted when wrong, and, on an owned challenge,
   * recorded in the app's history (and told to every node) before it is answered.
   */
  solve(attempt: SolveAttempt, rules: SolveRules): Promise<SolveResult>;
}

export interface SolveAttempt {
  key: string;
  /** The client address; wrong answers are limited per (key, address) and per key. */
  address: string;
  /** Keyed hash of the NFC-normalised answer, made as ChallengeRecord.answerHash is. */
  answerHash: string;
  /** ISO 8601: the time of the attempt, as its event says. */
  at: string;
}

export interface SolveRules {
  /** Wrong answers allowed per window (seconds), per (key, address) and per key. */
  limits: { perAddress: number; perAddressWindow: number; perKey: number; perKeyWindow: number };
  history: HistoryLimits;
}

export type SolveResult =
  | { status: "unknown" }
  /** Wrong answers had already reached a limit; nothing was counted or recorded. */
  | { status: "limited"; retryAfterMs: number }
  /** Compared (and counted when wrong); `event` is the history entry of an owned challenge. */
  | { status: "counted"; correct: boolean; event?: StoredEvent & { app: string } };

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

export interface Store {
  readonly kind: "memory" | "redis";
  readonly challenges: ChallengeStore;
  readonly customTokens: CustomTokenStore;
  readonly events: EventLog;
  /** Sign-in (below). */
  readonly accounts: AccountStore;
  readonly sessions: SessionStore;
  readonly apps: AppStore;
  readonly grants: GrantStore;
  limiter(spec: LimiterSpec): AttemptLimiter;
  /** Resolves when the store answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  /** Releases what the store holds (not the injected Redis clients: their owner closes them). */
  close(): Promise<void>;
}

// ---- Sign-in (docs/http-api.md#sign-in-with-sigil, docs/http-api.md#pages): accounts, sessions,
// apps and grants (consents, codes, access tokens).

export interface UserRecord {
  id: string;
  /** Lower-cased; unique. */
  username: string;
  displayName: string;
  /** "scrypt$N$r$p$salt$hash" — never the password. */
  passwordHash: string;
  /** Set once a picture was uploaded; bumped on each upload (cache busting). */
  picture?: { type: string; version: number };
  createdAt: number;
}

export interface AccountStore {
  /** Creates the user; false when the username is taken. */
  create(user: UserRecord): Promise<boolean>;
  byId(id: string): Promise<UserRecord | null>;
  byUsername(username: string): Promise<UserRecord | null>;
  /** Replaces the record of an existing user (the username never changes). */
  update(user: UserRecord): Promise<void>;
  savePicture(id: string, data: Buffer): Promise<void>;
  picture(id: string): Promise<Buffer | null>;
}

export interface SessionStore {
  get(sid: string): Promise<string | null>;
  set(sid: string, data: string, ttlSeconds: number): Promise<void>;
  destroy(sid: string): Promise<void>;
}

export interface AppRecord {
  clientId: string;
  ownerId: string;
  name: string;
  redirectUris: string[];
  /** Keyed hash of the current secret. */
  secretHash: string;
  /** The previous secret during its grace period. */
  previousSecretHash?: string;
  previousSecretUntil?: number;
  createdAt: number;
}

export interface AppStore {
  create(app: AppRecord): Promise<void>;
  get(clientId: string): Promise<AppRecord | null>;
  update(app: AppRecord): Promise<void>;
  delete(clientId: string): Promise<void>;
  listByOwner(ownerId: string): Promise<AppRecord[]>;
}

export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  /** false when the authorization request left redirect_uri out (then /token may too). */
  redirectUriGiven: boolean;
  userId: string;
  codeChallenge?: string;
}

export interface TokenRecord {
  userId: string;
  clientId: string;
  /** Hash of the code the token was issued from (its replay revokes the token). */
  codeHash: string;
}

export interface GrantStore {
  grantConsent(userId: string, clientId: string): Promise<void>;
  hasConsent(userId: string, clientId: string): Promise<boolean>;
  consents(userId: string): Promise<string[]>;
  /**
   * Withdraws the consent and revokes, at once and for every node, what was issued under it: each
   * code saved for this user and app (see saveCode) gets the same "revoked" mark as a replayed code
   * — an unredeemed one can no longer be taken, and the tokens issued from a redeemed one are
   * refused. Idempotent; markTtlSeconds as for takeCode.
   */
  withdrawConsent(userId: string, clientId: string, markTtlSeconds: number): Promise<void>;

  /**
   * Saves a code while the user's consent to code.clientId holds, and registers it with that
   * consent (for withdrawConsent) for grantTtlSeconds (≥ the code's TTL + the token lifetime).
   * The check and the registration are one atomic step, so a withdrawal either sees the code or
   * comes first; false (nothing saved) when there is no consent.
   */
  saveCode(codeHash: string, code: CodeRecord, ttlSeconds: number, grantTtlSeconds: number): Promise<boolean>;
  /**
   * Takes a code for its one use: "first" with the record (the code is gone after), "replay" when
   * it was taken before (the tokens issued from it are revoked by this call), "revoked" when it
   * was revoked already (a replay before, or a withdrawn consent), or "unknown".
   * markTtlSeconds: how long the "taken" mark outlives the code (≥ the token lifetime).
   */
  takeCode(
    codeHash: string,
    markTtlSeconds: number,
  ): Promise<{ kind: "first"; code: CodeRecord } | { kind: "replay" } | { kind: "revoked" } | { kind: "unknown" }>;

  saveToken(tokenHash: string, token: TokenRecord, ttlSeconds: number): Promise<void>;
  /**
   * The token, or null when unknown, expired, revoked through its code (a replay, or a withdrawn
   * consent), or issued to another client.
   */
  token(tokenHash: string, clientId: string): Promise<TokenRecord | null>;
  /**
   * What GET /auth/user needs: the token (as token() finds it) with its user, or null when either
   * is missing or the token's app was deleted. The Redis store reads the token and the app in one
   * MGET (same hash tag), then the revocation mark and the user together: two round trips.
   */
  tokenUser(tokenHash: string, clientId: string): Promise<{ token: TokenRecord; user: UserRecord } | null>;
}

// ---- Realtime: CUSTOM TOKEN records, the per-app event history, and the feed that tells every
// node about new events and revocations.

export interface CustomTokenRecord {
  id: string;
  /** client_id of the app the token belongs to. */
  app: string;
  name: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Milliseconds since the epoch; absent when the token never expires. */
  expiresAt?: number;
  revoked: boolean;
}

export interface CustomTokenStore {
  create(record: CustomTokenRecord): Promise<void>;
  get(app: string, id: string): Promise<CustomTokenRecord | null>;
  list(app: string): Promise<CustomTokenRecord[]>;
  /** Marks the token revoked and tells every node (feed). False when the app has no such token. */
  revoke(app: string, id: string): Promise<boolean>;
}

/** One solve attempt as stored in an app's history. */
export interface StoredEvent {
  /** `<milliseconds>-<sequence>`, increasing within an app. */
  id: string;
  key: string;
  correct: boolean;
  /** ISO 8601. */
  at: string;
}

export interface HistoryLimits {
  maxEvents: number;
  ttlSeconds: number;
}

export interface HistoryRead {
  events: StoredEvent[];
  /** True when nothing after `since` was trimmed from the history (and `since` is not ahead). */
  complete: boolean;
  /**
   * Present (true) when `since` is after the newest event the app ever had: an id this history
   * never issued (a client's invention). Such a `since` must not be trusted as "seen up to here".
   */
  ahead?: true;
}

export interface EventLog {
  /** Appends to the app's history (trimmed to the limits) and tells every node (feed). */
  append(app: string, event: Omit<StoredEvent, "id">, limits: HistoryLimits): Promise<StoredEvent>;
  /** Up to `count` events after `since`, oldest first (trimming by time first); `complete` as of this read. */
  readAfter(app: string, since: string, count: number, limits: HistoryLimits): Promise<HistoryRead>;
}

export type FeedMessage = { type: "event"; app: string; event: StoredEvent } | { type: "revoked"; tokenId: string };

/** Messages to every node. The Redis feed needs its own subscriber connection. */
export interface Feed {
  /** onResubscribed: the feed was away (Redis outage) and is back; messages may have been missed. */
  subscribe(listener: (m: FeedMessage) => void, onResubscribed?: () => void): Promise<void>;
  close(): Promise<void>;
}

export { isEventId } from "../event-ids.js";

/**
 * Orders two event ids (<ms>-<seq>) numerically: negative, zero or positive (src/event-ids.ts,
 * the comparison the client uses too). Ids here are validated or the store's own, so one that is
 * not `<digits>-<digits>` is a bug: it throws rather than sorting somewhere.
 */
export function compareEventIds(a: string, b: string): number {
  const order = orderEventIds(a, b);
  if (order === undefined) throw new TypeError(`Not an event id: ${JSON.stringify(a)} or ${JSON.stringify(b)}`);
  return order;
}

/**
 * What a node's realtime channel needs beside the store: the feed, and the Redis clients of
 * @socket.io/redis-adapter. Each backend opens its own (memory/index.ts, redis/index.ts).
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
