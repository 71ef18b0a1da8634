// npm run bench — runs every benchmark module (or those named in BENCH_ONLY), each in a bench
// process with a private redis-server of its own, and prints one table: Sigil beside its
// baseline, measured in this run.
// Settings (env): BENCH_SECONDS (10) per measurement, BENCH_WARMUP (3) seconds of warm-up before
// each, BENCH_ROUNDS (2) alternated rounds per side (best kept), BENCH_ENDPOINTS (substrings of
// benchmark names, e.g. "solve"),
// BENCH_CONNECTIONS (50), BENCH_ONLY (comma-separated module names), BENCH_PROFILE (a directory:
// the Sigil processes write --cpu-prof profiles there), BENCH_MARKDOWN=1 (also a Markdown table).
// Module settings: signin and oidc — BENCH_TOKEN_CODES (2000 codes traded per round and side); realtime —
// BENCH_SOLVE_RATE (200 solves/s), BENCH_SOCKETS (10000), BENCH_SOCKET_CLIENTS (2 client
// processes), BENCH_SOCKET_CONCURRENCY (250 handshakes in flight per client process); recovery —
// BENCH_SOLVE_RATE, BENCH_SOCKETS, BENCH_KILL_SECONDS (4 s of load around the SIGKILL), BENCH_KILL_CLIENTS (20); fanout —
// BENCH_FANOUT_SOCKETS (1500, a third on each of three nodes; a comma-separated list measures each
// size), BENCH_FANOUT_RATE (5 events/s); channels — BENCH_CHANNELS_LATENCY_SUBSCRIBERS (10),
// BENCH_CHANNELS_LATENCY_RATE (20 messages/s), BENCH_CHANNELS_SUBSCRIBERS (1000), BENCH_CHANNELS_MESSAGES
// (500), BENCH_CHANNELS_BATCH (10), BENCH_CHANNELS_RATE (100 requests/s), BENCH_CHANNELS_MEMORY_SOCKETS
// (10000), BENCH_CHANNELS_PER_SOCKET (10); stores — BENCH_TOKEN_CODES (the LMDB, in-process and Redis
// stores side by side, then 100,000 accounts); search — BENCH_SEARCH_USERS (100,000 users); audit — BENCH_TOKEN_CODES. Not in the default run: idle (`npm run bench:idle`) —
// BENCH_IDLE_SOCKETS (45000 over three nodes), BENCH_IDLE_PER_CLIENT (15000 sockets per client process).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "../support/processes.js";
import { hasRedisServer, TestRedis } from "../support/redis.js";
import { challengesBench } from "./challenges.js";
import { realtimeBench } from "./realtime.js";
import { fanoutBench } from "./fanout.js";
import { idleBench } from "./idle.js";
import { recoveryBench } from "./recovery.js";
import { oidcBench, oidcEs256Bench, signinBench } from "./signin.js";
import { clientCredentialsBench } from "./client-credentials.js";
import { ownedBench } from "./owned.js";
import { storesBench } from "./stores.js";
import { searchBench } from "./search.js";
import { auditBench } from "./audit.js";
import { channelsBench } from "./channels.js";
import type { BenchSettings } from "./lib/load.js";
import type { BenchModule } from "./lib/module.js";
import { failure, formatMarkdown, formatTable, type Row } from "./lib/report.js";

const MODULES: BenchModule[] = [
  challengesBench,
  ownedBench,
  signinBench,
  oidcBench,
  oidcEs256Bench,
  clientCredentialsBench,
  realtimeBench,
  recoveryBench,
  fanoutBench,
  channelsBench,
  storesBench,
  searchBench,
  auditBench,
];
/** Modules that take minutes: run only when BENCH_ONLY names them (`npm run bench:idle`). */
const ON_REQUEST: BenchModule[] = [idleBench];

function num(name: string, dflt: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`);
  return n;
}

async function main(): Promise<void> {
  const settings: BenchSettings = {
    seconds: num("BENCH_SECONDS", 10),
    rounds: num("BENCH_ROUNDS", 2),
    endpoints: (process.env.BENCH_ENDPOINTS ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    warmupSeconds: num("BENCH_WARMUP", 3),
    connections: num("BENCH_CONNECTIONS", 50),
    only: (process.env.BENCH_ONLY ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    profileDir: process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : undefined,
  };
  if (!hasRedisServer()) throw new Error("redis-server is not installed (apt-get install -y redis-server)");
  const modules =
    settings.only.length === 0 ? MODULES : [...MODULES, ...ON_REQUEST].filter((m) => settings.only.includes(m.name));
  const log = (l: string) => process.stderr.write(l + "\n");
  log(
    `sigil bench: ${settings.rounds} round(s) of ${settings.seconds}s per side after ${settings.warmupSeconds}s warm-up, ` +
      `${settings.connections} connections; node ${process.version}, ${cpus().length} cpus, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
  const rows: Row[] = [];
  if (process.env.BENCH_ROWS_FILE) {
    // A child: run the one module named in BENCH_ONLY and hand the rows back as JSON.
    rows.push(...(await runModules(modules, settings, log)));
    writeFileSync(process.env.BENCH_ROWS_FILE, JSON.stringify(rows));
    return;
  }
  // Sigil runs as `npm start` runs it: dist/, built now from this tree (lib/sockets.ts).
  log("sigil bench: npm run build");
  const built = spawnSync("npm", ["run", "build"], { cwd: ROOT, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`npm run build failed:\n${built.stdout}${built.stderr}`);
  // Each module runs in a bench process (and on a Redis) of its own: a load generator that has
  // just driven another module measures differently (seen: GET /auth/user at 64 µs CPU per request
  // after the challenge module, 46 µs alone).
  const dir = mkdtempSync(join(tmpdir(), "sigil-bench-"));
  try {
    for (const m of modules) rows.push(...(await runInChild(m.name, join(dir, `${m.name}.json`))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write("\n" + formatTable(rows) + "\n");
  if (process.env.BENCH_MARKDOWN) process.stdout.write("\n" + formatMarkdown(rows) + "\n");
  log(
    `load after the run: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} (figures are only comparable within one run)`,
  );
  const failed = rows.filter((r) => failure(r));
  if (failed.length)
    throw new Error(`rows that measured something else: ${failed.map((r) => `${r.name} (${failure(r)})`).join("; ")}`);
}

async function runModules(modules: BenchModule[], settings: BenchSettings, log: (l: string) => void): Promise<Row[]> {
  const redis = await TestRedis.start();
  const rows: Row[] = [];
  try {
    for (const m of modules) {
      log(`${m.name}: ${m.description}`);
      rows.push(...(await m.run({ settings, redis, log })));
    }
  } finally {
    await redis.destroy();
  }
  return rows;
}

function runInChild(name: string, rowsFile: string): Promise<Row[]> {
  return new Promise((resolveRows, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url)], {
      env: { ...process.env, BENCH_ONLY: name, BENCH_ROWS_FILE: rowsFile, BENCH_MARKDOWN: "" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`bench module ${name} failed (exit ${code})`));
      resolveRows(JSON.parse(readFileSync(rowsFile, "utf8")) as Row[]);
    });
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
