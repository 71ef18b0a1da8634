// A value worked out once per key and kept, for a bounded number of keys: past the bound, every
// kept value is forgotten at once (no order to keep, no LRU bookkeeping on the hot paths that use
// it: the keyed hashes of limiters and grants, the CUSTOM TOKENs whose signature was checked, the
// upstream providers' unsealed secrets). For values that never change for their key.
export class Remembered<K, V> {
  private readonly kept = new Map<K, V>();

  constructor(private readonly max: number) {}

  /** The value kept for key, or work()'s, then kept (a work that throws keeps nothing). */
  get(key: K, work: () => V): V {
    const known = this.kept.get(key);
    if (known !== undefined) return known;
    const value = work();
    if (this.kept.size >= this.max) this.kept.clear();
    this.kept.set(key, value);
    return value;
  }
}
