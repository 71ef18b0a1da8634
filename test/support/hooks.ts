// Mocha's root hooks (a root hook plugin, loaded by .mocharc.json's "require"): hooks for every
// test of every file. They live here, not at the top level of a helper module, because under
// --parallel a worker imports a helper once and runs several files: a top-level hook would be
// registered for the first of them only.
import { appendFileSync } from "node:fs";
import { closeSharedChromium } from "./browser.js";
import { closeChannelClients } from "./channel.js";

// TEST_TIMES=<file>: one line per test file, "<ms>\t<file>\t<started>\t<cpu ms>\t<pid>" (its wall
// time in its worker, hooks included; when it started, epoch ms; the worker's own CPU time in it,
// children such as redis-server, Chromium or nodes in processes not counted), to find the slow
// files and the run's tail (docs/testing.md).
const timesFile = process.env.TEST_TIMES;
let fileStart = 0;
let fileCpu = process.cpuUsage();

// An unhandled rejection ends a mocha worker ("Workerpool Worker terminated Unexpectedly") and
// names nothing: say which test ran (or ran last) and what was rejected, then fail as before.
// Seen once (issue #27): ioredis's "Connection is closed." in a worker running the groups store
// contract, under two busy loops.
let running = "no test yet";
process.on("unhandledRejection", (reason: unknown) => {
  const what = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
  process.stderr.write(`\nunhandled rejection in worker ${process.env.MOCHA_WORKER_ID ?? "-"} (${running}): ${what}\n`);
  throw reason;
});

export const mochaHooks = {
  beforeAll(): void {
    fileStart = Date.now();
    fileCpu = process.cpuUsage();
  },
  beforeEach(this: Mocha.Context): void {
    running = `during "${this.currentTest?.fullTitle() ?? "?"}" in ${this.currentTest?.file ?? "?"}`;
  },
  async afterAll(this: Mocha.Context): Promise<void> {
    // In a worker (mocha --parallel), after each file; without workers, once at the end. A worker
    // keeps its browser for its next file (support/browser.ts); a run without workers closes it.
    if (process.env.MOCHA_WORKER_ID === undefined) await closeSharedChromium();
    if (!timesFile) return;
    const root = this.test?.parent;
    const files = new Set(root?.suites.map((s) => s.file).filter(Boolean));
    const cpu = process.cpuUsage(fileCpu);
    const worker = process.pid;
    const line = [
      Date.now() - fileStart,
      [...files].join(" "),
      fileStart,
      Math.round((cpu.user + cpu.system) / 1000),
      worker,
    ];
    appendFileSync(timesFile, `${line.join("\t")}\n`);
  },
  afterEach(this: Mocha.Context): void {
    closeChannelClients();
    running = `after "${this.currentTest?.fullTitle() ?? "?"}" in ${this.currentTest?.file ?? "?"}`;
  },
};
