// The in-process engine (DATA_DIR=:memory:): tables in JS Maps, lost on exit. A write is atomic
// because it runs synchronously, and a step that throws has its writes taken back (WriteScope);
// records enter and leave as copies (structuredClone), as they would through a wire, so no caller
// can change stored data by holding a reference.
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

interface Slot<V> {
  key: KeyPart[];
  value: V;
  /** ms since the epoch; 0: never. */
  exp: number;
}

const live = (s: Slot<unknown> | undefined, now = Date.now()): boolean =>
  s !== undefined && (s.exp === 0 || s.exp > now);
/** Records are grouped by their key's first part (ranges always name it). */
const groupOf = (parts: KeyPart[]): string => `${typeof parts[0]}:${String(parts[0])}`;

class MapTable<V> implements Table<V> {
  /** group → full key (JSON) → slot. */
  readonly groups = new Map<string, Map<string, Slot<V>>>();
  constructor(
    readonly name: string,
    private readonly scope: WriteScope,
  ) {}

  private slot(key: Key): Slot<V> | undefined {
    const parts = asParts(key);
    return this.groups.get(groupOf(parts))?.get(JSON.stringify(parts));
  }
  get(key: Key): V | undefined {
    const s = this.slot(key);
    return live(s) ? structuredClone(s!.value) : undefined; // live(s): s is set
  }
  has(key: Key): boolean {
    return live(this.slot(key));
  }
  expiresAt(key: Key): number | undefined {
    const s = this.slot(key);
    return live(s) ? s!.exp : undefined; // live(s): s is set
  }
  put(key: Key, value: V, expiresAt = 0): void {
    this.scope.assert(`put in ${this.name}`);
    const parts = asParts(key);
    const g = groupOf(parts);
    let group = this.groups.get(g);
    if (!group) this.groups.set(g, (group = new Map()));
    const k = JSON.stringify(parts);
    this.keepUndo(g, k, group.get(k));
    group.set(k, { key: [...parts], value: structuredClone(value), exp: expiresAt });
  }
  add(key: Key, value: V, expiresAt = 0): boolean {
    this.scope.assert(`add in ${this.name}`);
    if (this.has(key)) return false;
    this.put(key, value, expiresAt);
    return true;
  }
  remove(key: Key): boolean {
    this.scope.assert(`remove in ${this.name}`);
    const parts = asParts(key);
    const g = groupOf(parts);
    const group = this.groups.get(g);
    const k = JSON.stringify(parts);
    const slot = group?.get(k);
    this.keepUndo(g, k, slot);
    group?.delete(k);
    if (group?.size === 0) this.groups.delete(g);
    return live(slot);
  }
  /** A step that throws is taken back whole: each write puts back the slot it replaced (or none). */
  private keepUndo(g: string, k: string, before: Slot<V> | undefined): void {
    this.scope.onUndo(() => {
      let group = this.groups.get(g);
      if (before) {
        if (!group) this.groups.set(g, (group = new Map()));
        group.set(k, before);
      } else if (group) {
        group.delete(k);
        if (group.size === 0) this.groups.delete(g);
      }
    });
  }
  range(prefix: KeyPart[], opts: RangeOptions = {}): Entry<V>[] {
    const now = Date.now();
    const slots = this.candidates(prefix).filter(
      (s) =>
        live(s, now) &&
        hasPrefix(s.key, prefix) &&
        (opts.after === undefined || compareKeys(s.key, opts.after) > 0) &&
        (opts.before === undefined || compareKeys(s.key, opts.before) < 0),
    );
    slots.sort((a, b) => (opts.reverse ? compareKeys(b.key, a.key) : compareKeys(a.key, b.key)));
    return slots
      .slice(0, opts.limit ?? slots.length)
      .map((s) => ({ key: [...s.key], value: structuredClone(s.value) }));
  }
  count(prefix: KeyPart[]): number {
    const now = Date.now();
    let n = 0;
    for (const s of this.candidates(prefix)) if (live(s, now) && hasPrefix(s.key, prefix)) n++;
    return n;
  }
  /** The slots a range with this prefix looks at: its group, or every group for the whole table. */
  private candidates(prefix: KeyPart[]): Slot<V>[] {
    if (prefix.length > 0) return [...(this.groups.get(groupOf(prefix))?.values() ?? [])];
    return [...this.groups.values()].flatMap((g) => [...g.values()]);
  }
  sweep(now: number): void {
    for (const [g, group] of this.groups) {
      for (const [k, s] of group) if (!live(s, now)) group.delete(k);
      if (group.size === 0) this.groups.delete(g);
    }
  }
}

export class MapEngine implements Engine {
  readonly name = "memory" as const;
  readonly shared = false;
  private readonly scope = new WriteScope();
  private readonly tables = new Map<string, MapTable<unknown>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly tasks: Array<() => Promise<void>> = [];

  constructor(sweepMs = 30_000) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), sweepMs).unref();
  }

  table<V>(name: string): Table<V> {
    let t = this.tables.get(name);
    if (!t) this.tables.set(name, (t = new MapTable(name, this.scope)));
    return t as MapTable<V>;
  }

  snapshot<T>(fn: () => T): T {
    return fn(); // synchronous: nothing writes between its reads
  }

  tableNames(): string[] {
    return [...this.tables.keys()];
  }

  write<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(this.scope.run(fn));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  async sweep(): Promise<void> {
    const now = Date.now();
    for (const t of this.tables.values()) t.sweep(now);
    for (const task of this.tasks) await task();
  }

  onSweep(task: () => Promise<void>): void {
    this.tasks.push(task);
  }

  dump(): string[] {
    const lines: string[] = [];
    const now = Date.now();
    for (const t of this.tables.values())
      for (const group of t.groups.values())
        for (const s of group.values()) if (live(s, now)) lines.push(dumpLine(t.name, s.key, s.value));
    return lines;
  }

  heldCount(): number {
    let n = 0;
    for (const t of this.tables.values()) for (const g of t.groups.values()) n += g.size;
    return n;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.tables.clear();
  }
}

/** One record as a dump line: its table, key and value as JSON (bytes as their length). */
export function dumpLine(table: string, key: KeyPart[], value: unknown): string {
  const text = JSON.stringify(value, (_k, v: unknown) =>
    v instanceof Uint8Array || (v as { type?: string })?.type === "Buffer" ? `<bytes>` : v,
  );
  return `${table} ${JSON.stringify(key)} => ${text}`;
}
