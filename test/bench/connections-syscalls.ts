// System calls a node makes per connection (strace -c -f on the node during a burst of N sockets,
// after a warm-up of 500), Sigil or bare Socket.IO (TARGET=bare); ROOT_OTHER=<a Sigil checkout>
// runs that one's Sigil instead of this one's. Needs strace.
//   node --import tsx test/bench/connections-syscalls.ts   (N=1000)
import { spawn } from "node:child_process";
import { sigilEnv, startProcess, type ServerProcess } from "../support/processes.js";
import { freePort } from "../support/ports.js";
import { TestRedis } from "../support/redis.js";
import { appWithToken, num, sleep, startSwarm } from "./lib/sockets.js";

const N = num("N", 1000);
async function main() {
  const redis = await TestRedis.start();
  const procs: ServerProcess[] = [];
  try {
    const port = await freePort();
    const root = process.env.ROOT_OTHER;
    const target =
      process.env.TARGET === "bare"
        ? await startProcess({ name: "bare", entry: "test/bench/baseline-realtime.ts", env: { REDIS_URL: redis.url } })
        : await startProcess({
            name: "sigil",
            port,
            env: sigilEnv(port, redis.url),
            ...(root
              ? { command: [process.execPath, "--import", "tsx", `${root}/src/main.ts`] }
              : { entry: "src/main.ts" }),
          });
    procs.push(target);
    const token = process.env.TARGET === "bare" ? undefined : appWithToken(sigilEnv(0, redis.url)).token;
    const swarm = await startSwarm(2);
    await swarm.connect(target.url, token, 500, 100);
    await swarm.drop();
    await sleep(1000);
    const st = spawn("strace", ["-f", "-c", "-p", String(target.pid)], { stdio: ["ignore", "inherit", "pipe"] });
    let out = "";
    st.stderr.on("data", (d) => (out += d));
    await sleep(1000);
    await swarm.connect(target.url, token, N, 100);
    await sleep(500);
    st.kill("SIGINT");
    await new Promise((r) => st.once("exit", r));
    for (const l of out.split("\n")) {
      const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$/.exec(l);
      if (m && Number(m[1]) >= N / 10)
        console.log(`${m[2]!.padEnd(16)} ${(Number(m[1]) / N).toFixed(2)} per connection`);
    }
    await swarm.close();
  } finally {
    for (const p of procs) await p.stop("SIGTERM");
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
