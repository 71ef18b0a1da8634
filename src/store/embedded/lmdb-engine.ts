// The persistent engine: LMDB (lmdb-js) in DATA_DIR. A write() is one LMDB write transaction,
// batched with the others of the same event turn, resolving once committed and synced to disk;
// reads are synchronous from the memory map (nothing is loaded at start). Every record is stored
// as {v, x?} (x: when it expires, ms); an index table ([x, table, …key]) lets the sweep delete
// expired records without a scan. Several processes may open the same DATA_DIR (the CLI beside the
// server): LMDB serialises their write transactions, and a read sees the last commit of any of them.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { open, type Database, type RootDatabase, type Transaction } from "lmdb";
import { dumpLine } from "./map-engine.js";
import {
  asParts,
  compareKeys,
  hasPrefix,
  WriteScope,
  type Engine,
  type Entry,
  type Key,
  type KeyPart,
  type RangeOptions,
  type Table,
} from "./engine.js";

interface Stored<V> {
  v: V;
  /** Expiry, ms since the epoch; absent: never. */
  x?: number;
}

const EXPIRY = "~expiry";
/** A key part above any Sigil writes (ids, names, numbers): where a reverse range of a prefix starts. */
const PAST_EVERY_PART = "\uffff";
const live = (r: Stored<unknown> | undefined, now = Date.now()): r is Stored<unknown> =>
  r !== undefined && (r.x === undefined || r.x > now);
/** LMDB hands a one-part key back as the part itself. */
const dbKey = (parts: KeyPart[]): KeyPart | KeyPart[] => (parts.length === 1 ? parts[0]! : parts); // length 1
const partsOf = (key: unknown): KeyPart[] => (Array.isArray(key) ? (key as KeyPart[]) : [key as KeyPart]);

class LmdbTable<V> implements Table<V> {
  constructor(
    readonly name: string,
    readonly db: Database<Stored<V>, KeyPart | KeyPart[]>,
    private readonly expiry: Database<1, KeyPart[]>,
    private readonly scope: WriteScope,
    /** Whether the engine is still open: lmdb-js, read after close, throws later from a timer of its own. */
    private readonly isOpen: () => boolean,
    /** The read transaction of a snapshot() in progress, which every read then uses. */
    private readonly reading: () => { transaction: Transaction } | undefined,
  ) {}

  private assertOpen(): void {
    if (!this.isOpen()) throw new Error("the embedded store is closed");
  }

  private read(key: Key): Stored<V> | undefined {
    this.assertOpen();
    const r = this.db.get(dbKey(asParts(key)), this.reading());
    return live(r) ? r : undefined;
  }
  get(key: Key): V | undefined {
    return this.read(key)?.v;
  }
  has(key: Key): boolean {
    return this.read(key) !== undefined;
  }
  expiresAt(key: Key): number | undefined {
    const r = this.read(key);
    return r === undefined ? undefined : (r.x ?? 0);
  }
  put(key: Key, value: V, expiresAt = 0): void {
    this.scope.assert(`put in ${this.name}`);
    const parts = asParts(key);
    const record: Stored<V> = expiresAt > 0 ? { v: value, x: expiresAt } : { v: value };
    void this.db.put(dbKey(parts), record);
    if (expiresAt > 0) void this.expiry.put([expiresAt, this.name, ...parts], 1);
  }
  add(key: Key, value: V, expiresAt = 0): boolean {
    this.scope.assert(`add in ${this.name}`);
    const parts = asParts(key);
    const k = dbKey(parts);
    const record: Stored<V> = expiresAt > 0 ? { v: value, x: expiresAt } : { v: value };
    // MDB_NOOVERWRITE: the put looks the key up itself; a record it finds may be an expired one
    // the sweep has not deleted yet, which is overwritten (the rare second lookup).
    // lmdb's typings say void; inside a write transaction putSync returns whether it wrote.
    const wrote = this.db.putSync(k, record, { noOverwrite: true }) as unknown as boolean;
    if (!wrote) {
      if (live(this.db.get(k))) return false;
      void this.db.put(k, record);
    }
    if (expiresAt > 0) void this.expiry.put([expiresAt, this.name, ...parts], 1);
    return true;
  }
  remove(key: Key): boolean {
    this.scope.assert(`remove in ${this.name}`);
    const k = dbKey(asParts(key));
    const had = live(this.db.get(k));
    void this.db.remove(k);
    return had;
  }
  /** Inside write(): deletes the record when it still expires at x (the sweep). */
  expire(parts: KeyPart[], x: number): void {
    const k = dbKey(parts);
    if (this.db.get(k)?.x === x) void this.db.remove(k);
  }
  range(prefix: KeyPart[], opts: RangeOptions = {}): Entry<V>[] {
    this.assertOpen();
    if (opts.reverse) return this.reverseRange(prefix, opts);
    const out: Entry<V>[] = [];
    const now = Date.now();
    const start = opts.after ?? (prefix.length > 0 ? prefix : undefined);
    const snap = this.reading();
    const within = start === undefined ? { ...snap } : { start: dbKey(start), ...snap };
    for (const { key, value } of this.db.getRange(within)) {
      const parts = partsOf(key);
      if (opts.after !== undefined && compareKeys(parts, opts.after) <= 0) continue;
      if (!hasPrefix(parts, prefix)) {
        if (compareKeys(parts, prefix) > 0) break;
        continue;
      }
      if (opts.before !== undefined && compareKeys(parts, opts.before) >= 0) break;
      if (!live(value, now)) continue;
      out.push({ key: parts, value: value.v });
      if (opts.limit !== undefined && out.length >= opts.limit) break;
    }
    return out;
  }
  /** range() newest first: LMDB walks back from `before` (or the prefix's end) to `after`. */
  private reverseRange(prefix: KeyPart[], opts: RangeOptions): Entry<V>[] {
    const out: Entry<V>[] = [];
    const now = Date.now();
    // The end of the prefix's keys: every key part Sigil writes sorts below this string.
    const start = opts.before ?? (prefix.length > 0 ? [...prefix, PAST_EVERY_PART] : undefined);
    const snap = this.reading();
    const within = start === undefined ? { reverse: true, ...snap } : { start: dbKey(start), reverse: true, ...snap };
    for (const { key, value } of this.db.getRange(within)) {
      const parts = partsOf(key);
      if (opts.before !== undefined && compareKeys(parts, opts.before) >= 0) continue;
      if (!hasPrefix(parts, prefix)) {
        if (compareKeys(parts, prefix) < 0) break;
        continue;
      }
      if (opts.after !== undefined && compareKeys(parts, opts.after) <= 0) break;
      if (!live(value, now)) continue;
      out.push({ key: parts, value: value.v });
      if (opts.limit !== undefined && out.length >= opts.limit) break;
    }
    return out;
  }
  count(prefix: KeyPart[]): number {
    return this.range(prefix).length;
  }
}

