// node --import tsx test/bench/profile-summary.ts <file.cpuprofile> [marker] [binMs]
// Sums a CPU profile (BENCH_PROFILE=dir writes one per Sigil process) by function, self and
// inclusive time, as shares of the busy (non-idle) time. With a marker (a file name such as
// oauth/token.ts), only the bins of binMs (250) in which frames of that file take more than a fifth
// of the busy time count: the window where that endpoint was under load, without the set-up.
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, marker, binArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: profile-summary.ts <file.cpuprofile> [marker] [binMs]");
  process.exit(2);
}
const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
const bin = Number(binArg ?? 250) * 1000;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n: Node) =>
  `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/.*node_modules\//, "").replace(/^file:\/\/.*?\/(src|test)\//, "$1/")}`;
const stacks = new Map<number, Set<string>>();
const stackOf = (id: number) => {
  let s = stacks.get(id);
  if (!s) {
    s = new Set();
    for (let c: number | undefined = id; c !== undefined; c = parent.get(c)) s.add(name(byId.get(c)!));
    stacks.set(id, s);
  }
  return s;
};
const IDLE = "(idle) ";

// Samples by time bin.
const bins = new Map<number, Array<[number, number]>>();
let t = 0;
for (let i = 0; i < p.samples.length; i++) {
  t += p.timeDeltas[i] ?? 0;
  const b = Math.floor(t / bin);
  if (!bins.has(b)) bins.set(b, []);
  bins.get(b)!.push([p.samples[i]!, p.timeDeltas[i + 1] ?? 0]);
}
const chosen = [...bins.values()].filter((samples) => {
  if (!marker) return true;
  let busy = 0;
  let mark = 0;
  for (const [id, d] of samples) {
    const s = stackOf(id);
    if (s.has(IDLE)) continue;
    busy += d;
    if ([...s].some((k) => k.includes(marker))) mark += d;
  }
  return busy > 0 && mark / busy > 0.2;
});

const self = new Map<string, number>();
const incl = new Map<string, number>();
let busy = 0;
let all = 0;
for (const samples of chosen)
  for (const [id, d] of samples) {
    all += d;
    const s = stackOf(id);
    if (s.has(IDLE)) continue;
    busy += d;
    const k = name(byId.get(id)!);
    self.set(k, (self.get(k) ?? 0) + d);
    for (const f of s) incl.set(f, (incl.get(f) ?? 0) + d);
  }
const top = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}`)
    .join("\n");
console.log(
  `${marker ? `${chosen.length} bins of ${bin / 1000} ms where ${marker} is over a fifth of the busy time; ` : ""}` +
    `${(all / 1e6).toFixed(2)} s sampled, ${(busy / 1e6).toFixed(2)} s busy`,
);
console.log(`\nself time, % of busy:\n${top(self, 30)}`);
console.log(`\ninclusive time, % of busy:\n${top(incl, 40)}`);
