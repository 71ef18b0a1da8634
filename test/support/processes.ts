// Sigil nodes as child processes (start-up, signals, crashes), each the single owner of its pid:
// `node --import tsx src/main.ts`, or any command given. Stopped by pid; killed if the test
// process exits first.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TEST_SECRET } from "./nodes.js";
import { freePort } from "./ports.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const p of live) p.kill("SIGKILL");
});

export interface NodeProcess {
  url: string;
  port: number;
  pid: number;
  proc: ChildProcess;
  /** Everything the process printed (stdout + stderr). */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
  /** Sends the signal and waits for the exit; resolves with the exit code (null: killed by it). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts a node with only the given environment (plus PATH, HOME and PORT): a newcomer's view. */
export async function spawnNode(
  opts: { env?: Record<string, string>; command?: string[]; readyTimeoutMs?: number } = {},
): Promise<NodeProcess> {
  const port = await freePort();
  const [cmd, ...args] = opts.command ?? [process.execPath, "--import", "tsx", "src/main.ts"];
  const proc = spawn(cmd!, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: String(port), ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(proc);
  let out = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    proc.once("exit", (code, signal) => {
      live.delete(proc);
      resolve(code ?? signal ?? "unknown");
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not listen in time:\n${out}`)), opts.readyTimeoutMs ?? 20_000);
    const check = () => {
      if (out.includes("sigil is listening")) {
        clearTimeout(timer);
        proc.stdout!.off("data", check);
        resolve();
      }
    };
    proc.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`node exited (${code}) before listening:\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: proc.pid!,
    proc,
    output: () => out,
    exited,
    kill: (signal = "SIGTERM") => void proc.kill(signal),
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
      return proc.exitCode;
    },
  };
}

/** A test node in a child process: the shared test secret, loopback, a short drain. */
export function startProcessNode(env: Record<string, string> = {}, timeoutMs = 15_000): Promise<NodeProcess> {
  return spawnNode({
    readyTimeoutMs: timeoutMs,
    env: { NODE_ENV: "test", SECRET: TEST_SECRET, HOST: "127.0.0.1", SHUTDOWN_TIMEOUT: "2", ...env },
  });
}
