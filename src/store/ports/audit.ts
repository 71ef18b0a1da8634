// The audit log (docs/operations.md#audit-log): who did what to which account or app, when, from
// where — never a secret. Records are appended in batches off the requests' path (domain/audit.ts)
// and read newest or oldest first, all of them or one user's, in pages with a cursor. Each store
// keeps a record AUDIT_RETENTION after its time and no longer (Redis trims approximately: reads
// never return an older one).

/** Who did it: the user themself, an admin, the operator (the command line) or an app. */
export interface AuditActor {
  kind: "user" | "admin" | "operator" | "app";
  /** The user's id (user, admin) or the app's client id (app). */
  id?: string;
  /** The username (user, admin) or the app's name (app). */
  name?: string;
}

/** One record, as the CLI prints it and the pages show it (snake_case, as every CLI answer). */
export interface AuditRecord {
  /** "<ms>-<n>": orders records by when they were written. */
  id: string;
  /** When it happened (ms since the epoch). */
  time: number;
  /** What happened: "signin.succeeded", "password.changed", … (docs/operations.md#audit-log). */
  type: string;
  /** The account it is about (its security events list on /account), when there is one. */
  user_id?: string;
  username?: string;
  actor?: AuditActor;
  /** The app it is about. */
  client_id?: string;
  /** The group it is about (group.*: its name). */
  group?: string;
  /** The upstream provider it is about (upstream.*: its id). */
  upstream?: string;
  /** The client address, the browser (its User-Agent summed up: "Firefox 120 · Linux") and the request id. */
  address?: string;
  browser?: string;
  request_id?: string;
  /** How (a sign-in: "password", "passkey", "two_factor", "recovery_code", "upstream:<id>"; an upstream link: "<id>"). */
  method?: string;
  /** Why it failed ("wrong_password", "unknown_user", …). */
  reason?: string;
}

/** A record to append: the store gives it its id. */
export type AuditEntry = Omit<AuditRecord, "id">;

export interface AuditQuery {
  /** Only this user's records (the per-user index: fast whatever the log holds). */
  userId?: string;
  /** Only records of these types. */
  types?: string[];
  /** Only records at or after this time (ms); the caller adds the retention's start. */
  since?: number;
  /** "newest" (the default) or "oldest" first. */
  order?: "newest" | "oldest";
  /** Where the last page ended (its `next`). */
  cursor?: string;
  /** At most this many records. */
  limit: number;
  /**
   * At most this many records looked at (a filter by type walks the log): a page may then hold
   * fewer than `limit`, with a `next` to go on from.
   */
  scanLimit?: number;
}

export interface AuditPage {
  records: AuditRecord[];
  /** The cursor of the next page; absent when there is no more. */
  next?: string;
}

export interface AuditStore {
  /**
   * Appends the entries in their order, each kept until its time plus keepSeconds. A record is in
   * the list of its account (user_id) and of its actor (actor.id of a user or an admin).
   */
  append(entries: AuditEntry[], keepSeconds: number): Promise<void>;
  /** userId: the records naming the user, as the account or as the actor. */
  list(query: AuditQuery): Promise<AuditPage>;
  /**
   * Deletes every record naming the user (their list), and the list: an account's deletion
   * (CONTRACT §13: nothing left names them). How many records were deleted.
   */
  forgetUser(userId: string): Promise<number>;
}

/** The users whose lists a record is in: its account, and its actor when a user or an admin. */
export function auditUsersOf(e: AuditEntry): string[] {
  const ids: string[] = [];
  if (e.user_id !== undefined) ids.push(e.user_id);
  const actor = e.actor?.id;
  if (actor !== undefined && (e.actor?.kind === "user" || e.actor?.kind === "admin") && actor !== e.user_id)
    ids.push(actor);
  return ids;
}

/** A cursor is "<ms>-<n>" (both stores' record ids); anything else is a caller's invention. */
export const AUDIT_CURSOR = /^\d{1,15}-\d{1,19}$/;
