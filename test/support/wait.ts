// Waiting in tests: every wait is bounded and named, and when it gives up it says what it waited
// for, for how long, and what it saw last — the cause of a failure on a busy machine is then in its
// message, not in a bare "Timeout of 20000ms exceeded" or "expected 1 to equal 4".

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface WaitOptions {
  /** Give up after this long (ms). */
  ms?: number;
  /** Pause between two checks (ms). */
  everyMs?: number;
  /** What was seen, for the message when the wait gives up (called then, not before). */
  seen?: () => string;
}

/**
 * Checks until `check` gives a value (anything but undefined and false), and resolves with it;
 * rejects after `ms` with "timed out after … ms waiting for <what>", plus what `seen` says, or the
 * last error `check` threw. A check that throws is tried again (the thing may not be up yet).
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  opts: WaitOptions = {},
): Promise<T> {
  const ms = opts.ms ?? 5000;
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() - started > ms) {
      const seen =
        opts.seen?.() ?? (lastError === undefined ? undefined : `the last check threw: ${String(lastError)}`);
      throw new Error(`timed out after ${ms} ms waiting for ${what}${seen === undefined ? "" : `; ${seen}`}`, {
        cause: lastError,
      });
    }
    await sleep(opts.everyMs ?? 20);
  }
}
