// The embedded store's equivalent of redisDump (support/redis.ts): every key and value the
// MemoryStore object holds — its maps, sets, expiring maps and its limiters' counters — as text,
// one line per leaf ("path => value"), so a test can look for what should not be there.
import type { MemoryStore } from "../../src/store/memory/index.js";

export function memoryDump(store: MemoryStore): string {
  const lines: string[] = [];
  const seen = new WeakSet<object>();
  const walk = (path: string, v: unknown): void => {
    if (v === null || v === undefined) return;
    if (typeof v === "function" || typeof v === "symbol") return;
    if (typeof v !== "object") return void lines.push(`${path} => ${String(v)}`);
    if (seen.has(v)) return;
    seen.add(v);
    // Timers (an expiry's setTimeout) link to every other timer of the process: not the store's data.
    const kind = (v as { constructor?: { name?: string } }).constructor?.name;
    if (kind === "Timeout" || kind === "Immediate") return;
    if (Buffer.isBuffer(v) || v instanceof Uint8Array) return void lines.push(`${path} => <${v.length} bytes>`);
    if (v instanceof Map) {
      for (const [k, x] of v) {
        lines.push(`${path} key ${String(k)}`);
        walk(`${path}[${String(k)}]`, x);
      }
      return;
    }
    if (v instanceof Set) {
      for (const x of v) walk(`${path}{}`, x);
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      lines.push(`${path}.${k}`);
      walk(`${path}.${k}`, x);
    }
  };
  walk("store", store);
  return lines.join("\n");
}
