// A bounded HTTP client, the challenge requests the loads send, and a steady-load loop for fault
// tests: every request has a deadline, every loop a count and a time limit, and every outcome is
// recorded with the time it ended.
import { request, type Agent } from "node:http";

export interface Outcome {
  /** ms since the load started, when the request was sent and when it ended. */
  sent: number;
  ended: number;
  kind: string;
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  json?: any;
  /** Connection-level error code (ECONNREFUSED, ECONNRESET, timeout). */
  error?: string;
}

export interface Req {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** POST /challenge/new, the question and answer in headers (plus `extra`, e.g. authorization). */
export const createRequest = (question: string, answer: string, extra: Record<string, string> = {}): Req => ({
  method: "POST",
  path: "/challenge/new",
  headers: { question, answer, ...extra },
});

/** POST /challenge/solve, the key and the attempt in headers. */
export const solveRequest = (key: string, a: string): Req => ({
  method: "POST",
  path: "/challenge/solve",
  headers: { "content-type": "application/json", key, a },
});

export function send(
  base: string,
  r: Req,
  opts: { timeoutMs?: number; agent?: Agent | false } = {},
): Promise<Omit<Outcome, "sent" | "ended" | "kind">> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (o: Omit<Outcome, "sent" | "ended" | "kind">) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = request(
      new URL(r.path, base),
      { method: r.method, headers: r.headers, agent: opts.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            json = undefined;
          }
          finish({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
        res.on("error", (e: NodeJS.ErrnoException) => finish({ error: e.code ?? e.message }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ error: "timeout" });
    }, opts.timeoutMs ?? 3000);
    req.on("error", (e: NodeJS.ErrnoException) => finish({ error: e.code ?? e.message }));
    req.end(r.body);
  });
}

export interface LoadLoop {
  outcomes: Outcome[];
  /** Resolves once every worker has stopped (after stop() or its limits). */
  stop(): Promise<void>;
  now(): number;
}

/**
 * Runs `workers` loops, each sending next(kind) and recording the outcome, pausing pauseMs between
 * requests. Bounded: stops after maxMs or maxRequests in all, whichever comes first.
 */
export function steadyLoad(opts: {
  base: string;
  workers: number;
  pauseMs: number;
  maxMs: number;
  maxRequests: number;
  next: (worker: number) => { kind: string; req: Req };
  onOutcome?: (o: Outcome) => void;
  timeoutMs?: number;
}): LoadLoop {
  const t0 = Date.now();
  const now = () => Date.now() - t0;
  const outcomes: Outcome[] = [];
  let stopped = false;
  const loops = Array.from({ length: opts.workers }, async (_, w) => {
    while (!stopped && now() < opts.maxMs && outcomes.length < opts.maxRequests) {
      const { kind, req } = opts.next(w);
      const sent = now();
      const o = await send(opts.base, req, { timeoutMs: opts.timeoutMs ?? 3000 });
      const rec: Outcome = { sent, ended: now(), kind, ...o };
      outcomes.push(rec);
      opts.onOutcome?.(rec);
      const pause = o.error !== undefined ? Math.max(opts.pauseMs, 5) : opts.pauseMs;
      if (pause > 0) await new Promise((r) => setTimeout(r, pause));
    }
  });
  const all = Promise.all(loops).then(() => undefined);
  return {
    outcomes,
    now,
    async stop() {
      stopped = true;
      await all;
    },
  };
}

export { sleep } from "../support/wait.js";
