// Sigil nodes in child processes (`node --import tsx src/main.ts`), for tests that kill a node
// outright (SIGKILL). Each runs on a free port with the given environment; stopped by its pid.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TEST_SECRET } from "./nodes.js";
import { freePort } from "./ports.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of live) c.kill("SIGKILL");
});

export interface ProcessNode {
  url: string;
  pid: number;
  /** Everything the process wrote (JSON log lines). */
  output(): string;
  /** Sends the signal and waits for the process to exit; resolves with its exit code (null: killed). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startProcessNode(env: Record<string, string> = {}, timeoutMs = 15_000): Promise<ProcessNode> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "test",
      SECRET: TEST_SECRET,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: `http://127.0.0.1:${port}`,
      SHUTDOWN_TIMEOUT: "2",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => (live.delete(child), resolve())));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not start within ${timeoutMs} ms: ${out}`)), timeoutMs);
    const check = () => {
      if (out.includes("sigil is listening")) {
        clearTimeout(timer);
        child.stdout!.off("data", check);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`node exited at start: ${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    output: () => out,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
      return child.exitCode;
    },
  };
}
