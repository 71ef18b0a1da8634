// What a connection costs, in CPU of the node and of the client processes (socket.io-client), for
// Sigil (this checkout, and optionally another one: CONN_AB_OTHER=<directory of a Sigil checkout
// with node_modules>, e.g. main's before a change) beside bare Socket.IO (baseline-realtime.ts):
//   node --import tsx test/bench/connections-cpu.ts   (CONN_AB_N=3000 sockets per burst, CONN_AB_ROUNDS=6)
// One private Redis, one node of each, one pair of client processes kept warm for every burst; a
// warm-up burst of 1,000 on each node, then rounds of one burst per node, the order rotated each
// round. Prints every round and, per node, the median and the range of the CPU per connection
// (from /proc: on a shared machine rates move with the load; CPU time much less).
import { performance } from "node:perf_hooks";
import { loadavg } from "node:os";
import { sigilEnv, startProcess, type ServerProcess } from "../support/processes.js";
import { freePort } from "../support/ports.js";
import { TestRedis } from "../support/redis.js";
import { cpuSeconds } from "./lib/load.js";
import { appWithToken, num, sleep, startSwarm } from "./lib/sockets.js";

const N = num("CONN_AB_N", 3000);
const ROUNDS = num("CONN_AB_ROUNDS", 6);
const out = (l: string) => process.stdout.write(l + "\n");

interface Target {
  name: string;
  p: ServerProcess;
  token?: string;
  s: number[];
  c: number[];
  r: number[];
}

async function main() {
  const redis = await TestRedis.start();
  const procs: ServerProcess[] = [];
  try {
    const sig = async (name: string, root?: string) => {
      const port = await freePort();
      const p = await startProcess({
        name,
        port,
        env: sigilEnv(port, redis.url),
        ...(root
          ? { command: [process.execPath, "--import", "tsx", `${root}/src/main.ts`] }
          : { entry: "src/main.ts" }),
      });
      procs.push(p);
      return p;
    };
    const targets: Target[] = [];
    const { token } = appWithToken(sigilEnv(0, redis.url));
    targets.push({ name: "sigil", p: await sig("sigil"), token, s: [], c: [], r: [] });
    if (process.env.CONN_AB_OTHER)
      targets.push({
        name: "sigil-other",
        p: await sig("other", process.env.CONN_AB_OTHER),
        token,
        s: [],
        c: [],
        r: [],
      });
    const bare = await startProcess({
      name: "bare",
      entry: "test/bench/baseline-realtime.ts",
      env: { REDIS_URL: redis.url },
    });
    procs.push(bare);
    targets.push({ name: "bare", p: bare, s: [], c: [], r: [] });
    const swarm = await startSwarm(2);
    const clientCpu = () => swarm.procs.reduce((a, p) => a + (cpuSeconds(p.pid) ?? NaN), 0);
    out(
      `N=${N} rounds=${ROUNDS} load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
    // Warm-up: every server and the clients.
    for (const t of targets) {
      await swarm.connect(t.p.url, t.token, 1000, 250);
      await swarm.drop();
    }
    await sleep(1500);
    for (let round = 0; round < ROUNDS; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
      const line: string[] = [];
      for (const t of order) {
        const s0 = cpuSeconds(t.p.pid)!;
        const c0 = clientCpu();
        const t0 = performance.now();
        const r = await swarm.connect(t.p.url, t.token, N, 250);
        const wall = (performance.now() - t0) / 1000;
        const s1 = cpuSeconds(t.p.pid)!;
        const c1 = clientCpu();
        if (r.failed) out(`  ${t.name}: ${r.failed} failed`);
        t.s.push(((s1 - s0) * 1e6) / r.connected);
        t.c.push(((c1 - c0) * 1e6) / r.connected);
        t.r.push(r.connected / wall);
        line.push(`${t.name} srv ${t.s.at(-1)!.toFixed(0)} cli ${t.c.at(-1)!.toFixed(0)} ${t.r.at(-1)!.toFixed(0)}/s`);
        await swarm.drop();
        await sleep(1500);
      }
      out(`round ${round + 1}: ${line.join(" | ")}  (load ${loadavg()[0]!.toFixed(1)})`);
    }
    const med = (a: number[]) => {
      const s = [...a].sort((x, y) => x - y);
      return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
    };
    const f = (a: number[]) => `${med(a).toFixed(0)} [${Math.min(...a).toFixed(0)}–${Math.max(...a).toFixed(0)}]`;
    for (const t of targets)
      out(
        `${t.name.padEnd(12)} server µs/conn ${f(t.s)}  clients µs/conn ${f(t.c)}  total ${f(t.s.map((v, i) => v + t.c[i]!))}  rate ${f(t.r)}`,
      );
    await swarm.close();
  } finally {
    for (const p of procs.reverse()) await p.stop("SIGTERM");
    await redis.destroy();
  }
}
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
