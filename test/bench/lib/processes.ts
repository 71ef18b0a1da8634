// Start-up and shut-down that the bench modules do the same way: Sigil's node flags for
// BENCH_PROFILE and stopping what a run started whatever happened.
import type { ServerProcess } from "../../support/processes.js";
import type { BenchSettings } from "./load.js";
import type { BenchContext } from "./module.js";

/** Node flags for a Sigil process: a CPU profile into settings.profileDir when one is set. */
export function profileArgs(settings: BenchSettings): string[] {
  return settings.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${settings.profileDir}`] : [];
}

/**
 * SIGTERM the processes, last started first; a process that exits with anything but one of
 * `clean` has the tail of its output logged, since a crash mid-run would skew the numbers.
 */
export async function stopAll(
  ctx: BenchContext,
  procs: ServerProcess[],
  clean: Array<number | string> = [0],
): Promise<void> {
  for (const p of procs.reverse()) {
    const code = await p.stop("SIGTERM");
    if (!clean.includes(code)) ctx.log(`  ${p.name} exited with ${code}\n${p.output().slice(-2000)}`);
  }
}
