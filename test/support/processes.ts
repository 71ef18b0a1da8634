// Sigil (or a baseline) as a child process, for benchmarks and fault tests: one `node --import tsx <entry>` per server, so
// that one pid owns it (no npm/sh/tsx chain), started on a free loopback port and stopped by pid.
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export interface ServerProcess {
  name: string;
  url: string;
  proc: ChildProcess;
  /** stderr and stdout, kept (bounded) for diagnosis when something fails. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** Sends a signal and waits for the exit, SIGKILL after graceMs. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | string>;
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of live) c.kill("SIGKILL");
});

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
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startProcess(opts: {
  name: string;
  /** Entry file, relative to the project root. */
  entry: string;
  port: number;
  env: Record<string, string>;
  nodeArgs?: string[];
  /** Path polled until the server answers. */
  readyPath?: string;
}): Promise<ServerProcess> {
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), "--import", "tsx", opts.entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(proc);
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  const exited = new Promise<number | string>((res) =>
    proc.once("exit", (code, signal) => {
      live.delete(proc);
      res(code ?? signal ?? "unknown");
    }),
  );
  const url = `http://127.0.0.1:${opts.port}`;
  const early = exited.then((c) => {
    throw new Error(`${opts.name} exited (${c}) before answering:\n${out}`);
  });
  await Promise.race([waitHttp(url + (opts.readyPath ?? "/healthz")), early]);
  early.catch(() => {});
  return {
    name: opts.name,
    url,
    proc,
    output: () => out,
    exited,
    async stop(signal = "SIGTERM", graceMs = 15_000) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const t = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
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
    ...extra,
  };
}