export class LmdbEngine implements Engine {
  readonly name = "lmdb" as const;
  readonly shared = true;
  private readonly scope = new WriteScope();
  private readonly root: RootDatabase;
  private readonly expiry: Database<1, KeyPart[]>;
  private readonly tables = new Map<string, LmdbTable<unknown>>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  private snap: { transaction: Transaction } | undefined;
  private readonly tasks: Array<() => Promise<void>> = [];

  /**
   * Opens (or makes) the store in dir. flush: false leaves writing each commit to the disk to the
   * operating system (LMDB's noSync): a commit then outlasts the process (a kill -9) but not the
   * machine (a power cut). For stores nobody keeps: the tests' in-process nodes, whose commits
   * otherwise wait on the disk.
   */
  constructor(
    readonly dir: string,
    sweepMs = 30_000,
    opts: { flush?: boolean } = {},
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.root = open({
      path: join(dir, "sigil.mdb"),
      maxDbs: 64,
      encoding: "msgpack",
      ...(opts.flush === false ? { noSync: true } : {}),
    });
    this.expiry = this.root.openDB<1, KeyPart[]>({ name: EXPIRY });
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), sweepMs).unref();
  }

  table<V>(name: string): Table<V> {
    let t = this.tables.get(name);
    if (!t) {
      const db = this.root.openDB<Stored<unknown>, KeyPart | KeyPart[]>({ name });
      this.tables.set(
        name,
        (t = new LmdbTable(
          name,
          db,
          this.expiry,
          this.scope,
          () => !this.closed,
          () => this.snap,
        )),
      );
    }
    return t as LmdbTable<V>;
  }

  snapshot<T>(fn: () => T): T {
    if (this.snap) return fn();
    const transaction = this.root.useReadTransaction();
    this.snap = { transaction };
    try {
      return fn();
    } finally {
      this.snap = undefined;
      transaction.done();
    }
  }

  tableNames(): string[] {
    return [...this.tables.keys()];
  }

  write<T>(fn: () => T): Promise<T> {
    // The batched transaction of this event turn, and in it a child transaction for this step
    // alone: a step that throws is rolled back whole, and the others of the batch still commit.
    return this.root.transaction(() => this.root.transactionSync(() => this.scope.run(fn)));
  }

  onSweep(task: () => Promise<void>): void {
    this.tasks.push(task);
  }

  async sweep(): Promise<void> {
    await this.sweepExpired();
    for (const task of this.tasks) if (!this.closed) await task();
  }

  private async sweepExpired(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      const now = Date.now();
      const due = [...this.expiry.getRange({ end: [now], limit: 1000 })];
      if (due.length === 0 || this.closed) return;
      await this.write(() => {
        for (const { key } of due) {
          const [x, table, ...parts] = key as [number, string, ...KeyPart[]];
          this.tables.get(table)?.expire(parts, x);
          void this.expiry.remove(key);
        }
      });
      if (due.length < 1000) return;
    }
  }

  dump(): string[] {
    const lines: string[] = [];
    const now = Date.now();
    for (const t of this.tables.values())
      for (const { key, value } of t.db.getRange({}))
        if (live(value, now)) lines.push(dumpLine(t.name, partsOf(key), value.v));
    return lines;
  }

  heldCount(): number {
    let n = 0;
    for (const db of [this.expiry, ...[...this.tables.values()].map((t) => t.db)]) for (const _ of db.getKeys({})) n++;
    return n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    await this.root.close();
  }
}
