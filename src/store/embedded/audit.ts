// The embedded store's audit log (store/ports/audit.ts): records by [time, n] in "audit", and a
// per-user index [user, time, n] in "audit-by-user"; both expire with the record. n numbers the
// records of one millisecond in the order they were written (one write() gives them, so the CLI
// and the server, writing at once, never take the same key).
import {
  auditUsersOf,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
  type AuditStore,
} from "../port.js";
import { compareKeys, type Engine, type KeyPart, type Table } from "./engine.js";

type Stored = AuditEntry;
/** Rows read at a time while a page is filled. */
const CHUNK = 200;

const idOf = (time: number, n: number) => `${time}-${n}`;
function partsOfId(id: string): [number, number] {
  const [t, n] = id.split("-");
  return [Number(t), Number(n)];
}

export class EmbeddedAudit implements AuditStore {
  private readonly records: Table<Stored>;
  private readonly byUser: Table<1>;

  constructor(private readonly engine: Engine) {
    this.records = engine.table<Stored>("audit");
    this.byUser = engine.table<1>("audit-by-user");
  }

  append(entries: AuditEntry[], keepSeconds: number): Promise<void> {
    return this.engine.write(() => {
      for (const entry of entries) {
        const until = entry.time + keepSeconds * 1000;
        const last = this.records.range([entry.time], { reverse: true, limit: 1 })[0];
        const n = last ? Number(last.key[1]) + 1 : 0;
        this.records.put([entry.time, n], entry, until);
        for (const user of auditUsersOf(entry)) this.byUser.put([user, entry.time, n], 1, until);
      }
    });
  }

  forgetUser(userId: string): Promise<number> {
    return this.engine.write(() => {
      let n = 0;
      for (const { key } of this.byUser.range([userId])) {
        const at = [key[1]!, key[2]!]; // [user, time, n]
        const entry = this.records.get(at);
        if (entry && this.records.remove(at)) n++;
        // The record's other list (its actor's, or its account's) loses it too.
        if (entry) for (const other of auditUsersOf(entry)) this.byUser.remove([other, ...at]);
        this.byUser.remove(key);
      }
      return n;
    });
  }

  async list(q: AuditQuery): Promise<AuditPage> {
    const newest = (q.order ?? "newest") === "newest";
    const scanLimit = q.scanLimit ?? Number.MAX_SAFE_INTEGER;
    const prefix: KeyPart[] = q.userId !== undefined ? [q.userId] : [];
    const table: Table<unknown> = q.userId !== undefined ? this.byUser : this.records;
    const at = (id: string): KeyPart[] => [...prefix, ...partsOfId(id)];
    // The bounds: the cursor on the side the page goes from, `since` on the old side.
    let cursor: KeyPart[] | undefined = q.cursor !== undefined ? at(q.cursor) : undefined;
    const oldEnd: KeyPart[] | undefined = q.since !== undefined ? [...prefix, q.since] : undefined;
    const records: AuditRecord[] = [];
    let scanned = 0;
    let lastSeen: string | undefined;
    for (;;) {
      const want = Math.min(CHUNK, scanLimit - scanned);
      if (want <= 0) break;
      const rows = newest
        ? table.range(prefix, {
            reverse: true,
            limit: want,
            ...(cursor ? { before: cursor } : {}),
            ...(oldEnd ? { after: oldEnd } : {}),
          })
        : table.range(prefix, { limit: want, ...(cursor || oldEnd ? { after: later(cursor, oldEnd) } : {}) });
      for (const row of rows) {
        scanned++;
        const [time, n] = [Number(row.key[prefix.length]), Number(row.key[prefix.length + 1])];
        lastSeen = idOf(time, n);
        cursor = row.key;
        const entry = q.userId !== undefined ? this.records.get([time, n]) : (row.value as Stored);
        if (!entry || (q.types && !q.types.includes(entry.type))) continue;
        records.push({ id: lastSeen, ...entry });
        if (records.length >= q.limit) break;
      }
      if (records.length >= q.limit) break;
      if (rows.length < want) return { records }; // the end of the log
    }
    // A full page (or the scan's end): go on from the last row looked at, if there is another.
    if (lastSeen === undefined || cursor === undefined) return { records };
    const more = newest
      ? table.range(prefix, { reverse: true, limit: 1, before: cursor, ...(oldEnd ? { after: oldEnd } : {}) })
      : table.range(prefix, { limit: 1, after: cursor });
    return more.length > 0 ? { records, next: lastSeen } : { records };
  }
}

/** The later of two keys (either may be absent; one is not). */
function later(a: KeyPart[] | undefined, b: KeyPart[] | undefined): KeyPart[] {
  if (!a) return b!;
  if (!b) return a;
  return compareKeys(a, b) >= 0 ? a : b;
}
