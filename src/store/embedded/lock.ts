// One server process owns a DATA_DIR: a lock file holding its pid. A second server refuses to
// start, naming the holder's pid; a lock left by a process that is gone (kill -9, a crash) is
// taken over. The CLI does not take it (it works beside the server).
import { openSync, readFileSync, unlinkSync, writeSync, closeSync } from "node:fs";
import { resolve } from "node:path";

export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `DATA_DIR ${dir} is in use by another Sigil server (pid ${pid}); stop it first, or give this one another DATA_DIR`,
    );
    this.name = "DataDirLockedError";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function holder(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The lock files this process holds (a pid of ours in a file not listed here is a previous life's: a container's pid 1). */
const held = new Set<string>();

/** Takes dir's lock for this process; returns its release. Throws DataDirLockedError when held. */
export function lockDataDir(dir: string): () => void {
  const file = resolve(dir, "server.pid");
  if (held.has(file)) throw new DataDirLockedError(dir, process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      held.add(file);
      return () => {
        if (!held.delete(file)) return;
        if (holder(file) === process.pid) unlinkSync(file);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const pid = holder(file);
    if (pid !== undefined && pid !== process.pid && alive(pid)) throw new DataDirLockedError(dir, pid);
    // Stale (its process is gone) or half-written: take it over.
    try {
      unlinkSync(file);
    } catch {
      // another starter took it over first: try again
    }
  }
  const pid = holder(file);
  throw new DataDirLockedError(dir, pid ?? 0);
}
