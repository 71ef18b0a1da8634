// ---- Signed-in page sessions: their data under their id (express-session's store), and each
// user's index of them (the sessions list on /account, signing out everywhere).

/**
 * What the per-user session index keeps of a signed-in page session (the sessions list on
 * /account, docs/http-api.md#pages). Never the session's data; the sid stays server-side (pages
 * name a session by a keyed hash of it).
 */
export interface SessionSummary {
  sid: string;
  userId: string;
  /** When the user signed in (ms since the epoch). */
  createdAt: number;
  /** When the session was last used (ms); written at most once a minute. */
  lastSeenAt: number;
  /** When the session ends (ms). */
  expiresAt: number;
  /** The browser's User-Agent as it signed in / was last seen (at most 512 characters). */
  userAgent?: string;
  /** The client address it was last seen from. */
  address?: string;
}

/** Who a session belongs to, given with set() so that the store indexes it per user. */
export interface SessionOwner {
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  userAgent?: string;
  address?: string;
  /**
   * true: the session is new (a sign-in) and is created. false: only a session that still exists
   * is overwritten, so that a write racing with its sign-out (destroyForUser) never brings it back.
   */
  create: boolean;
}

/** The index entry a store keeps for a session saved with owner (both backends). */
export function summaryOf(sid: string, owner: SessionOwner, expiresAt: number): SessionSummary {
  const s: SessionSummary = {
    sid,
    userId: owner.userId,
    createdAt: owner.createdAt,
    lastSeenAt: owner.lastSeenAt,
    expiresAt,
  };
  if (owner.userAgent !== undefined) s.userAgent = owner.userAgent.slice(0, 512);
  if (owner.address !== undefined) s.address = owner.address.slice(0, 64);
  return s;
}

/** Most recently seen first; ties by sign-in time, then sid (a stable order). */
export const bySeen = (a: SessionSummary, b: SessionSummary): number =>
  b.lastSeenAt - a.lastSeenAt || b.createdAt - a.createdAt || (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : 0);

export interface SessionStore {
  get(sid: string): Promise<string | null>;
  /** Saves the session; with owner, also its entry in the owner's index (see listForUser). */
  set(sid: string, data: string, ttlSeconds: number, owner?: SessionOwner): Promise<void>;
  /** Ends the session; with userId, also drops its index entry at once (else a later read does). */
  destroy(sid: string, userId?: string): Promise<void>;
  /**
   * The user's live sessions, most recently seen first. Entries whose session ended (expired or
   * destroyed) are dropped on the way (cleanup on read); the index itself expires with the
   * user's last session.
   */
  listForUser(userId: string): Promise<SessionSummary[]>;
  /**
   * Ends every session of the user except exceptSid (when given), and their index entries;
   * returns the ids of the live sessions it ended (each told to the apps: a logout token per sid
   * when some stay). Idempotent: of calls at once, each session is returned by one.
   */
  destroyForUser(userId: string, exceptSid?: string): Promise<string[]>;
}
