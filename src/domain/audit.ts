// The audit log (docs/operations.md#audit-log): what happened to accounts and apps, by whom, from
// where. record() only queues: the records are written in batches, off the request's path, so a
// sign-in or a /token never waits for the log, and a store that is away costs the request nothing.
// The queue is bounded; what cannot be written is retried, and what overflows is counted and
// reported (never the records' contents). Readers get AUDIT_RETENTION's worth, never older.
export type { AuditActor } from "../store/port.js";
import type { AuditActor, AuditEntry, AuditPage, AuditStore } from "../store/port.js";
import { AUDIT_CURSOR } from "../store/port.js";

export interface AuditDeps {
  store: { audit: AuditStore };
  /** AUDIT_RETENTION, seconds. */
  keepSeconds: number;
  /** A batch could not be written (it is retried), or records were dropped (the queue was full). */
  onError(what: string, err: unknown): void;
  now?: () => number;
  /** Records written at most per batch, and the most held while the store is away. */
  batch?: number;
  maxQueued?: number;
}

/** Where a change came from: a browser (address, browser summary, request id), or the operator. */
export interface AuditOrigin {
  address?: string | undefined;
  browser?: string | undefined;
  requestId?: string | undefined;
}

/** What a caller says happened; time, when absent, is now. */
export interface AuditEvent {
  type: AuditType;
  userId?: string | undefined;
  username?: string | undefined;
  actor?: AuditActor | undefined;
  clientId?: string | undefined;
  /** The group it is about (group.*). */
  group?: string | undefined;
  /** The upstream provider it is about (upstream.*: its id). */
  upstream?: string | undefined;
  method?: string | undefined;
  reason?: string | undefined;
  origin?: AuditOrigin | "operator" | undefined;
}

/** Every type of record (docs/operations.md#audit-log lists them with what they mean). */
export const AUDIT_TYPES = [
  "signin.succeeded",
  "signin.failed",
  "signout",
  "signup",
  "consent.given",
  "consent.withdrawn",
  "token.revoked",
  "password.changed",
  "password.reset",
  "email.changed",
  "email.removed",
  "two_factor.enabled",
  "two_factor.replaced",
  "two_factor.disabled",
  "two_factor.recovery_codes",
  "passkey.added",
  "passkey.removed",
  "upstream.linked",
  "upstream.unlinked",
  "account.deleted",
  "user.disabled",
  "user.enabled",
  "user.signed_out",
  "user.two_factor_reset",
  "user.reset_mail_sent",
  "user.admin_granted",
  "user.admin_revoked",
  "app.created",
  "app.updated",
  "app.deleted",
  "app.secret_rotated",
  "app.disabled",
  "app.enabled",
  "app.trusted",
  "app.untrusted",
  "group.created",
  "group.deleted",
  "group.member_added",
  "group.member_removed",
  "key.rotated",
  "invitation.created",
  "invitation.revoked",
  "invitation.used",
  "upstream.added",
  "upstream.changed",
  "upstream.removed",
] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

/** The CLI's actor. */
export const OPERATOR_ACTOR: AuditActor = { kind: "operator" };

const RETRY_MS = 1000;

export class AuditLog {
  private queue: AuditEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dropped = 0;
  private failing = false;

  constructor(private readonly deps: AuditDeps) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Queues a record; never throws, never waits. */
  record(e: AuditEvent): void {
    const origin = e.origin === "operator" ? undefined : e.origin;
    const entry: AuditEntry = { time: this.now(), type: e.type };
    if (e.userId !== undefined) entry.user_id = e.userId;
    if (e.username !== undefined) entry.username = e.username;
    const actor = e.actor ?? (e.origin === "operator" ? OPERATOR_ACTOR : undefined);
    if (actor) entry.actor = actor;
    if (e.clientId !== undefined) entry.client_id = e.clientId;
    if (e.group !== undefined) entry.group = e.group;
    if (e.upstream !== undefined) entry.upstream = e.upstream;
    if (origin?.address !== undefined) entry.address = origin.address;
    if (origin?.browser !== undefined) entry.browser = origin.browser.slice(0, 256);
    if (origin?.requestId !== undefined) entry.request_id = origin.requestId;
    if (e.method !== undefined) entry.method = e.method;
    if (e.reason !== undefined) entry.reason = e.reason;
    if (this.queue.length >= (this.deps.maxQueued ?? 10_000)) {
      this.queue.shift();
      this.dropped++;
    }
    this.queue.push(entry);
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writing = this.flush().finally(() => {
        this.writing = undefined;
        if (this.queue.length > 0) this.schedule(this.failing ? RETRY_MS : 0);
      });
    }, ms);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    if (this.dropped > 0) {
      this.deps.onError(`audit log: ${this.dropped} records dropped (the store was away and the queue full)`, null);
      this.dropped = 0;
    }
    const batch = this.queue.splice(0, this.deps.batch ?? 500);
    if (batch.length === 0) return;
    try {
      await this.deps.store.audit.append(batch, this.deps.keepSeconds);
      this.failing = false;
    } catch (err) {
      // Back to the front, in order, for the retry (the bound applies again as new ones come).
      this.queue = [...batch, ...this.queue];
      if (!this.failing) this.deps.onError("audit log: records not written yet (retrying)", err);
      this.failing = true;
    }
  }

  /** Writes what is queued (the CLI before it exits; a node as it stops). Gives up after one failure. */
  async settled(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writing) await this.writing;
    while (this.queue.length > 0) {
      await this.flush();
      if (this.failing) return;
    }
  }

  /**
   * Deletes every record naming the user (an account's deletion): what this node still holds in
   * its queue is written first, so that it goes too.
   */
  async forgetUser(userId: string): Promise<number> {
    await this.settled();
    return this.deps.store.audit.forgetUser(userId);
  }

  /**
   * A page of the log: newest first unless asked otherwise, never older than AUDIT_RETENTION.
   * A cursor that is not one this log gave is refused (a caller's mistake, not an empty page).
   */
  list(q: {
    userId?: string | undefined;
    types?: string[] | undefined;
    since?: number | undefined;
    order?: "newest" | "oldest" | undefined;
    cursor?: string | undefined;
    limit: number;
    scanLimit?: number | undefined;
  }): Promise<AuditPage> {
    if (q.cursor !== undefined && !AUDIT_CURSOR.test(q.cursor)) throw new RangeError("not a cursor of this log");
    const kept = this.now() - this.deps.keepSeconds * 1000;
    return this.deps.store.audit.list({
      limit: q.limit,
      since: Math.max(kept, q.since ?? 0),
      order: q.order ?? "newest",
      ...(q.userId !== undefined ? { userId: q.userId } : {}),
      ...(q.types !== undefined ? { types: q.types } : {}),
      ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
      ...(q.scanLimit !== undefined ? { scanLimit: q.scanLimit } : {}),
    });
  }
}
