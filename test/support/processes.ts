// Servers as child processes (start-up, signals, crashes, benchmarks, fault tests): one node
// process (the build or `--import tsx <entry>`, or any command) per server, so that one pid owns it, on a free
// loopback port, ready once it answers HTTP, stopped by pid, killed if the test process exits.
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { TEST_SECRET } from "./nodes.js";
import { freePort } from "./ports.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The newest modification time of a file under `dir` (0 when empty), src/pages-js aside: it is
 * bundled into dist/browser/, which a node serves whichever way it runs.
 */
function newestIn(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory() && path === join(ROOT, "src/pages-js")) continue;
    if (e.isDirectory()) newest = Math.max(newest, newestIn(path));
    else if (e.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

let builtFresh: boolean | undefined;

/**
 * Whether dist/ was built from src/ as it is: the build's record (dist/.tsbuildinfo, written by
 * `tsc -b` whenever it emits) is newer than every file under src/ it compiles. `npm test` builds first
 * (pretest), so there it is; after an edit without a build it is not. Decided once per process.
 */
export function builtIsFresh(): boolean {
  if (builtFresh === undefined) {
    const record = join(ROOT, "dist/.tsbuildinfo");
    builtFresh =
      existsSync(record) &&
      existsSync(join(ROOT, "dist/main.js")) &&
      statSync(record).mtimeMs >= newestIn(join(ROOT, "src"));
  }
  return builtFresh;
}

/**
 * node's arguments to run a server as a test node in a child process: dist/main.js, as `npm
 * start` runs it, when the build is fresh (builtIsFresh: tsx's transform of the sources cost each
 * start about 0.8 s of CPU more, ~30 starts a run); else src/main.ts through tsx, so that an edit
 * not yet built is what runs, never a stale build.
 */
export function mainArgs(): string[] {
  return builtIsFresh() ? ["dist/main.js"] : ["--import", "tsx", "src/main.ts"];
}

export interface ServerProcess {
  name: string;
  url: string;
  port: number;
  pid: number;
  proc: ChildProcess;
  /** stdout (unless given another one) and stderr, the last 20,000 characters, for assertions and diagnosis. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
  /** Sends a signal and waits for the exit (SIGKILL after graceMs); resolves as `exited`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | string>;
}

/** GET url until it answers (any status) or timeoutMs passes. */
export async function waitHttp(url: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((res) => {
      const req = request(url, { agent: false, timeout: 1000 }, (r) => {
        r.resume();
        r.on("end", () => res(true));
      });
      req.on("error", () => res(false));
      req.on("timeout", () => req.destroy());
      req.end();
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of live) killGroup(c, "SIGKILL");
});

/**
 * Signals the child's whole process group (it is started detached, as its group's leader), so that
 * what it started goes too: `npm start` runs the build and then node under npm.
 */
function killGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-proc.pid!, signal); // spawn succeeded, so it has a pid
  } catch {
    proc.kill(signal); // the group is gone already
  }
}

export interface ProcessOptions {
  name?: string;
  /**
   * Entry file relative to the project root, run as `node [nodeArgs] --import tsx <entry>`; without
   * one (and without `command`), the server as mainArgs() says (the build when it is fresh).
   */
  entry?: string;
  /** Or any command (e.g. ["npm", "start"]). */
  command?: string[];
  nodeArgs?: string[];
  /** A free one when not given; passed as PORT. */
  port?: number;
  /** The whole environment besides PATH, HOME and PORT: nothing else leaks in from the tests. */
  env?: Record<string, string>;
  /** Path polled until the server answers. */
  readyPath?: string;
  readyTimeoutMs?: number;
  /** A file descriptor (e.g. a pipe's write end) for the child's stdout instead of a pipe read here. */
  stdout?: number;
}

export async function startProcess(opts: ProcessOptions): Promise<ServerProcess> {
  if (opts.port !== undefined) return startOn(opts.port, opts);
  // A port that was free a moment ago; when another process (a test file running beside this
  // one) bound it first, the child exits with EADDRINUSE: then another port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(await freePort(), opts);
    } catch (err) {
      if (attempt >= 5 || !/EADDRINUSE/.test(String(err))) throw err;
    }
  }
}

