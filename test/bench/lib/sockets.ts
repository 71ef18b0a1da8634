// Helpers of the realtime bench modules: the socket client processes (socket-swarm.ts) driven over
// IPC, a process's resident memory, percentiles, the `sigil` CLI, and starting a Sigil node.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { http } from "../../support/http.js";
import { ROOT, startProcess, startSigil, type ServerProcess } from "../../support/processes.js";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const num = (name: string, dflt: number) => {
  const v = Number(process.env[name] ?? dflt);
  return Number.isFinite(v) && v > 0 ? v : dflt;
};

/** Resident set size of a process in bytes (VmRSS from /proc). */
export function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/**
 * Starts one Sigil node of a bench on the bench Redis (the one place the benches start Sigil, so
 * that how nodes start can change in one spot). It logs as a user's node does, at the default
 * LOG_LEVEL (info: an access log line per request) to a pipe the bench reads, not at the tests'
 * quieter level: a bench must not hide a cost a user meets. It runs dist/main.js, the code
 * `npm start` runs (run.ts builds it first), unless `built: false` (src/main.ts through tsx: for a
 * module that patches src/ modules before main.ts). `nodeArgs`: e.g. --cpu-prof, or an agent
 * imported before main.ts (heap-agent.mjs), for profiling.
 */
export function startBenchSigil(
  redisUrl: string,
  opts: {
    name?: string;
    nodeArgs?: string[];
    env?: Record<string, string>;
    readyTimeoutMs?: number;
    built?: boolean;
  } = {},
): Promise<ServerProcess> {
  return startSigil(redisUrl, { built: true, ...opts, env: { LOG_LEVEL: "info", ...opts.env } });
}

