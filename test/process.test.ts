// The process as an operator meets it: a newcomer's `npm start`, and a SIGTERM drain.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnNode } from "./support/processes.js";
import { challengeApi, http } from "./support/http.js";
import { waitFor } from "./support/wait.js";

/** The wildcard addresses the kernel has a listening TCP socket on at `port` (Linux /proc/net). */
/**
 * The node's start-up line, once it has reached this process: the node answers HTTP as soon as it
 * listens, and its line may still be in the pipe then (the log is written asynchronously).
 */
function startLine(node: { output(): string }): Promise<string> {
  return waitFor(
    "the start-up line",
    () =>
      node
        .output()
        .split("\n")
        .find((l) => l.includes('"msg":"sigil is listening')),
    { seen: () => node.output() },
  );
}

function wildcardsListening(port: number): string[] {
  const found: string[] = [];
  for (const [file, wildcard] of [
    ["/proc/net/tcp", "0.0.0.0"],
    ["/proc/net/tcp6", "[::]"],
  ] as const) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      const [addr, hexPort] = (local ?? "").split(":");
      if (state === "0A" && Number.parseInt(hexPort ?? "", 16) === port && /^0+$/.test(addr ?? ""))
        found.push(wildcard);
    }
  }
  return found;
}

describe("The process", function () {
  this.timeout(90_000);

  describe("One node, started as a default process is (no HOST)", () => {
    // Shared by the two tests that only look at a running node: a process start is ~2.5 s here.
    let node: Awaited<ReturnType<typeof spawnNode>>;
    before(async () => {
      node = await spawnNode();
    });
    after(async () => {
      if (!node) return;
      node.kill("SIGTERM");
      await node.exited;
    });

    it("When it starts without HOST, then its start-up line names the address it listens on (every interface) and the address it serves", async () => {
      const line = await startLine(node);
      const { msg, address, url } = JSON.parse(line!) as { msg: string; address: string; url: string };
      const bound = wildcardsListening(node.port);
      expect(bound, "the kernel's listening sockets on the port").to.have.length(1);
      expect(address).to.equal(`http://${bound[0]}:${node.port}`);
      expect(msg).to.equal(`sigil is listening on ${address} (every interface), serving http://localhost:${node.port}`);
      expect(url).to.equal(`http://127.0.0.1:${node.port}`); // reachable from this machine
      expect((await http(url, "/healthz")).status).to.equal(200);
    });

    it("When a running node's /metrics is scraped, then it has the process metrics, event-loop delay over the last window included", async () => {
      await http(node.url, "/metrics"); // starts a window
      await new Promise((r) => setTimeout(r, 300));
      const r = await http(node.url, "/metrics");
      expect(r.status).to.equal(200);
      for (const name of ["p50", "p99", "max"]) {
        const m = new RegExp(`^nodejs_eventloop_lag_${name}_seconds ([0-9.e-]+)$`, "m").exec(r.text);
        expect(m, `nodejs_eventloop_lag_${name}_seconds in:\n${r.text.slice(0, 2000)}`).to.not.equal(null);
        // The time between the 10 ms sampling timer's ticks: at least about 10 ms, never absurd.
        expect(Number(m![1])).to.be.within(0.005, 5);
      }
      expect(r.text).to.match(/^process_resident_memory_bytes \d+/m);
      expect(r.text).to.match(/^nodejs_heap_size_used_bytes \d+/m);
    });
  });

  it("When a newcomer runs `npm start` with no settings, then it builds, serves the API on the embedded store (its start-up line says where the data lives), and warns only that the secret is the one kept with the data", async () => {
    const node = await spawnNode({ command: ["npm", "start", "--silent"], readyTimeoutMs: 80_000 });
    try {
      const api = challengeApi(node.url);
      const key = await api.createKey("first run?", "yes");
      expect((await api.solve(key, "yes")).json).to.deep.equal({ correct: true });
      // The data folder (support/processes.ts gives each child a fresh DATA_DIR; alone, ./data).
      const started = await startLine(node);
      const warnings = node
        .output()
        .split("\n")
        .filter((l) => l.includes('"level":"warn"'));
      const { dataDir } = JSON.parse(started) as { dataDir: string };
      expect(JSON.parse(started)).to.include({ store: "embedded" });
      expect(dataDir).to.match(/^\//);
      expect(warnings.map((l) => (JSON.parse(l) as { msg: string }).msg)).to.deep.equal([
        `SECRET is not set: using the one kept with the data (${dataDir}/secret); back it up with the data, and set SECRET to run more than this one node`,
      ]);
    } finally {
      node.kill("SIGTERM");
      await node.exited;
    }
  });

  it("When SIGTERM arrives mid-request, then that request still succeeds, new connections are refused, and it exits 0 within 10 s", async () => {
    const node = await spawnNode();
    const body = JSON.stringify({ question: "in flight?", answer: "yes" });
    const half = Math.floor(body.length / 2);
    const sock = connect(node.port, "127.0.0.1");
    let response = "";
    // The node's "100 Continue" (the request asks for it) says it has read the request's head.
    const continued = new Promise<void>((r) =>
      sock.on("data", (d) => {
        response += d.toString();
        if (response.startsWith("HTTP/1.1 100 ")) r();
      }),
    );
    const ended = new Promise((r) => sock.on("close", r));
    await new Promise((r) => sock.once("connect", r));
    sock.write(
      `POST /challenge/new HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n${body.slice(0, half)}`,
    );
    await continued;
    response = "";
    const t0 = Date.now();
    node.kill("SIGTERM");

    // New connections are refused once the node has closed its listener: within a second.
    const refusedNow = () =>
      http(node.url, "/healthz").then(
        () => false,
        () => true,
      );
    const until = Date.now() + 1000;
    let refused = await refusedNow();
    while (!refused && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
      refused = await refusedNow();
    }
    expect(refused, "no new connections while draining").to.equal(true);

    sock.write(body.slice(half));
    await ended;
    expect(response).to.match(/^HTTP\/1\.1 201 /);
    expect(response).to.match(/"key":"[0-9a-f-]{36}"/);
    expect(await node.exited).to.equal(0);
    expect(Date.now() - t0).to.be.lessThan(10_000);
    expect(node.output(), "its last log line is written before it exits").to.include('"msg":"stopped"');
  });

  describe("When its stdout goes wrong and SIGTERM arrives", () => {
    const SHUTDOWN_TIMEOUT = 1; // the least the setting takes: the second test waits it out
    // From the signal to the exit: SHUTDOWN_TIMEOUT, plus a loaded machine's scheduling.
    const ALLOWED_MS = SHUTDOWN_TIMEOUT * 1000 + 750;

    /**
     * A node whose stdout is a pipe (a FIFO) that is open for reading but never read, filled
     * several times over (64 KiB): the node's log writes are stuck. `reader` closes the reading end.
     */
    async function nodeWithStuckStdout() {
      const dir = mkdtempSync(join(tmpdir(), "sigil-stdout-"));
      const fifo = join(dir, "stdout");
      execFileSync("mkfifo", [fifo]);
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writer = openSync(fifo, constants.O_WRONLY);
      let open = true;
      const closeReader = () => {
        if (open) closeSync(reader);
        open = false;
      };
      try {
        const node = await spawnNode({ env: { SHUTDOWN_TIMEOUT: String(SHUTDOWN_TIMEOUT) }, stdout: writer });
        // Each request's log line carries its path.
        const long = `/${"x".repeat(8000)}`;
        for (let i = 0; i < 40; i++) expect((await http(node.url, long)).status).to.equal(404);
        return { node, closeReader, cleanup: () => (closeReader(), rmSync(dir, { recursive: true, force: true })) };
      } catch (err) {
        closeReader();
        rmSync(dir, { recursive: true, force: true });
        throw err;
      } finally {
        closeSync(writer); // the child has its own
      }
    }

    it("then, when the reader goes away meanwhile (an EPIPE, as after `| head -3`), it exits 0 within SHUTDOWN_TIMEOUT without an error", async () => {
      const { node, closeReader, cleanup } = await nodeWithStuckStdout();
      try {
        const t0 = Date.now();
        node.kill("SIGTERM");
        setTimeout(closeReader, 300); // while it drains or exits: its pending log writes fail with EPIPE
        const code = await node.stop("SIGTERM", ALLOWED_MS + 5000);
        const ms = Date.now() - t0;
        expect(code, `exit (SIGKILL: still running ${ALLOWED_MS + 5000} ms after SIGTERM)`).to.equal(0);
        expect(ms).to.be.below(ALLOWED_MS);
        expect(node.output(), "stderr").to.equal("");
      } finally {
        cleanup();
      }
    });

    it("then, when nobody reads it any more, it exits 0 within SHUTDOWN_TIMEOUT", async () => {
      const { node, cleanup } = await nodeWithStuckStdout();
      try {
        const t0 = Date.now();
        const code = await node.stop("SIGTERM", ALLOWED_MS + 5000);
        const ms = Date.now() - t0;
        expect(code, `exit (SIGKILL: still running ${ALLOWED_MS + 5000} ms after SIGTERM)`).to.equal(0);
        expect(ms).to.be.below(ALLOWED_MS);
        expect(node.output(), "stderr").to.equal("");
      } finally {
        cleanup();
      }
    });
  });
});
