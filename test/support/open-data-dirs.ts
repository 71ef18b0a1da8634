// The embedded stores' DATA_DIRs that nodes of this process have open (test/support/nodes.ts adds
// and removes them). LMDB allows one environment of a file per process: a second opening of the
// same DATA_DIR in the process (the in-process `sigil()` of support/cli.ts) can deadlock the whole
// process in a futex (two mocha workers hung so in a busy fresh-clone run, #27). cli.ts asks here
// and runs such a command as its own process instead, as an operator does.
import { resolve } from "node:path";

const open = new Map<string, number>();

const key = (dataDir: string): string => resolve(dataDir);

/** A node of this process opened the embedded store in dataDir (until released). */
export function holdDataDir(dataDir: string): () => void {
  const k = key(dataDir);
  open.set(k, (open.get(k) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const n = (open.get(k) ?? 1) - 1;
    if (n > 0) open.set(k, n);
    else open.delete(k);
  };
}

/** Whether a command with this environment would open a DATA_DIR a node of this process has open. */
export function opensHeldDataDir(env: Record<string, string | undefined>): boolean {
  if (env.REDIS_URL !== undefined) return false;
  const dir = env.DATA_DIR ?? "./data";
  return dir !== ":memory:" && open.has(key(dir));
}
