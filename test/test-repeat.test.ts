// `npm run test:repeat -- N [files]` as a developer runs it: N runs of mocha, then every test that
// failed at least once, with its message and in how many of the runs (on a fixture whose tests
// fail in known runs: test/fixtures/repeat.fixture.ts).
import { expect } from "chai";
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { ROOT } from "./support/processes.js";

/** Runs the script to its end (killed after ms, saying so); its exit code and output. */
function testRepeat(args: string[], ms: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    // The client bundle is built already: the suite's own pretest did it.
    const child = spawn("npm", ["run", "--silent", "test:repeat", "--", ...args], {
      cwd: ROOT,
      env: { ...process.env, TEST_REPEAT_BUILD: "off" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      process.kill(-child.pid!, "SIGKILL");
      reject(new Error(`npm run test:repeat -- ${args.join(" ")} did not end within ${ms} ms; it said:\n${out}`));
    }, ms);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe("npm run test:repeat", function () {
  this.timeout(90_000);

  it("When tests fail in some of N runs, then it ends with each of them, in how many runs it failed and its message, and exits 1", async () => {
    const { code, out } = await testRepeat(["3", "--no-parallel", "test/fixtures/repeat.fixture.ts"], 80_000);
    const summaryPath = /^Summary: (.+)$/m.exec(out)?.[1];
    try {
      expect(code, out).to.equal(1);
      expect(out).to.match(/^run 1\/3: 2 passing, 1 failing, 0 pending/m);
      const listed = out.slice(out.indexOf("Tests that failed at least once (2):"));
      expect(listed, out).to.include(
        "failed in 2 of 3 run(s) (1, 3): test/fixtures/repeat.fixture.ts › test:repeat fixture fails in odd-numbered runs\n" +
          "      2× AssertionError: an odd-numbered run: expected 1 to equal +0",
      );
      expect(listed).to.include(
        'failed in 1 of 3 run(s) (2): test/fixtures/repeat.fixture.ts › test:repeat fixture with a hook "before all" hook for "runs after its hook"\n' +
          "      1× Error: the hook gave up in run 2",
      );
      expect(listed).to.not.include("passes in every run");
      const summary = JSON.parse(readFileSync(summaryPath!, "utf8"));
      expect(summary.unfinished).to.deep.equal([]);
      expect(summary.failed.map((f: { failedRuns: number[] }) => f.failedRuns)).to.deep.equal([[1, 3], [2]]);
    } finally {
      if (summaryPath) rmSync(dirname(summaryPath), { recursive: true, force: true });
    }
  });

  it("When N is not a positive whole number, then it says how to call it and runs nothing", async () => {
    const { code, out } = await testRepeat(["0"], 20_000);
    expect(code).to.equal(2);
    expect(out).to.include("usage: npm run test:repeat -- N");
  });
});
