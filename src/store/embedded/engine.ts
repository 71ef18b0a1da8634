// The embedded store's engine: what the store (embedded/*.ts) is written over, so that one store
// runs in process memory (map-engine.ts, DATA_DIR=:memory:) or on disk in LMDB (lmdb-engine.ts).
//
// A store operation that is one atomic step on Redis (a Lua script, a create-if-absent) is one
// write(): its function runs synchronously, alone, reads inside it see its own writes, and the
// promise resolves once the step is durable. Reads may run outside write() (they see the last
// committed state). Records may expire: an expired record is never returned, and a sweep deletes
// them (LMDB: through an index of expiry times, never a full scan).

/** A key, or one part of a compound key; compound keys order part by part (numbers before strings). */
export type KeyPart = string | number;
export type Key = KeyPart | KeyPart[];

export interface Entry<V> {
  key: KeyPart[];
  value: V;
}

export interface RangeOptions {
  /** Only keys after this one (exclusive), in key order. */
  after?: KeyPart[];
  /** Only keys before this one (exclusive). */
  before?: KeyPart[];
  limit?: number;
  /** Newest first: in reverse key order (limit counts from the end). */
  reverse?: boolean;
}

export interface Table<V> {
  /** The live record, or undefined (missing or expired). */
  get(key: Key): V | undefined;
  has(key: Key): boolean;
  /** When the live record expires (ms since the epoch), 0 when never, undefined when missing. */
  expiresAt(key: Key): number | undefined;
  /** Writes a record (only inside Engine.write); expiresAt in ms since the epoch, 0 or absent: never. */
  put(key: Key, value: V, expiresAt?: number): void;
  /**
   * Writes a record unless a live one is there (only inside Engine.write), as Redis's SET NX; whether
   * it wrote. One lookup on LMDB (a put that refuses an existing key) where has() then put() is two.
   */
  add(key: Key, value: V, expiresAt?: number): boolean;
  /** Deletes a record (only inside Engine.write); whether a live one was there. */
  remove(key: Key): boolean;
  /** The live records whose key begins with prefix ([]: the whole table), in key order (or reverse). */
  range(prefix: KeyPart[], opts?: RangeOptions): Entry<V>[];
  /** How many live records begin with prefix. */
  count(prefix: KeyPart[]): number;
}

export interface Engine {
  readonly name: "memory" | "lmdb";
  /** Whether other processes may open the same data (the CLI beside the server). */
  readonly shared: boolean;
  table<V>(name: string): Table<V>;
  /** The names of the tables this process opened (a store opens all of its own as it starts). */
  tableNames(): string[];
  /**
   * Runs fn's reads on one consistent view of the data (a read transaction on LMDB), without
   * holding up writers: what backup reads.
   */
  snapshot<T>(fn: () => T): T;
  /** Runs fn as one atomic step; resolves with its result once the step is durable. */
  write<T>(fn: () => T): Promise<T>;
  /** Deletes expired records (runs by itself every sweepMs too), then runs the onSweep tasks. */
  sweep(): Promise<void>;
  /** Work of a store's own to do after each sweep (an idle channel's history trimmed). */
  onSweep(task: () => Promise<void>): void;
  /** Every table and its live records, for tests and diagnostics (each line "table key => value"). */
  dump(): string[];
  /** How many records are held, expired ones not yet swept included (the sweep's index too). */
  heldCount(): number;
  close(): Promise<void>;
}

/**
 * How an engine checks that writes happen inside write(), and takes back the writes of a step that
 * throws where it has no transaction to abort (the in-process engine registers an undo per write).
 */
export class WriteScope {
  private depth = 0;
  private readonly undos: Array<() => void> = [];
  run<T>(fn: () => T): T {
    const mark = this.undos.length;
    this.depth++;
    try {
      return fn();
    } catch (err) {
      for (const undo of this.undos.splice(mark).reverse()) undo();
      throw err;
    } finally {
      this.depth--;
      if (this.depth === 0) this.undos.length = 0;
    }
  }
  /** Inside run(): how to take back a write, should the step throw. */
  onUndo(undo: () => void): void {
    this.undos.push(undo);
  }
  assert(what: string): void {
    if (this.depth === 0) throw new Error(`${what} outside Engine.write()`);
  }
}

export const asParts = (key: Key): KeyPart[] => (Array.isArray(key) ? key : [key]);

/** The order of keys in LMDB (ordered-binary): part by part, numbers before strings, a prefix first. */
export function compareKeys(a: KeyPart[], b: KeyPart[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!; // i < n
    const y = b[i]!;
    if (typeof x !== typeof y) return typeof x === "number" ? -1 : 1;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return a.length - b.length;
}

export function hasPrefix(key: KeyPart[], prefix: KeyPart[]): boolean {
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  return true;
}

/** Sets a live record's expiry to until when that is later (Redis PEXPIREAT GT); inside write(). */
export function extendTo<V>(table: Table<V>, key: Key, until: number): void {
  const exp = table.expiresAt(key);
  if (exp === undefined || exp === 0 || until <= exp) return;
  table.put(key, table.get(key) as V, until);
}

/** Replaces a live record's value keeping its expiry; a missing one is written expiring at until. */
export function replaceKeepingExpiry<V>(table: Table<V>, key: Key, value: V, until: number): void {
  const exp = table.expiresAt(key);
  table.put(key, value, exp === undefined ? until : exp);
}