async function startOn(port: number, opts: ProcessOptions): Promise<ServerProcess> {
  const [cmd, ...args] = opts.command ?? [
    process.execPath,
    ...(opts.nodeArgs ?? []),
    ...(opts.entry === undefined ? mainArgs() : ["--import", "tsx", opts.entry]),
  ];
  // Without a store of its own, a child keeps its data in a fresh folder, removed once it exits (not
  // in the project's ./data, which every test process would share).
  const tempData =
    opts.env?.DATA_DIR === undefined && opts.env?.REDIS_URL === undefined
      ? mkdtempSync(join(tmpdir(), "sigil-data-"))
      : undefined;
  const proc = spawn(cmd!, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      ...(tempData ? { DATA_DIR: tempData } : {}),
      ...opts.env,
    },
    stdio: ["ignore", opts.stdout ?? "pipe", "pipe"],
    detached: true,
  });
  live.add(proc);
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
  };
  proc.stdout?.on("data", keep);
  proc.stderr!.on("data", keep);
  // "close", not "exit": it comes once the stdio pipes are closed too, so also after whatever the
  // process started and handed them to (npm start's node) has exited; nothing is left running.
  const exited = new Promise<number | string>((res) =>
    proc.once("close", (code, signal) => {
      live.delete(proc);
      if (tempData) rmSync(tempData, { recursive: true, force: true });
      res(code ?? signal ?? "unknown");
    }),
  );
  const name = opts.name ?? "sigil";
  const url = `http://127.0.0.1:${port}`;
  const early = exited.then((c) => {
    throw new Error(`${name} exited (${c}) before answering:\n${out}`);
  });
  try {
    await Promise.race([waitHttp(url + (opts.readyPath ?? "/healthz"), opts.readyTimeoutMs ?? 20_000), early]);
  } catch (err) {
    killGroup(proc, "SIGKILL");
    throw err;
  }
  early.catch(() => {});
  return {
    name,
    url,
    port,
    pid: proc.pid!,
    proc,
    output: () => out,
    exited,
    kill: (signal = "SIGTERM") => killGroup(proc, signal),
    async stop(signal = "SIGTERM", graceMs = 15_000) {
      if (proc.exitCode === null && proc.signalCode === null) killGroup(proc, signal);
      const t = setTimeout(() => killGroup(proc, "SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}

/** HOT_ROUTES from this process's environment (HOT_ROUTES=off npx mocha …, npm run bench), for child nodes. */
const hotRoutes = (): Record<string, string> => (process.env.HOT_ROUTES ? { HOT_ROUTES: process.env.HOT_ROUTES } : {});

/** A node with only the given settings (plus PATH, HOME, PORT): the newcomer's view. */
export function spawnNode(
  opts: { env?: Record<string, string>; command?: string[]; readyTimeoutMs?: number; stdout?: number } = {},
) {
  return startProcess(opts);
}

/**
 * A test node in a child process: the shared test secret, loopback, a short drain. `entry` runs
 * another file that starts it (a fixture that changes something first).
 */
export function startProcessNode(
  env: Record<string, string> = {},
  readyTimeoutMs = 15_000,
  entry?: string,
): Promise<ServerProcess> {
  return startProcess({
    readyTimeoutMs,
    ...(entry ? { entry } : {}),
    env: { NODE_ENV: "test", SECRET: TEST_SECRET, HOST: "127.0.0.1", SHUTDOWN_TIMEOUT: "2", ...hotRoutes(), ...env },
  });
}

/** The env of a Sigil node for benches and fault tests: quiet, private Redis, loopback only. */
export function sigilEnv(port: number, redisUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: `http://127.0.0.1:${port}`,
    REDIS_URL: redisUrl,
    SECRET: "bench-secret-0123456789abcdef0123456789abcdef",
    LOG_LEVEL: "warn",
    ...hotRoutes(),
    ...extra,
  };
}

/**
 * A Sigil node as benches and fault tests run it: src/main.ts with sigilEnv on a free port; with
 * `built`, dist/main.js as `npm start` runs it (benches: the code users run, not tsx's transform
 * of it; the caller builds first).
 */
export async function startSigil(
  redisUrl: string,
  opts: {
    name?: string;
    env?: Record<string, string>;
    nodeArgs?: string[];
    readyTimeoutMs?: number;
    built?: boolean;
  } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  return startProcess({
    name: opts.name ?? "sigil",
    ...(opts.built
      ? { command: [process.execPath, ...(opts.nodeArgs ?? []), "dist/main.js"] }
      : { entry: "src/main.ts" }),
    port,
    env: sigilEnv(port, redisUrl, opts.env),
    nodeArgs: opts.nodeArgs,
    readyTimeoutMs: opts.readyTimeoutMs,
  });
}
