// Challenges: POST /challenge/solve and POST /challenge/new on Redis, Sigil beside the raw
// node:http + ioredis baseline (baseline-challenges.ts), in one run.
import { freePort } from "../support/ports.js";
import { http } from "../support/http.js";
import { selected, sideBySide, type LoadRequest } from "./lib/load.js";
import type { BenchModule } from "./lib/module.js";
import { profileArgs, SOLVE_LIMITS_RAISED, stopAll } from "./lib/processes.js";
import { sigilEnv, startProcess, startSigil, type ServerProcess } from "../support/processes.js";
import type { Row } from "./lib/report.js";

const CHALLENGES = 2000;

export const challengesBench: BenchModule = {
  name: "challenges",
  description: "POST /challenge/solve and /challenge/new vs raw node:http + ioredis",
  async run(ctx) {
    const { settings } = ctx;
    const redisUrl = ctx.redis.url;
    const bp = await freePort();
    const procs: ServerProcess[] = [];
    try {
      const sigil = await startSigil(redisUrl, { env: SOLVE_LIMITS_RAISED, nodeArgs: profileArgs(settings) });
      procs.push(sigil);
      const env = sigilEnv(bp, redisUrl, SOLVE_LIMITS_RAISED);
      const baseline = await startProcess({ name: "baseline", entry: "test/bench/baseline-challenges.ts", port: bp, env });
      procs.push(baseline);

      // Many challenges, made through Sigil; both servers read the same keys.
      const keys: string[] = [];
      for (let i = 0; i < CHALLENGES; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(50, CHALLENGES - i) }, (_, j) =>
            http(sigil.url, "/challenge/new", { method: "POST", headers: { question: `q${i + j}`, answer: `answer-${i + j}` } }),
          ),
        );
        for (const r of batch) {
          if (r.status !== 201) throw new Error(`setup: create failed ${r.status} ${r.text}`);
          keys.push(r.json.key as string);
        }
      }
      ctx.log(`  ${keys.length} challenges ready`);
      // Both servers do the real work: a right answer is right and a wrong one wrong on each.
      for (const p of procs) {
        for (const [a, correct] of [[`answer-7`, true], ["nope", false]] as const) {
          const r = await http(p.url, "/challenge/solve", { method: "POST", headers: { "content-type": "application/json", key: keys[7]!, a } });
          if (r.status !== 200 || r.json?.correct !== correct) throw new Error(`setup: ${p.name} answered ${r.status} ${r.text} for a ${correct ? "right" : "wrong"} answer`);
        }
      }

      // Right and wrong answers mixed (about one in three right), keys spread over all challenges.
      let n = 0;
      const solve = (): LoadRequest => {
        const i = (n = (n * 1103515245 + 12345) >>> 0) % keys.length;
        const right = n % 3 === 0;
        return {
          method: "POST",
          path: "/challenge/solve",
          headers: { "content-type": "application/json", key: keys[i]!, a: right ? `answer-${i}` : `guess-${n % 1000}` },
        };
      };
      let m = 0;
      const create = (): LoadRequest => {
        m++;
        return { method: "POST", path: "/challenge/new", headers: { question: `bench question ${m}?`, answer: `answer ${m}`, ttl: "120" } };
      };

      const rows: Row[] = [];
      for (const [name, next] of [
        ["POST /challenge/solve", solve],
        ["POST /challenge/new", create],
      ] as const) {
        if (!selected(settings, name)) continue;
        const opts = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections, next };
        const sides = await sideBySide(ctx, name, { ...opts, url: sigil.url, pid: sigil.proc.pid }, { ...opts, url: baseline.url, pid: baseline.proc.pid });
        rows.push({ name, ...sides, goal: 0.7 });
      }
      return rows;
    } finally {
      await stopAll(ctx, procs);
    }
  },
};
