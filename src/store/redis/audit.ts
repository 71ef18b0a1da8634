// The Redis store's audit log (store/ports/audit.ts): a stream of every record (<prefix>:audit) and
// one stream a user (<prefix>:audit-of:{user}) holding copies of theirs. Each XADD trims its
// stream by time (MINID ~: whole nodes, O(1) amortised), so a stream keeps at most a little more
// than AUDIT_RETENTION; reads never return older records (the caller's `since`). A user's stream
// expires AUDIT_RETENTION after their last record. The two streams are on different shards in a
// Cluster, so they are written one after the other: a failure between them leaves a record out
// of the user's list, never the other way round.
import {
  auditUsersOf,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
  type AuditStore,
} from "../port.js";
import { guarded } from "./guarded.js";
import type { Keyspace } from "./keys.js";
import type { RedisClient } from "./redis-client.js";

/** Entries read at a time while a page is filled. */
const CHUNK = 200;

type StreamEntry = [id: string, fields: string[]];

export class RedisAudit implements AuditStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async append(entries: AuditEntry[], keepSeconds: number): Promise<void> {
    if (entries.length === 0) return;
    const cut = String(Math.max(0, Date.now() - keepSeconds * 1000));
    // Auto-pipelined: one round trip for the log, one for the users' lists.
    const ids = await guarded(() =>
      Promise.all(entries.map((e) => this.redis.xadd(this.keys.audit, "MINID", "~", cut, "*", "r", JSON.stringify(e)))),
    );
    const ttl = keepSeconds * 1000;
    await guarded(() =>
      Promise.all(
        entries.flatMap((e, i) =>
          auditUsersOf(e).flatMap((user) => {
            const key = this.keys.auditOf(user);
            return [
              this.redis.xadd(key, "MINID", "~", cut, "*", "r", JSON.stringify({ id: ids[i], ...e })),
              this.redis.pexpire(key, ttl),
            ];
          }),
        ),
      ),
    );
  }

  async forgetUser(userId: string): Promise<number> {
    const key = this.keys.auditOf(userId);
    let n = 0;
    for (let from = "-"; ;) {
      const rows = (await guarded(() => this.redis.xrange(key, from, "+", "COUNT", 500))) as StreamEntry[];
      const records = rows.map(([id, fields]) => parse(id, fields, true)).filter((r) => r !== undefined);
      if (records.length > 0) {
        n += await guarded(() => this.redis.xdel(this.keys.audit, ...records.map((r) => r.id)));
        // The copy in the record's other list (its actor's, or its account's).
        await guarded(() =>
          Promise.all(
            records.flatMap((r) =>
              auditUsersOf(r)
                .filter((u) => u !== userId)
                .map((u) => this.dropCopy(u, r.id)),
            ),
          ),
        );
      }
      if (rows.length < 500) break;
      from = `(${rows[rows.length - 1]![0]}`;
    }
    await guarded(() => this.redis.del(key));
    return n;
  }

  /** Deletes the copy of the log's record `id` from a user's list (found by its time: the ids share it). */
  private async dropCopy(userId: string, id: string): Promise<void> {
    const key = this.keys.auditOf(userId);
    const ms = id.split("-")[0]!;
    const rows = (await this.redis.xrange(key, `${ms}-0`, "+", "COUNT", 50)) as StreamEntry[];
    const copy = rows.find(([, fields]) => parse("", fields, true)?.id === id);
    if (copy) await this.redis.xdel(key, copy[0]);
  }

  async list(q: AuditQuery): Promise<AuditPage> {
    const newest = (q.order ?? "newest") === "newest";
    const scanLimit = q.scanLimit ?? Number.MAX_SAFE_INTEGER;
    const key = q.userId !== undefined ? this.keys.auditOf(q.userId) : this.keys.audit;
    const oldEnd = q.since !== undefined ? `${q.since}-0` : "-";
    let from = q.cursor !== undefined ? `(${q.cursor}` : newest ? "+" : oldEnd;
    if (!newest && q.cursor !== undefined && q.since !== undefined && laterId(`${q.since}-0`, q.cursor)) from = oldEnd;
    const records: AuditRecord[] = [];
    let scanned = 0;
    let lastSeen: string | undefined;
    for (;;) {
      const want = Math.min(CHUNK, scanLimit - scanned);
      if (want <= 0) break;
      const rows = (await guarded(() =>
        newest
          ? this.redis.xrevrange(key, from, oldEnd, "COUNT", want)
          : this.redis.xrange(key, from, "+", "COUNT", want),
      )) as StreamEntry[];
      let full = false;
      for (const [id, fields] of rows) {
        scanned++;
        lastSeen = id;
        from = `(${id}`;
        const record = parse(id, fields, q.userId !== undefined);
        if (!record || (q.since !== undefined && record.time < q.since)) continue;
        if (q.types && !q.types.includes(record.type)) continue;
        records.push(record);
        if (records.length >= q.limit) {
          full = true;
          break;
        }
      }
      if (full) break;
      if (rows.length < want) return { records }; // the end of the stream
    }
    if (lastSeen === undefined) return { records };
    const more = (await guarded(() =>
      newest
        ? this.redis.xrevrange(key, `(${lastSeen}`, oldEnd, "COUNT", 1)
        : this.redis.xrange(key, `(${lastSeen}`, "+", "COUNT", 1),
    )) as StreamEntry[];
    return more.length > 0 ? { records, next: lastSeen } : { records };
  }
}

/** Whether stream id a comes after b. */
function laterId(a: string, b: string): boolean {
  const [am, as] = a.split("-").map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split("-").map(BigInt) as [bigint, bigint];
  return am > bm || (am === bm && as > bs);
}

/** A stream entry as a record: the log's id is the entry's own; a user's copy carries it. */
function parse(id: string, fields: string[], copy: boolean): AuditRecord | undefined {
  const i = fields.indexOf("r");
  if (i < 0 || fields[i + 1] === undefined) return undefined;
  try {
    const { id: logId, ...rest } = JSON.parse(fields[i + 1]!) as Partial<AuditRecord> & AuditEntry; // checked just above
    return { id: copy && logId !== undefined ? logId : id, ...rest };
  } catch {
    return undefined;
  }
}
