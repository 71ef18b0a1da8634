// Sigil nodes as child processes (for start-up, signals and crashes), each the single owner of
// its pid: `node --import tsx src/main.ts`, or any command given.
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "./ports.js";

export interface NodeProcess {
  url: string;
  port: number;
  proc: ChildProcess;
  /** Everything the process printed (stdout + stderr). */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const p of live) p.kill("SIGKILL");
});

export async function spawnNode(
  opts: { env?: Record<string, string>; command?: string[]; readyTimeoutMs?: number } = {},
): Promise<NodeProcess> {
  const port = await freePort();
  const [cmd, ...args] = opts.command ?? [process.execPath, "--import", "tsx", "src/main.ts"];
  const proc = spawn(cmd!, args, {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: String(port), ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(proc);
  let out = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    proc.on("exit", (code, signal) => {
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
    proc,
    output: () => out,
    exited,
    kill: (signal = "SIGTERM") => void proc.kill(signal),
  };
}
