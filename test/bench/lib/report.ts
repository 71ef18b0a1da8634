// Reporting helpers shared by every benchmark module: one row per measured endpoint, Sigil beside
// its baseline, printed as one table at the end of the run.
import type { Measurement } from "./load.js";

export interface Row {
  /** What was measured, e.g. "POST /challenge/solve". */
  name: string;
  subject: Measurement;
  baseline: Measurement;
  /** The goal for subject/baseline throughput, e.g. 0.7; shown beside the ratio. */
  goal?: number;
  /** Names for the two columns (default "Sigil" and "baseline"). */
  labels?: [string, string];
  note?: string;
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

/** Baseline CPU per request / subject CPU per request: the throughput ratio one core would allow. */
function cpuRatio(r: Row): string {
  const s = r.subject.cpuUsPerRequest;
  const b = r.baseline.cpuUsPerRequest;
  return s && b ? `cpu ${fmt((b / s) * 100)}%` : "";
}

export function ratio(r: Row): number {
  return r.subject.rps / r.baseline.rps;
}

export function formatTable(rows: Row[]): string {
  const head = ["benchmark", "who", "req/s", "p50 ms", "p99 ms", "CPU µs/req", "non-2xx", "errors", "ratio", "goal"];
  const lines: string[][] = [head];
  for (const r of rows) {
    const [a, b] = r.labels ?? ["Sigil", "baseline"];
    const q = ratio(r);
    lines.push([r.name, a, fmt(r.subject.rps), fmt(r.subject.p50, 2), fmt(r.subject.p99, 2), fmt(r.subject.cpuUsPerRequest ?? NaN), String(r.subject.non2xx), String(r.subject.errors), `${fmt(q * 100)}%`, r.goal === undefined ? "" : `${q >= r.goal ? "met" : "MISSED"} (≥ ${fmt(r.goal * 100)}%)`]);
    lines.push(["", b, fmt(r.baseline.rps), fmt(r.baseline.p50, 2), fmt(r.baseline.p99, 2), fmt(r.baseline.cpuUsPerRequest ?? NaN), String(r.baseline.non2xx), String(r.baseline.errors), cpuRatio(r), ""]);
  }
  const widths = head.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  const render = (l: string[]) => l.map((c, i) => (i >= 2 && i <= 8 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd();
  const sep = widths.map((w) => "-".repeat(w)).join("  ");
  return [render(lines[0]!), sep, ...lines.slice(1).map(render)].join("\n");
}

/** The same rows as a Markdown table (for the README). */
export function formatMarkdown(rows: Row[]): string {
  const out = ["| benchmark | Sigil req/s | p50 / p99 ms | CPU µs/req | baseline req/s | p50 / p99 ms | CPU µs/req | ratio (req/s) | ratio (CPU) |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"];
  for (const r of rows) {
    out.push(`| ${r.name} | ${fmt(r.subject.rps)} | ${fmt(r.subject.p50, 2)} / ${fmt(r.subject.p99, 2)} | ${fmt(r.subject.cpuUsPerRequest ?? NaN)} | ${fmt(r.baseline.rps)} | ${fmt(r.baseline.p50, 2)} / ${fmt(r.baseline.p99, 2)} | ${fmt(r.baseline.cpuUsPerRequest ?? NaN)} | ${fmt(ratio(r) * 100)}% | ${cpuRatio(r).replace("cpu ", "")} |`);
  }
  return out.join("\n");
}
