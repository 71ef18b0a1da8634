// Loaded into a bench server (`node --expose-gc --import ./test/bench/memory-agent.mjs …`, plain JS
// so that it loads before tsx), for test/bench/channels.ts: on SIGUSR2, collect garbage (three
// times) and write process.memoryUsage() to MEMORY_DIR/<pid>-<n>.json. No heap snapshot: cheap
// with 10,000 sockets.
import { writeFileSync, renameSync } from "node:fs";
import { join } from "node:path";

const dir = process.env.MEMORY_DIR ?? ".";
let n = 0;
process.on("SIGUSR2", () => {
  for (let i = 0; i < 3; i++) globalThis.gc?.();
  const file = join(dir, `${process.pid}-${n++}.json`);
  writeFileSync(file + ".tmp", JSON.stringify(process.memoryUsage()));
  renameSync(file + ".tmp", file);
});