/** The `sigil` CLI against the bench Redis; returns its JSON output. */
export function cli(env: Record<string, string>, ...args: string[]): any {
  const r = spawnSync(process.execPath, ["bin/sigil.js", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
  });
  if (r.status !== 0) throw new Error(`setup: sigil ${args.join(" ")} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** An app with a CUSTOM TOKEN, made with the real CLI. */
export function appWithToken(cliEnv: Record<string, string>, owner = "bench-owner"): { app: string; token: string } {
  cli(cliEnv, "users", "create", "--username", owner, "--password", "bench password 123");
  const app = cli(
    cliEnv,
    "apps",
    "create",
    "--owner",
    owner,
    "--name",
    "Bench",
    "--redirect-uri",
    "https://app.example/cb",
  );
  const { token } = cli(cliEnv, "tokens", "create", "--app", app.client_id, "--name", "bench");
  return { app: app.client_id as string, token: token as string };
}

export function message<T>(p: ChildProcess, type: string, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      p.off("message", on);
      p.off("exit", onExit);
      reject(new Error(`socket client: no "${type}" within ${ms} ms`));
    }, ms);
    const on = (m: { type: string }) => {
      if (m.type !== type) return;
      clearTimeout(timer);
      p.off("message", on);
      p.off("exit", onExit);
      resolve(m as T);
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      p.off("message", on);
      reject(new Error(`socket client exited (${code})`));
    };
    p.on("message", on);
    p.once("exit", onExit);
  });
}

export interface Swarm {
  procs: ChildProcess[];
  /** Opens `count` sockets spread over the client processes; resolves when all have settled. */
  connect(
    url: string,
    token: string | undefined,
    count: number,
    concurrency: number,
    record?: boolean,
    label?: string,
    /** Channels each socket subscribes to before it counts as connected (its `message` events are then what is recorded and counted). */
    channels?: string[],
  ): Promise<{ connected: number; failed: number; times: number[] }>;
  /** Events received so far by the sockets of each label (connect's `label`), over every client process. */
  counts(): Promise<Record<string, number>>;
  /** Arrival times (epoch ms) of each event key, from every client process since the last call. */
  arrivals(): Promise<Map<string, number[]>>;
  /** Disconnects every socket; the client processes stay up (and warm) for the next connect. */
  drop(): Promise<void>;
  close(): Promise<void>;
}

export async function startSwarm(n: number): Promise<Swarm> {
  const procs = Array.from({ length: n }, () =>
    spawn(process.execPath, ["--import", "tsx", "test/bench/socket-swarm.ts"], {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      // Structured clone over IPC: a second of arrivals at 100,000 deliveries/s is one message.
      serialization: "advanced",
    }),
  );
  process.once("exit", () => procs.forEach((p) => p.kill("SIGKILL")));
  await Promise.all(procs.map((p) => message(p, "up", 20_000)));
  return {
    procs,
    async connect(url, token, count, concurrency, record = false, label, channels) {
      const per = procs.map((_, i) => Math.floor(count / n) + (i < count % n ? 1 : 0));
      const done = await Promise.all(
        procs.map((p, i) => {
          // 2 minutes, and 20 ms a socket beyond that: a loaded machine connects slowly.
          const d = message<{ connected: number; failed: number; times: number[] }>(p, "done", 120_000 + 20 * per[i]!);
          p.send({
            type: "go",
            url,
            token,
            count: per[i],
            concurrency,
            record,
            ...(label ? { label } : {}),
            ...(channels ? { channels } : {}),
          });
          return d;
        }),
      );
      return {
        connected: done.reduce((a, d) => a + d.connected, 0),
        failed: done.reduce((a, d) => a + d.failed, 0),
        times: done.flatMap((d) => d.times).sort((a, b) => a - b),
      };
    },
    async arrivals() {
      const all = new Map<string, number[]>();
      const parts = await Promise.all(
        procs.map((p) => {
          const m = message<{ byKey: Record<string, number[]> }>(p, "events", 60_000);
          p.send({ type: "report" });
          return m;
        }),
      );
      for (const { byKey } of parts)
        for (const [k, ts] of Object.entries(byKey)) {
          const list = all.get(k);
          if (list) list.push(...ts);
          else all.set(k, [...ts]);
        }
      return all;
    },
    async counts() {
      const parts = await Promise.all(
        procs.map((p) => {
          const m = message<{ counts: Record<string, number> }>(p, "counts", 60_000);
          p.send({ type: "count" });
          return m;
        }),
      );
      const all: Record<string, number> = {};
      for (const { counts } of parts) for (const [k, n] of Object.entries(counts)) all[k] = (all[k] ?? 0) + n;
      return all;
    },
    async drop() {
      await Promise.all(
        procs.map((p) => {
          const m = message(p, "dropped", 60_000);
          p.send({ type: "drop" });
          return m;
        }),
      );
    },
    async close() {
      await Promise.all(
        procs.map(
          (p) =>
            new Promise<void>((resolve) => {
              if (p.exitCode !== null || p.signalCode !== null) return resolve();
              const t = setTimeout(() => p.kill("SIGKILL"), 10_000);
              p.once("exit", () => {
                clearTimeout(t);
                resolve();
              });
              p.send({ type: "close" });
            }),
        ),
      );
    },
  };
}

/** `n` challenges owned by the token's app, made over HTTP on `url`; challenge i's answer is `answer-<i>`. */
export async function ownedChallenges(url: string, token: string, n: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, (_, j) =>
        http(url, "/challenge/new", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, question: `q${i + j}`, answer: `answer-${i + j}`, ttl: "3600" },
        }),
      ),
    );
    for (const r of batch) {
      if (r.status !== 201) throw new Error(`setup: create failed ${r.status} ${r.text}`);
      keys.push(r.json.key as string);
    }
  }
  return keys;
}

/**
 * The floor of the multi-node benches: three bare Socket.IO + @socket.io/redis-adapter processes
 * (baseline-recovery.ts with ADAPTER=redis) on the bench Redis, named floor A, B and C.
 */
export function startFloorNodes(redisUrl: string): Promise<ServerProcess[]> {
  return Promise.all(
    ["A", "B", "C"].map((n) =>
      startProcess({
        name: `floor ${n}`,
        entry: "test/bench/baseline-recovery.ts",
        env: { REDIS_URL: redisUrl, ADAPTER: "redis" },
      }),
    ),
  );
}
