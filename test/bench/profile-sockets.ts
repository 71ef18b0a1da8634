// What one idle socket costs, and where a handshake's CPU goes, on Sigil and on bare Socket.IO:
//   node --import tsx test/bench/profile-sockets.ts            (PROFILE_SOCKETS=2000, PROFILE_DIR=a temp dir)
// Starts a private Redis, one Sigil node on it (an app and a CUSTOM TOKEN made with the CLI) and the
// bare Socket.IO floor (baseline-realtime.ts), each with heap-agent.mjs loaded. For each server: a
// heap snapshot with no socket, the CPU profiler on, PROFILE_SOCKETS websocket handshakes from two
// socket-swarm.ts processes, the profiler off, 3 s idle, a heap snapshot. Prints per socket: RSS,
// heap and external memory, and the heap's growth by kind of object (constructor name); per
// connection: CPU self time by package and the largest functions (inclusive and self).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sigilEnv, startProcess, ROOT, type ServerProcess } from "../support/processes.js";
import { TestRedis } from "../support/redis.js";
import { summariseCpu } from "./lib/cpuprofile.js";
import { diff, summarise } from "./lib/heap.js";
import { appWithToken, num, rss, sleep, startBenchSigil, startSwarm } from "./lib/sockets.js";

const N = num("PROFILE_SOCKETS", 2000);
const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), "sigil-profile-"));
const keep = !!process.env.PROFILE_DIR;
const agentArgs = ["--expose-gc", "--import", join(ROOT, "test/bench/heap-agent.mjs")];
const out = (l: string) => process.stdout.write(l + "\n");

let seen = 0;
/** Sends a signal to the agent and waits for the <pid>-<n>.json it writes. */
async function ask(p: ServerProcess, signal: NodeJS.Signals): Promise<{ file: string; memory?: NodeJS.MemoryUsage }> {
  const before = seen;
  p.kill(signal);
  const until = Date.now() + 120_000;
  for (;;) {
    for (let n = before; n < before + 4; n++) {
      const f = join(dir, `${p.pid}-${n}.json`);
      if (existsSync(f)) {
        seen = n + 1;
        await sleep(50);
        return JSON.parse(readFileSync(f, "utf8"));
      }
    }
    if (Date.now() > until) throw new Error(`${p.name}: no answer to ${signal}`);
    await sleep(100);
  }
}

async function profile(p: ServerProcess, token: string | undefined): Promise<void> {
  seen = 0;
  const swarm = await startSwarm(2);
  try {
    await sleep(1000);
    const s0 = await ask(p, "SIGUSR2");
    const rss0 = rss(p.pid);
    p.kill("SIGHUP");
    await sleep(300);
    const t0 = performance.now();
    const r = await swarm.connect(p.url, token, N, 250);
    const wall = (performance.now() - t0) / 1000;
    const cpu = await ask(p, "SIGHUP");
    await sleep(3000);
    const rss1 = rss(p.pid);
    const s1 = await ask(p, "SIGUSR2");
    const m0 = s0.memory!;
    const m1 = s1.memory!;
    const per = (a: number, b: number) => ((b - a) / r.connected / 1024).toFixed(2);
    out(`\n== ${p.name}: ${r.connected} sockets (${r.failed} failed), ${(r.connected / wall).toFixed(0)}/s`);
    out(
      `per socket, KiB: RSS ${per(rss0, rss1)}; after GC: heapUsed ${per(m0.heapUsed, m1.heapUsed)}, ` +
        `external ${per(m0.external, m1.external)} (arrayBuffers ${per(m0.arrayBuffers, m1.arrayBuffers)})`,
    );
    const h0 = summarise(s0.file);
    const h1 = summarise(s1.file);
    out(`heap snapshot growth per socket: ${((h1.total - h0.total) / r.connected).toFixed(0)} B`);
    for (const [kind, bytes, count] of diff(h0, h1, r.connected).slice(0, 30)) {
      if (Math.abs(bytes) < 8) break;
      out(`  ${bytes.toFixed(0).padStart(6)} B  ${count.toFixed(2).padStart(6)} ×  ${kind}`);
    }
    const c = summariseCpu(cpu.file);
    const us = (v: number) => (v / r.connected).toFixed(1).padStart(7);
    out(`CPU per connection (profile): busy ${us(c.busy)} µs; self time by place:`);
    for (const [w, v] of c.byPlace.slice(0, 16)) out(`  ${us(v)} µs  ${w}`);
    out(`largest inclusive (µs per connection):`);
    for (const [w, v] of c.inclusive.slice(0, 40)) out(`  ${us(v)} µs  ${w}`);
    out(`largest self (µs per connection):`);
    for (const [w, v] of c.byFunction.slice(0, 25)) out(`  ${us(v)} µs  ${w}`);
  } finally {
    await swarm.close();
  }
}

async function main(): Promise<void> {
  const redis = await TestRedis.start();
  const procs: ServerProcess[] = [];
  try {
    const sigil = await startBenchSigil(redis.url, { name: "Sigil", nodeArgs: agentArgs, env: { HEAP_DIR: dir } });
    procs.push(sigil);
    const floor = await startProcess({
      name: "bare Socket.IO",
      entry: "test/bench/baseline-realtime.ts",
      nodeArgs: agentArgs,
      env: { REDIS_URL: redis.url, HEAP_DIR: dir },
    });
    procs.push(floor);
    const { token } = appWithToken(sigilEnv(0, redis.url));
    out(`profile of ${N} idle sockets; files in ${dir}`);
    await profile(sigil, token);
    await profile(floor, undefined);
  } finally {
    for (const p of procs.reverse()) await p.stop("SIGTERM");
    await redis.destroy();
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`profile failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
