// Mocha's root hooks (a root hook plugin, loaded by .mocharc.json's "require"): hooks for every
// test of every file. They live here, not at the top level of a helper module, because under
// --parallel a worker imports a helper once and runs several files: a top-level hook would be
// registered for the first of them only.
import { appendFileSync } from "node:fs";
import { closeSharedChromium } from "./browser.js";
import { closeChannelClients } from "./channel.js";

// TEST_TIMES=<file>: one line per test file, "<ms>\t<file>" (its wall time in its worker, hooks
// included), to find the slow files (docs/testing.md).
const timesFile = process.env.TEST_TIMES;
let fileStart = 0;

export const mochaHooks = {
  beforeAll(): void {
    fileStart = Date.now();
  },
  async afterAll(this: Mocha.Context): Promise<void> {
    // In a worker (mocha --parallel), after each file; without workers, once at the end. A worker
    // keeps its browser for its next file (support/browser.ts); a run without workers closes it.
    if (process.env.MOCHA_WORKER_ID === undefined) await closeSharedChromium();
    if (!timesFile) return;
    const root = this.test?.parent;
    const files = new Set(root?.suites.map((s) => s.file).filter(Boolean));
    appendFileSync(timesFile, `${Date.now() - fileStart}\t${[...files].join(" ")}\n`);
  },
  afterEach(): void {
    closeChannelClients();
  },
};
