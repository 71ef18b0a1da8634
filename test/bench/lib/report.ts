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
  /**
   * A figure other than req/s (e.g. KB per socket, connections/s): shown in the "figure" column,
   * and the ratio is subject/baseline of it instead of req/s.
   */
  figure?: { unit: string; subject: number; baseline: number; digits?: number };
  /** An absolute goal (e.g. "p99 ≤ 10 ms") checked on Sigil's own figure, instead of `goal`. */
  check?: { goal: string; met: boolean };
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

/** Baseline CPU per request / subject CPU per request: the throughput ratio one core would allow. */
function cpuRatio(r: Row): string {
  const s = r.subject.cpuUsPerRequest;
  const b = r.baseline.cpuUsPerRequest;
  return s && b ? `cpu ${fmt((b / s) * 100)}%` : "";
}

export function ratio(r: Row): number {
  return r.figure ? r.figure.subject / r.figure.baseline : r.subject.rps / r.baseline.rps;
}

function figure(r: Row, side: "subject" | "baseline"): string {
  return r.figure ? `${fmt(r.figure[side], r.figure.digits ?? 0)} ${r.figure.unit}` : "";
}

/** Why a row cannot be trusted: responses that were not what the load must get (LoadOptions.expect). */
export function failure(r: Row): string | undefined {
  const [a, b] = r.labels ?? ["Sigil", "baseline"];
  const bad = [
    [a, r.subject.unexpected ?? 0],
    [b, r.baseline.unexpected ?? 0],
  ].filter(([, n]) => Number(n) > 0);
  return bad.length ? `FAILED: unexpected responses (${bad.map(([w, n]) => `${w} ${n}`).join(", ")})` : undefined;
}

/** Errors as the table shows them: autocannon's errors plus responses the row did not expect. */
const errors = (m: Measurement) => String(m.errors + (m.unexpected ?? 0));

function goalText(r: Row, q: number): string {
  const failed = failure(r);
  if (failed) return failed;
  if (r.check) return `${r.check.met ? "met" : "MISSED"} (${r.check.goal})`;
  return r.goal === undefined ? "" : `${q >= r.goal ? "met" : "MISSED"} (≥ ${fmt(r.goal * 100)}%)`;
}

export function formatTable(rows: Row[]): string {
  const head = [
    "benchmark",
    "who",
    "req/s",
    "p50 ms",
    "p99 ms",
    "CPU µs/req",
    "non-2xx",
    "errors",
    "figure",
    "ratio",
    "goal",
  ];
  const lines: string[][] = [head];
  for (const r of rows) {
    const [a, b] = r.labels ?? ["Sigil", "baseline"];
    const q = ratio(r);
    lines.push([
      r.name,
      a,
      fmt(r.subject.rps),
      fmt(r.subject.p50, 2),
      fmt(r.subject.p99, 2),
      fmt(r.subject.cpuUsPerRequest ?? NaN),
      String(r.subject.non2xx),
      errors(r.subject),
      figure(r, "subject"),
      `${fmt(q * 100)}%`,
      goalText(r, q),
    ]);
    lines.push([
      "",
      b,
      fmt(r.baseline.rps),
      fmt(r.baseline.p50, 2),
      fmt(r.baseline.p99, 2),
      fmt(r.baseline.cpuUsPerRequest ?? NaN),
      String(r.baseline.non2xx),
      errors(r.baseline),
      figure(r, "baseline"),
      r.figure ? "" : cpuRatio(r),
      "",
    ]);
  }
  const widths = head.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  const render = (l: string[]) =>
    l
      .map((c, i) => (i >= 2 && i <= 9 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const sep = widths.map((w) => "-".repeat(w)).join("  ");
  const notes = rows.filter((r) => r.note).map((r) => `${r.name}: ${r.note}`);
  return [render(lines[0]!), sep, ...lines.slice(1).map(render), ...(notes.length ? ["", ...notes] : [])].join("\n");
}

/** The same rows as a Markdown table (for docs/benchmarks.md). */
export function formatMarkdown(rows: Row[]): string {
  const out = [
    "| benchmark | Sigil req/s | p50 / p99 ms | CPU µs/req | figure | baseline | req/s | p50 / p99 ms | CPU µs/req | figure | ratio | ratio (CPU) | goal |",
    "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of rows) {
    const [, b] = r.labels ?? ["Sigil", "baseline"];
    out.push(
      `| ${r.name} | ${fmt(r.subject.rps)} | ${fmt(r.subject.p50, 2)} / ${fmt(r.subject.p99, 2)} | ${fmt(r.subject.cpuUsPerRequest ?? NaN)} | ${figure(r, "subject")} | ${b} | ${fmt(r.baseline.rps)} | ${fmt(r.baseline.p50, 2)} / ${fmt(r.baseline.p99, 2)} | ${fmt(r.baseline.cpuUsPerRequest ?? NaN)} | ${figure(r, "baseline")} | ${fmt(ratio(r) * 100)}% | ${r.figure ? "" : cpuRatio(r).replace("cpu ", "")} | ${goalText(r, ratio(r))} |`,
    );
  }
  return out.join("\n");
}
