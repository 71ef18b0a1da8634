// Reads a V8 CPU profile (.cpuprofile) and sums self time by function and by package, to say
// where a handshake's CPU goes.
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a package under node_modules, node's own, or this project's file. */
function where(url: string): string {
  if (url === "") return "(native/VM)";
  if (url.startsWith("node:")) return url;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  const p = /\/(src|test)\/(.*)$/.exec(url);
  return p ? `${p[1]}/${p[2]}` : url;
}

export interface CpuSummary {
  /** Microseconds of self time by function ("name (file:line)"). */
  byFunction: Array<[string, number]>;
  /** Microseconds of self time by package or file. */
  byPlace: Array<[string, number]>;
  /** Microseconds with the function anywhere on the stack (inclusive time). */
  inclusive: Array<[string, number]>;
  /** Microseconds sampled in all (idle included). */
  total: number;
  /** Microseconds not idle and not the profiler itself. */
  busy: number;
}

export function summariseCpu(file: string): CpuSummary {
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const fn = new Map<string, number>();
  const place = new Map<string, number>();
  let total = 0;
  let busy = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    total += us;
    if (functionName === "(idle)" || functionName === "(program)" || functionName === "(garbage collector)") {
      if (functionName !== "(idle)") busy += us;
      const k = functionName;
      fn.set(k, (fn.get(k) ?? 0) + us);
      place.set(k, (place.get(k) ?? 0) + us);
      continue;
    }
    busy += us;
    const w = where(url);
    const k = `${functionName || "(anonymous)"} (${w}:${lineNumber + 1})`;
    fn.set(k, (fn.get(k) ?? 0) + us);
    place.set(w, (place.get(w) ?? 0) + us);
  }
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const incl = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url, lineNumber } = byId.get(at)!.callFrame;
      if (!url) continue;
      const k = `${functionName || "(anonymous)"} (${where(url)}:${lineNumber + 1})`;
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + us);
    }
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { byFunction: sorted(fn), byPlace: sorted(place), inclusive: sorted(incl), total, busy };
}
