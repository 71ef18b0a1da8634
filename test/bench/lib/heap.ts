// Reads V8 heap snapshots (.heapsnapshot JSON) and sums the self size of their objects by kind
// (node type and constructor name), so that two snapshots of one process — before and after N
// sockets connect — say what each socket keeps: the difference per kind, divided by N.
import { readFileSync } from "node:fs";

export interface HeapSummary {
  /** kind → {bytes, count}. */
  kinds: Map<string, { bytes: number; count: number }>;
  total: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export function summarise(file: string): HeapSummary {
  const s = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const width = fields.length;
  const fType = fields.indexOf("type");
  const fName = fields.indexOf("name");
  const fSize = fields.indexOf("self_size");
  const types = s.snapshot.meta.node_types[0];
  const kinds = new Map<string, { bytes: number; count: number }>();
  let total = 0;
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + fType] ?? 0] ?? "?";
    const size = s.nodes[i + fSize] ?? 0;
    const name = s.strings[s.nodes[i + fName] ?? 0] ?? "?";
    let kind: string;
    if (type === "object" || type === "native" || type === "hidden" || type === "array" || type === "synthetic")
      kind = `${type} ${name.length > 60 ? name.slice(0, 60) + "…" : name}`;
    else if (type === "closure") kind = `closure ${name || "(anonymous)"}`;
    else kind = type; // strings, code, numbers, shapes…
    const k = kinds.get(kind) ?? { bytes: 0, count: 0 };
    k.bytes += size;
    k.count++;
    kinds.set(kind, k);
    total += size;
  }
  return { kinds, total };
}

/** Per-unit difference between two summaries, largest first: [kind, bytes per unit, count per unit]. */
export function diff(before: HeapSummary, after: HeapSummary, units: number): Array<[string, number, number]> {
  const out: Array<[string, number, number]> = [];
  for (const [kind, a] of after.kinds) {
    const b = before.kinds.get(kind) ?? { bytes: 0, count: 0 };
    out.push([kind, (a.bytes - b.bytes) / units, (a.count - b.count) / units]);
  }
  return out.sort((x, y) => y[1] - x[1]);
}
