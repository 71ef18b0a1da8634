// The `sigil` command in tests. `sigil()` runs a command in this process (src/cli.ts's runCli,
// which bin/sigil.js calls with the process's argv and env) and captures what it prints: the same
// parsing, store, services and messages, without a node process per command (~1.7 s each on this
// machine). `sigilProcess()` runs the real `node bin/sigil.js`: one test per command family
// (users, apps, tokens, keys, status) uses it, so the program itself, its exit code and its output streams
// stay tested. On the embedded store, a sigil() for a DATA_DIR that a node of this process has
// open runs in another process, the CLI worker (support/cli-worker.ts, one per test process, a
// command at a time), whichever the test called (support/open-data-dirs.ts): LMDB allows one
// environment of a file per process, and a second one in the process, even one that only reads,
// can deadlock it (two mocha workers hung so, #27).
import { execFile, fork, type ChildProcess } from "node:child_process";
import type { CliReply, CliRequest } from "./cli-worker.js";
import { runCli } from "../../src/cli.js";
import { opensHeldDataDir } from "./open-data-dirs.js";
import { ROOT } from "./processes.js";

export interface CliResult {
  /** The exit status. */
  code: number;
  out: string;
  err: string;
  /** stdout parsed, when the command succeeded with one line (not `--help`, whose text is not JSON). */
  json: any;
  /** stdout's lines parsed, when the command succeeded with JSON lines (a listing: groups list). */
  lines: any[];
}

const result = (code: number, out: string, err: string): CliResult => {
  const lines = code === 0 && (out === "" || out.startsWith("{")) ? out.split("\n").filter(Boolean) : [];
  return {
    code,
    out,
    err,
    json: lines.length === 1 ? JSON.parse(lines[0]!) : undefined,
    lines: lines.map((l) => JSON.parse(l)),
  };
};

/** `sigil args…` with exactly this environment (as a process given env and nothing else would see it). */
export function sigil(env: Record<string, string | undefined>, ...args: string[]): Promise<CliResult> {
  return sigilWithInput(undefined, env, ...args);
}

/** As sigil(), with `input` on its standard input (undefined: none, read as empty). */
export async function sigilWithInput(
  input: string | undefined,
  env: Record<string, string | undefined>,
  ...args: string[]
): Promise<CliResult> {
  if (opensHeldDataDir(env)) return inCliWorker(input, env, args);
  let out = "";
  let err = "";
  const stdin =
    input === undefined
      ? undefined
      : (async function* () {
          // In two chunks, as a pipe may deliver it (the cut may fall inside a character).
          const bytes = Buffer.from(input);
          yield bytes.subarray(0, 3);
          yield bytes.subarray(3);
        })();
  const code = await runCli(args, env, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    ...(stdin ? { input: stdin } : {}),
  });
  return result(code, out, err);
}

/** `node bin/sigil.js args…` as a child process with this environment (and PATH). */
export function sigilProcess(env: Record<string, string | undefined>, ...args: string[]): Promise<CliResult> {
  return sigilProcessWithInput(undefined, env, ...args);
}

/** As sigilProcess(), with `input` written to its standard input (then closed). */
export function sigilProcessWithInput(
  input: string | undefined,
  env: Record<string, string | undefined>,
  ...args: string[]
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["bin/sigil.js", ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, ...env } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve(result(code, stdout, stderr));
      },
    );
    child.stdin?.end(input ?? "");
  });
}

let worker: ChildProcess | undefined;
let lastId = 0;
const waiting = new Map<number, (r: CliReply) => void>();

/** Runs the command in this process's CLI worker (support/cli-worker.ts), started when first needed. */
function inCliWorker(
  input: string | undefined,
  env: Record<string, string | undefined>,
  args: string[],
): Promise<CliResult> {
  if (!worker) {
    const child = fork(new URL("./cli-worker.ts", import.meta.url), [], {
      cwd: ROOT,
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child.on("message", (r: CliReply) => {
      waiting.get(r.id)?.(r);
      waiting.delete(r.id);
    });
    child.on("exit", (code, signal) => {
      worker = undefined;
      for (const [id, done] of waiting)
        done({ id, code: 70, out: "", err: `the CLI worker ended (${signal ?? code})\n` });
      waiting.clear();
    });
    // Neither the child nor its channel keeps this process alive: it ends with this process.
    child.unref();
    child.channel?.unref();
    worker = child;
  }
  const id = ++lastId;
  const req: CliRequest = { id, args, env, ...(input !== undefined ? { input } : {}) };
  return new Promise((resolve) => {
    waiting.set(id, (r) => resolve(result(r.code, r.out, r.err)));
    worker!.send(req);
  });
}
