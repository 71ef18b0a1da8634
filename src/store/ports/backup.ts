// Backup and restore (docs/operations.md#backup-and-restore): what a store gives a backup, and the
// little a restore needs beyond the other ports. A backup is a list of items in one logical form
// for every store, so that a backup of Redis restores into the embedded store and the other way
// round. Restore (src/store/backup.ts) writes most items through the ports a node uses (each store
// keeps its own indexes), and histories through restoreHistory and restoreChannelHistory (ids kept:
// clients resume with them).
import type { AppRecord, TokenRecord, RefreshRecord, UserRecord } from "./signin.js";
import type { CustomTokenRecord, StoredEvent } from "./realtime.js";
import type { SigningKeyRecord } from "./keys.js";
import type { PasskeyRecord } from "./passkeys.js";
import type { UpstreamLinkRecord } from "./upstream-links.js";
import type { StoredUpstreamRecord } from "./upstream-providers.js";
import type { TwoFactorRecord } from "./two-factor.js";
import type { ChallengeRecord } from "./challenges.js";
import type { GroupRecord } from "./groups.js";
import type { AuditRecord } from "./audit.js";
import type { InvitationRecord } from "./invitations.js";

/** An app's history as it stands: its events, the newest id it ever issued, the newest trimmed. */
export interface HistoryItem {
  kind: "history";
  app: string;
  events: StoredEvent[];
  /** The newest event id the app ever had ("0-0": none); a `since` after it is a client's invention. */
  last: string;
  /** The newest event id trimmed away ("0-0": none); resume after it is complete. */
  cut: string;
}

/**
 * One channel's history of an app (ChannelLog), as it stands: its messages (data as the JSON text
 * the store keeps), and the newest id it ever issued and the newest trimmed, as HistoryItem's.
 */
export interface ChannelHistoryItem {
  kind: "channel-history";
  app: string;
  channel: string;
  messages: Array<{ id: string; data: string; at: string }>;
  last: string;
  cut: string;
}

/**
 * A grant that still stands (its mark "ok"): what restore replays through the ports (a code taken,
 * its refresh chain started and rotated) so that every index of the store is written as a sign-in
 * writes it. Revoked grants are left out: nothing of theirs works, and their tokens are left out too.
 */
export interface GrantItem {
  kind: "grant";
  /** The hash of the code the grant began with. */
  grantId: string;
  clientId: string;
  userId: string;
  scope: string[];
  /** When the grant's mark ends (ms since the epoch). */
  markExpiresAt: number;
  /** With offline_access: the chain's record, its rotated tokens (by hash), and its live token. */
  refresh?: { record: RefreshRecord; used: string[]; live: { hash: string; issuedAt: number } };
}

/** expiresAt: ms since the epoch; records that never expire have none. */
export type BackupItem =
  | { kind: "user"; user: UserRecord }
  | { kind: "picture"; userId: string; data: string /* base64 */ }
  | { kind: "email"; email: string; userId: string }
  | { kind: "app"; app: AppRecord }
  | { kind: "signing-key"; key: SigningKeyRecord }
  | { kind: "custom-token"; token: CustomTokenRecord }
  | { kind: "consent"; userId: string; clientId: string; scopes: string[] | null }
  | { kind: "passkey"; passkey: PasskeyRecord }
  /** An upstream provider added on /admin (its client secret sealed under SECRET, as stored). */
  | { kind: "upstream"; upstream: StoredUpstreamRecord }
  /** An identity at an upstream provider linked to a user. */
  | { kind: "upstream-link"; link: UpstreamLinkRecord }
  | { kind: "two-factor"; userId: string; record: TwoFactorRecord; recovery: string[] }
  | { kind: "group"; group: GroupRecord; members: string[] }
  /** A sign-up invitation not yet used, revoked or ended (its token's hash only). */
  | { kind: "invitation"; invitation: InvitationRecord }
  | { kind: "challenge"; key: string; record: ChallengeRecord; expiresAt: number }
  | GrantItem
  | { kind: "access-token"; hash: string; token: TokenRecord; expiresAt: number }
  | HistoryItem
  | ChannelHistoryItem
  /** An audit record, oldest first (restored with a new id, its time kept). */
  | { kind: "audit"; record: AuditRecord };

export type BackupKind = BackupItem["kind"];

/** The order items are written and restored in: what an item names comes before it. */
export const BACKUP_KINDS: readonly BackupKind[] = [
  "user",
  "picture",
  "email",
  "app",
  "signing-key",
  "custom-token",
  "consent",
  "passkey",
  "upstream",
  "upstream-link",
  "two-factor",
  "group",
  "invitation",
  "challenge",
  "grant",
  "access-token",
  "history",
  "channel-history",
  "audit",
];

/** What a store holds that a restore would replace, by kind (a store is empty when every count is 0). */
export interface Holdings {
  users: number;
  apps: number;
  signingKeys: number;
  challenges: number;
  groups: number;
  /** Upstream providers added on /admin. */
  upstreams: number;
}

/** Whether a store holds nothing (restore's "empty", a new store's first start). */
export const holdsNothing = (h: Holdings): boolean => Object.values(h).every((n) => n === 0);

export interface BackupPort {
  /**
   * Every item a restore needs, in BACKUP_KINDS order. The embedded store reads them in one
   * transaction (a snapshot); Redis reads each item atomically with what it depends on
   * (docs/operations.md#backup-and-restore says what that means while writes go on).
   */
  items(): AsyncIterable<BackupItem>;
  holdings(): Promise<Holdings>;
  /** Deletes every record (restore --force), keeping the data version. */
  clear(): Promise<void>;
  /** Writes an app's history as it was (ids, newest and trimmed ids kept), replacing any. */
  restoreHistory(history: HistoryItem): Promise<void>;
  /**
   * Writes one channel's history as it was (ids, newest and trimmed ids kept), replacing any, with
   * the idle bounds a publish sets (ttlSeconds: HISTORY_TTL): its messages go HISTORY_TTL after
   * its last one and the channel is forgotten at twice that (docs/realtime.md#channel-history).
   */
  restoreChannelHistory(history: ChannelHistoryItem, ttlSeconds: number): Promise<void>;
  /**
   * Records the restore horizon (docs/operations.md#backup-and-restore): the store's clock now
   * (ms; Redis: its TIME, the clock its ids come from), kept at the newest of any recorded before.
   * A resume whose `since` was issued before it is never complete (EventLog/ChannelLog readAfter):
   * what the old store had after the backup is not here. Returns the horizon as recorded.
   */
  markRestored(): Promise<number>;
  /** How many nodes serve this store now (Redis: the feed's subscribers); restore refuses while any do. */
  servingNodes(): Promise<number>;
}
