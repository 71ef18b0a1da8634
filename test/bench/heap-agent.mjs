// Loaded into a bench server (`node --expose-gc --import ./test/bench/heap-agent.mjs …`, plain JS so
// that it loads before tsx), for test/bench/profile-sockets.ts:
// - SIGUSR2: collect garbage, write a heap snapshot into HEAP_DIR, then <pid>-<n>.json with
//   process.memoryUsage() and the snapshot's path (the script waits for that file);
// - SIGHUP: start the CPU profiler (200 µs sampling), and at the next SIGHUP stop it and write
//   <pid>-<n>.cpuprofile, then <pid>-<n>.json naming it.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";

const dir = process.env.HEAP_DIR ?? ".";
let n = 0;
const done = (label, extra) => writeFileSync(join(dir, `${label}.json`), JSON.stringify(extra));

process.on("SIGUSR2", () => {
  for (let i = 0; i < 3; i++) globalThis.gc?.();
  const label = `${process.pid}-${n++}`;
  const file = writeHeapSnapshot(join(dir, `${label}.heapsnapshot`));
  done(label, { file, memory: process.memoryUsage() });
});

let session;
process.on("SIGHUP", () => {
  if (!session) {
    session = new Session();
    session.connect();
    session.post("Profiler.enable", () =>
      session.post("Profiler.setSamplingInterval", { interval: 200 }, () => session.post("Profiler.start")),
    );
    return;
  }
  const s = session;
  session = undefined;
  s.post("Profiler.stop", (err, res) => {
    const label = `${process.pid}-${n++}`;
    const file = join(dir, `${label}.cpuprofile`);
    if (!err) writeFileSync(file, JSON.stringify(res.profile));
    s.disconnect();
    done(label, { file, error: err ? String(err) : undefined });
  });
});
