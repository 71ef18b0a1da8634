// Challenges: POST /challenge/solve and POST /challenge/new on Redis, Sigil beside the raw
// node:http + ioredis baseline (baseline-challenges.ts), in one run, both at Sigil's default solve
// limits (a bench never changes settings to hide a behaviour a user would meet). Solve is measured
// as users meet it: right answers (never counted, always 200 correct:true), and wrong answers over
// the keys from one address, 200 correct:false up to the 10th per key and 429 after, on both sides.
import { freePort } from "../support/ports.js";
import { http } from "../support/http.js";
import { Redis } from "ioredis";
import { selected, sideBySide, type LoadOptions, type LoadRequest, type Measurement } from "./lib/load.js";
import type { BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import { sigilEnv, startProcess, type ServerProcess } from "../support/processes.js";
import { startBenchSigil } from "./lib/sockets.js";
import type { Row } from "./lib/report.js";

/** Challenges for the right answers. */
const CHALLENGES = 2000;
/**
 * Challenges for the wrong answers, each sent WRONG_ROUNDS wrong answers per measurement, which is
 * a fixed count of requests: from no counts, exactly PER_ADDRESS of each key's are 200 and the rest
 * 429 on either side, whatever its speed, so both sides do the same work.
 */
const WRONG_CHALLENGES = 1000;
const WRONG_ROUNDS = 20;
/** Sigil's default solve limits (src/config.ts); both servers run with them, nothing raised. */
const PER_ADDRESS = 10;

const solveResponse = (body: string): { correct?: unknown; error?: unknown } | undefined => {
  try {
    return JSON.parse(body) as { correct?: unknown; error?: unknown };
  } catch {
    return undefined;
  }
};

/** Round robin over the keys: consecutive requests (and so the connections in flight) hit different keys. */
function roundRobin(keys: string[], make: (key: string, i: number, n: number) => LoadRequest) {
  let n = 0;
  return {
    next: (): LoadRequest => {
      const i = n % keys.length;
      return make(keys[i]!, i, n++);
    },
    restart: () => void (n = 0),
  };
}

export const challengesBench: BenchModule = {
  name: "challenges",
  description: "POST /challenge/solve and /challenge/new vs raw node:http + ioredis, both at the default solve limits",
  async run(ctx) {
    const { settings } = ctx;
    const redisUrl = ctx.redis.url;
    const bp = await freePort();
    const procs: ServerProcess[] = [];
    const redis = new Redis(redisUrl);
    try {
      // No SOLVE_LIMIT_* anywhere: both servers run at the limits a user meets.
      const sigil = await startBenchSigil(redisUrl, { nodeArgs: profileArgs(settings) });
      procs.push(sigil);
      const baseline = await startProcess({
        name: "baseline",
        entry: "test/bench/baseline-challenges.ts",
        port: bp,
        env: sigilEnv(bp, redisUrl),
      });
      procs.push(baseline);

      // Challenges made through Sigil; both servers read the same keys.
      const make = async (tag: string, count: number): Promise<string[]> => {
        const keys: string[] = [];
        for (let i = 0; i < count; i += 50) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(50, count - i) }, (_, j) =>
              http(sigil.url, "/challenge/new", {
                method: "POST",
                headers: { question: `${tag} q${i + j}`, answer: `answer-${i + j}` },
              }),
            ),
          );
          for (const r of batch) {
            if (r.status !== 201) throw new Error(`setup: create failed ${r.status} ${r.text}`);
            keys.push(r.json.key as string);
          }
        }
        return keys;
      };
      const rightKeys = await make("right", CHALLENGES);
      const wrongKeys = await make("wrong", WRONG_CHALLENGES);
      ctx.log(`  ${rightKeys.length} + ${wrongKeys.length} challenges ready`);

      // Both servers do the real work and meet the same limit: on a key of its own, each answers
      // ten wrong answers 200 correct:false, then 429 with Retry-After, the right answer included.
      const own = await make("check", procs.length);
      for (const [i, p] of procs.entries()) {
        const key = own[i]!;
        const post = (a: string) =>
          http(p.url, "/challenge/solve", { method: "POST", headers: { "content-type": "application/json", key, a } });
        const right = await post(`answer-${i}`);
        if (right.status !== 200 || right.json?.correct !== true)
          throw new Error(`setup: ${p.name} answered ${right.status} ${right.text} for a right answer`);
        for (let i = 1; i <= PER_ADDRESS; i++) {
          const r = await post(`nope ${i}`);
          if (r.status !== 200 || r.json?.correct !== false)
            throw new Error(`setup: ${p.name} answered ${r.status} ${r.text} for wrong answer ${i}`);
        }
        for (const a of ["nope again", `answer-${i}`]) {
          const r = await post(a);
          if (r.status !== 429 || r.json?.error !== "rate_limited" || !r.headers["retry-after"])
            throw new Error(
              `setup: ${p.name} answered ${r.status} ${r.text} past the limit, not 429 rate_limited with Retry-After`,
            );
        }
      }

      // Right answers only: each must be 200 correct:true (right answers never count, so no limit
      // is ever met); anything else fails the row.
      const right = roundRobin(rightKeys, (key, i) => ({
        method: "POST",
        path: "/challenge/solve",
        headers: { "content-type": "application/json", key, a: `answer-${i}` },
      }));
      const rightExpect = (status: number, body: string) => status === 200 && solveResponse(body)?.correct === true;
      // Wrong answers only, round robin over the keys from one address: 200 correct:false until a
      // key has had its 10 wrong answers, 429 rate_limited after. Each measurement starts from no
      // counts (the warm-up's are deleted) and sends the same requests, so both sides see the same mix.
      const wrong = roundRobin(wrongKeys, (key, _i, n) => ({
        method: "POST",
        path: "/challenge/solve",
        headers: { "content-type": "application/json", key, a: `guess-${n}` },
      }));
      const wrongExpect = (status: number, body: string) =>
        (status === 200 && solveResponse(body)?.correct === false) ||
        (status === 429 && solveResponse(body)?.error === "rate_limited");
      const wrongTags = new Set(wrongKeys);
      const restartWrong = async () => {
        let cursor = "0";
        do {
          const [next, found] = await redis.scan(cursor, "MATCH", "sigil:sv:*", "COUNT", 1000);
          cursor = next;
          const mine = found.filter((k) => wrongTags.has(k.slice(k.indexOf("{") + 1, k.indexOf("}"))));
          if (mine.length) await redis.unlink(...mine);
        } while (cursor !== "0");
        wrong.restart();
      };
      let m = 0;
      const create = (): LoadRequest => {
        m++;
        return {
          method: "POST",
          path: "/challenge/new",
          headers: { question: `bench question ${m}?`, answer: `answer ${m}`, ttl: "120" },
        };
      };
      const createExpect = (status: number) => status === 201;

      const share = (x: Measurement) => {
        const s = x.statuses ?? {};
        const all = Object.values(s).reduce((a, b) => a + b, 0) || 1;
        return Object.keys(s)
          .sort()
          .map((code) => `${code} ${((s[code]! / all) * 100).toFixed(1)}%`)
          .join(" / ");
      };
      const rows: Row[] = [];
      const base = {
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        connections: settings.connections,
      };
      const wrongCount = WRONG_CHALLENGES * WRONG_ROUNDS;
      const loads: Array<[string, Omit<LoadOptions, "url" | "pid">]> = [
        ["POST /challenge/solve (right answers)", { ...base, next: right.next, expect: rightExpect }],
        [
          "POST /challenge/solve (wrong answers, at the limits)",
          {
            ...base,
            next: wrong.next,
            expect: wrongExpect,
            amount: wrongCount,
            warmupAmount: wrongCount / 4,
            restart: restartWrong,
          },
        ],
        ["POST /challenge/new", { ...base, next: create, expect: createExpect }],
      ];
      for (const [name, opts] of loads) {
        if (!selected(settings, name)) continue;
        const sides = await sideBySide(
          ctx,
          name,
          { ...opts, url: sigil.url, pid: sigil.proc.pid },
          { ...opts, url: baseline.url, pid: baseline.proc.pid },
        );
        const note = opts.amount
          ? `${wrongCount} requests per measurement (${WRONG_ROUNDS} wrong answers to each of ${WRONG_CHALLENGES} keys, from no counts); ` +
            `responses: Sigil ${share(sides.subject)}; baseline ${share(sides.baseline)}`
          : undefined;
        rows.push({ name, ...sides, goal: 0.7, ...(note ? { note } : {}) });
      }
      return rows;
    } finally {
      redis.disconnect();
      await stopAll(ctx, procs);
    }
  },
};
