// The process's log sink (src/log.ts stdoutLog): access log lines, one per request, are written in
// batches rather than one write(2) each; every other line (start-up, warnings, errors) is written
// at once, after the access lines before it, so the log keeps its order and nothing an operator
// watches for waits.
import { expect } from "chai";
import fs, { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, stdoutLog, type StdoutLog } from "../src/log.js";
import { waitFor } from "./support/wait.js";

describe("The log sink", () => {
  let dir: string, file: string, fd: number, sink: StdoutLog;
  let writes = 0;
  const realWrite = fs.write;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "sigil-log-"));
    file = join(dir, "out.log");
    fd = openSync(file, "w");
    writes = 0;
    // Counts the writes the sink makes to this file (sonic-boom calls fs.write).
    (fs as { write: unknown }).write = (...args: unknown[]) => {
      if (args[0] === fd) writes++;
      return (realWrite as (...a: unknown[]) => unknown)(...args);
    };
    sink = stdoutLog(fd);
  });
  afterEach(async () => {
    (fs as { write: unknown }).write = realWrite;
    await sink.close(1000);
    try {
      closeSync(fd);
    } catch {
      // closed by the sink
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const lines = () => readFileSync(file, "utf8").split("\n").filter(Boolean);
  const tick = () => new Promise((r) => setImmediate(r));

  it("When 200 requests are logged one after another, then they reach the log in a few writes, all of them within a second", async () => {
    const log = createLogger("info", sink.destination).child({ reqId: "r" });
    for (let i = 0; i < 200; i++) {
      log.info({ method: "GET", path: "/healthz", status: 200, ms: 0.1, i }, "request");
      await tick();
    }
    await waitFor("200 access lines in the file", () => lines().length === 200, {
      ms: 1000,
      seen: () => String(lines().length),
    });
    expect(writes, "writes for 200 lines").to.be.at.most(20);
    expect(lines().map((l) => JSON.parse(l).i)).to.deep.equal([...Array(200).keys()]);
  });

  it("When a warning follows access lines, then it is written at once, after them", async () => {
    const log = createLogger("info", sink.destination);
    log.info({ path: "/a" }, "request");
    log.info({ path: "/b" }, "request");
    log.warn("Redis is not reachable yet");
    await tick();
    await waitFor("the warning in the file", () => lines().length === 3, { ms: 100, seen: () => lines().join(" | ") });
    expect(lines().map((l) => JSON.parse(l).msg)).to.deep.equal(["request", "request", "Redis is not reachable yet"]);
  });

  it("When the process closes the log, then the access lines still waiting are written", async () => {
    const log = createLogger("info", sink.destination);
    log.info({ path: "/last" }, "request");
    await sink.close(1000);
    expect(lines().map((l) => JSON.parse(l).path)).to.deep.equal(["/last"]);
  });
});
