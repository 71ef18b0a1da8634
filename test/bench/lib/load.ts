// Load generation with autocannon, from the bench process: a warm-up that is thrown away, then a
// measurement of fixed duration. Requests are built per call by `next()`, so a benchmark can mix
// keys, right and wrong answers, or anything else a realistic client does.
import autocannon from "autocannon";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in USER_HZ (100 on Linux)
  } catch {
    return undefined;
  }
}

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  total: number;
  /** CPU time of the server process per request (µs): less sensitive to a busy machine than req/s. */
  cpuUsPerRequest?: number;
  /** Responses of the measured run by status code (non2xx counts 429 and 404 alike; this tells them apart). */
  statuses?: Record<string, number>;
  /** Responses of the measured run that LoadOptions.expect refused: the row measured something else. */
  unexpected?: number;
  /** Redis's own CPU time per request (µs) over the measured run, when LoadOptions.redisUsec was given. */
  redisUsPerRequest?: number;
}

export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  url: string;
  /** The server's pid, to report its CPU time per request. */
  pid?: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  next: () => LoadRequest;
  /** A fixed number of requests instead of `seconds` (for single-use inputs such as codes). */
  amount?: number;
  /** With `amount`: requests of warm-up (thrown away) before the measurement. */
  warmupAmount?: number;
  /** Optional look at each response (warm-up and measurement). */
  onResponse?: (status: number, body: string) => void;
  /**
   * What every response must be (e.g. 200 with correct:true, or 429 as well under a limit); those
   * of the measured run that are not are counted in Measurement.unexpected, which fails the row.
   * Without it, only autocannon's own non-2xx and errors are counted.
   */
  expect?: (status: number, body: string) => boolean;
  /**
   * Runs before the warm-up and again before the measurement, so that each starts from the same
   * state (e.g. no wrong answers counted yet) whatever ran before.
   */
  restart?: () => Promise<void>;
  /** Redis's CPU time so far (µs, e.g. summed from INFO commandstats): read around the measured run. */
  redisUsec?: () => number;
}

function run(
  url: string,
  seconds: number,
  connections: number,
  opts: LoadOptions,
  amount?: number,
): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: amount !== undefined ? Math.min(connections, amount) : connections,
    ...(amount !== undefined ? { amount } : { duration: seconds }),
    pipelining: 1,
    timeout: 10,
    requests: [
      {
        setupRequest: (req: any) => {
          const r = opts.next();
          return { ...req, method: r.method, path: r.path, headers: r.headers ?? {}, body: r.body };
        },
        ...(opts.onResponse ? { onResponse: (status: number, body: string) => opts.onResponse!(status, body) } : {}),
      } as any,
    ],
  });
}

export async function measure(opts: LoadOptions): Promise<Measurement> {
  await opts.restart?.();
  if (opts.amount !== undefined) {
    if (opts.warmupAmount) await run(opts.url, 0, opts.connections, opts, opts.warmupAmount);
  } else if (opts.warmupSeconds > 0) await run(opts.url, opts.warmupSeconds, opts.connections, opts);
  await opts.restart?.();
  const cpu0 = cpuSeconds(opts.pid);
  const redis0 = opts.redisUsec?.();
  // A fixed-count run ends on autocannon's next one-second tick, not with its last response: time
  // it from the start to the last response instead.
  let last = 0;
  let unexpected = 0;
  const statuses: Record<string, number> = {};
  const timed: LoadOptions = {
    ...opts,
    onResponse: (status, body) => {
      last = performance.now();
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (opts.expect && !opts.expect(status, body)) unexpected++;
      opts.onResponse?.(status, body);
    },
  };
  const t0 = performance.now();
  const r = await run(opts.url, opts.seconds, opts.connections, timed, opts.amount);
  const wall = ((last || performance.now()) - t0) / 1000;
  const cpu1 = cpuSeconds(opts.pid);
  const redis1 = opts.redisUsec?.();
  const total = r.requests.total;
  const rps = opts.amount !== undefined ? total / wall : r.requests.total / (r.duration || opts.seconds);
  return {
    ...(cpu0 !== undefined && cpu1 !== undefined && total > 0
      ? { cpuUsPerRequest: ((cpu1 - cpu0) * 1e6) / total }
      : {}),
    ...(redis0 !== undefined && redis1 !== undefined && total > 0
      ? { redisUsPerRequest: (redis1 - redis0) / total }
      : {}),
    rps,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    total,
    statuses,
    unexpected,
  };
}

/** Benchmark settings, read once from the environment by run.ts. */
export interface BenchSettings {
  seconds: number;
  /** Measurements of each side, alternated (S B S B …); the best of each is reported. */
  rounds: number;
  /** Substrings of the benchmark names to run (empty: all). */
  endpoints: string[];
  warmupSeconds: number;
  connections: number;
  /** Names of the modules to run (empty: all). */
  only: string[];
  /** Write CPU profiles of the Sigil process into this directory. */
  profileDir: string | undefined;
}

export function selected(settings: BenchSettings, name: string): boolean {
  return settings.endpoints.length === 0 || settings.endpoints.some((e) => name.includes(e));
}

/**
 * Measures the subject and its baseline alternately, settings.rounds times each, and keeps each
 * side's best round: on a shared machine, noise only ever slows a run down, so the best round is the
 * closest to what the code can do, and alternating exposes both sides to the same background.
 */
export async function sideBySide(
  ctx: { settings: BenchSettings; log(line: string): void },
  name: string,
  subject: LoadOptions,
  baseline: LoadOptions,
): Promise<{ subject: Measurement; baseline: Measurement }> {
  const [s, b] = await inTurn(ctx, name, [
    ["Sigil", subject],
    ["baseline", baseline],
  ]);
  return { subject: s!, baseline: b! };
}

/**
 * sideBySide for any number of sides, measured in turn (A B C A B C …): each side's best round, its
 * unexpected responses counted over every round (one is enough to fail a row).
 */
export async function inTurn(
  ctx: { settings: BenchSettings; log(line: string): void },
  name: string,
  sides: ReadonlyArray<readonly [string, LoadOptions]>,
): Promise<Measurement[]> {
  const best: Array<Measurement | undefined> = sides.map(() => undefined);
  const unexpected = sides.map(() => 0);
  const cpu = (m: Measurement) =>
    m.cpuUsPerRequest === undefined ? "" : ` (${m.cpuUsPerRequest.toFixed(0)} µs CPU/req)`;
  const bad = (m: Measurement) => (m.unexpected ? `, ${m.unexpected} UNEXPECTED responses` : "");
  for (let round = 1; round <= Math.max(1, ctx.settings.rounds); round++) {
    const parts: string[] = [];
    for (const [i, [label, opts]] of sides.entries()) {
      const m = await measure(opts);
      unexpected[i]! += m.unexpected ?? 0;
      parts.push(`${label} ${m.rps.toFixed(0)} req/s${cpu(m)}${bad(m)}`);
      if (!best[i] || m.rps > best[i]!.rps) best[i] = m;
    }
    ctx.log(`  ${name} round ${round}: ${parts.join(", ")}`);
  }
  return best.map((m, i) => ({ ...m!, unexpected: unexpected[i]! }));
}
