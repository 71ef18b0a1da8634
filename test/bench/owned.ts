// Solves of an app's challenges — the path the seed is about — on Redis, two nodes with the app's
// sockets connected to both and receiving every result, beside a floor that does the same writes
// in one script (baseline-owned.ts, two processes with bare Socket.IO), in one run:
// - right answers over many keys, right answers all on one key, wrong answers over many keys at
//   the limits (from no counts, a fixed count of requests: both sides answer the same mix of 200
//   correct:false and 429), and POST /challenge/new with the app's CUSTOM TOKEN;
// - for each, Redis's own time per request (INFO commandstats, usec summed over every command the
//   measured run sent, scripts' inner calls included) on both sides, as a row of its own with the
//   goal ≤ 1.5× the floor;
// - for each solve row, the events that reached the app's sockets against those owed (every
//   counted solve, warm-up included, times the sockets): the row fails on any lost event (a timed
//   run's last requests in flight are solved but not counted, so a few more may arrive).
// Load goes to node A; BENCH_OWNED_SOCKETS sockets (default 10, half on each node) hear every
// event. 100 sockets at ~10,000 solves/s would be 1,000,000 deliveries/s, four times what this
// 2-core machine delivers at all (fan-out module): the rows would measure socket writes on both
// sides, not the solve; BENCH_OWNED_SOCKETS=100 runs it so.
import { Redis } from "ioredis";
import { sigilEnv, startProcess, type ServerProcess } from "../support/processes.js";
import { selected, sideBySide, type LoadOptions, type LoadRequest, type Measurement } from "./lib/load.js";
import type { BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";
import { appWithToken, num, ownedChallenges, sleep, startBenchSigil, startSwarm, type Swarm } from "./lib/sockets.js";

const KEYS = 2000;
const WRONG_KEYS = 1000;
const WRONG_ROUNDS = 20;

/** Redis's CPU time so far (µs), summed over INFO commandstats, less the INFO calls themselves. */
export function redisUsec(info: string): number {
  let total = 0;
  for (const line of info.split("\n")) {
    const m = /^cmdstat_([^:]+):calls=\d+,usec=(\d+)/.exec(line.trim());
    if (m && m[1] !== "info") total += Number(m[2]);
  }
  return total;
}

const body = (s: string): { correct?: unknown; error?: unknown } | undefined => {
  try {
    return JSON.parse(s) as { correct?: unknown; error?: unknown };
  } catch {
    return undefined;
  }
};

/**
 * The share of the events owed to the app's sockets that reached them (counted solves × sockets,
 * on each side), once the counts stop growing: a row that fails when any event was lost, so that
 * a faster Sigil that drops deliveries cannot pass.
 */
async function deliveries(
  swarm: Swarm,
  before: Record<string, number>,
  counted: { Sigil: number; floor: number },
  sockets: number,
  sides: { subject: Measurement; baseline: Measurement },
): Promise<Row> {
  const got = (now: Record<string, number>, side: "Sigil" | "floor") => (now[side] ?? 0) - (before[side] ?? 0);
  let now = await swarm.counts();
  for (let i = 0; i < 40; i++) {
    await sleep(250);
    const next = await swarm.counts();
    const settled = next["Sigil"] === now["Sigil"] && next["floor"] === now["floor"];
    now = next;
    if (settled && got(now, "Sigil") >= counted.Sigil * sockets && got(now, "floor") >= counted.floor * sockets) break;
  }
  const share = (side: "Sigil" | "floor") => (100 * got(now, side)) / Math.max(1, counted[side] * sockets);
  const s = share("Sigil");
  return {
    name: "  events delivered (solves × sockets)",
    ...sides,
    labels: ["Sigil", "floor"],
    figure: { unit: "%", subject: s, baseline: share("floor"), digits: 2 },
    note: `${got(now, "Sigil")} of ${counted.Sigil * sockets} for Sigil`,
    // A timed run ends with requests in flight: solved, but their answers never read, so up to
    // connections × runs × sockets more events than counted may arrive. None may be missing.
    check: { goal: "none lost", met: got(now, "Sigil") >= counted.Sigil * sockets },
  };
}

export const ownedBench: BenchModule = {
  name: "owned",
  description: "solves of an app's challenges, its sockets on two nodes listening, vs a one-script floor",
  async run(ctx) {
    const { settings } = ctx;
    const redisUrl = ctx.redis.url;
    const procs: ServerProcess[] = [];
    const redis = new Redis(redisUrl);
    const sockets = num("BENCH_OWNED_SOCKETS", 10);
    const swarm = await startSwarm(1);
    try {
      const prof = profileArgs(settings);
      const [a, b] = await Promise.all(
        ["A", "B"].map((n) => startBenchSigil(redisUrl, { name: `sigil ${n}`, nodeArgs: prof })),
      );
      procs.push(a!, b!);
      const env = sigilEnv(0, redisUrl);
      const floors = await Promise.all(
        ["A", "B"].map((n) =>
          startProcess({
            name: `floor ${n}`,
            entry: "test/bench/baseline-owned.ts",
            env: { REDIS_URL: redisUrl, SECRET: env.SECRET! },
          }),
        ),
      );
      procs.push(...floors);
      const [fa, fb] = floors as [ServerProcess, ServerProcess];
      const { token } = appWithToken(env);
      for (const [x, y, t, label] of [
        [a!, b!, token, "Sigil"],
        [fa, fb, undefined, "floor"],
      ] as const) {
        const half = Math.ceil(sockets / 2);
        const c = [
          await swarm.connect(x.url, t, half, 50, false, label),
          await swarm.connect(y.url, t, sockets - half, 50, false, label),
        ];
        if (c.some((r) => r.failed > 0)) throw new Error(`setup: sockets failed to connect to ${x.name}/${y.name}`);
      }
      const keys = await ownedChallenges(a!.url, token, KEYS);
      const wrongKeys = await ownedChallenges(a!.url, token, WRONG_KEYS);
      ctx.log(`  ${keys.length} + ${wrongKeys.length} owned challenges, ${sockets} sockets per side`);

      const usec = () => redisUsec(ctx.redis.cli("INFO", "commandstats"));
      const solve = (key: string, answer: string): LoadRequest => ({
        method: "POST",
        path: "/challenge/solve",
        headers: { "content-type": "application/json", key, a: answer },
      });
      let n = 0;
      const rightMany = () => {
        const i = n++ % keys.length;
        return solve(keys[i]!, `answer-${i}`);
      };
      const rightOne = () => solve(keys[0]!, "answer-0");
      const wrongMany = () => {
        const i = n++ % wrongKeys.length;
        return solve(wrongKeys[i]!, `guess-${n}`);
      };
      const wrongTags = new Set(wrongKeys);
      const restartWrong = async () => {
        // The wrong answers' counters (not the answers' copies, ":h"), so each run starts from no counts.
        let cursor = "0";
        do {
          const [next, found] = await redis.scan(cursor, "MATCH", "sigil:sv:*", "COUNT", 1000);
          cursor = next;
          const mine = found.filter((k) => !k.endsWith(":h") && wrongTags.has(k.split(":")[3] ?? ""));
          if (mine.length) await redis.unlink(...mine);
        } while (cursor !== "0");
        n = 0;
      };
      let m = 0;
      const create = (): LoadRequest => ({
        method: "POST",
        path: "/challenge/new",
        headers: { authorization: `Bearer ${token}`, question: `bench ${++m}?`, answer: `answer ${m}`, ttl: "120" },
      });
      const right = (s: number, t: string) => s === 200 && body(t)?.correct === true;
      const wrongOrLimited = (s: number, t: string) =>
        (s === 200 && body(t)?.correct === false) || (s === 429 && body(t)?.error === "rate_limited");
      const base = {
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        connections: settings.connections,
      };
      const wrongCount = WRONG_KEYS * WRONG_ROUNDS;
      const loads: Array<[string, Omit<LoadOptions, "url" | "pid">]> = [
        ["owned solve (right answers, many keys)", { ...base, next: rightMany, expect: right }],
        ["owned solve (right answers, one key)", { ...base, next: rightOne, expect: right }],
        [
          "owned solve (wrong answers at the limits, many keys)",
          {
            ...base,
            next: wrongMany,
            expect: wrongOrLimited,
            amount: wrongCount,
            warmupAmount: wrongCount / 4,
            restart: restartWrong,
          },
        ],
        ["POST /challenge/new (owned)", { ...base, next: create, expect: (s) => s === 201 }],
      ];
      const rows: Row[] = [];
      for (const [name, opts] of loads) {
        if (!selected(settings, name)) continue;
        // Every counted solve (a 200, warm-up included) is an event for each of the app's sockets.
        const counted = { Sigil: 0, floor: 0 };
        const counting = (side: keyof typeof counted) => (status: number) => {
          if (status === 200) counted[side]++;
        };
        const before = await swarm.counts();
        const sides = await sideBySide(
          ctx,
          name,
          { ...opts, url: a!.url, pid: a!.proc.pid, redisUsec: usec, onResponse: counting("Sigil") },
          { ...opts, url: fa.url, pid: fa.proc.pid, redisUsec: usec, onResponse: counting("floor") },
        );
        rows.push({ name: `${name}, 2 nodes`, ...sides, goal: 0.7, labels: ["Sigil", "floor"] });
        if (name.startsWith("owned solve")) rows.push(await deliveries(swarm, before, counted, sockets, sides));
        const s = sides.subject.redisUsPerRequest ?? NaN;
        const f = sides.baseline.redisUsPerRequest ?? NaN;
        rows.push({
          name: `  Redis CPU per request`,
          ...sides,
          labels: ["Sigil", "floor"],
          figure: { unit: "µs", subject: s, baseline: f, digits: 1 },
          // The goal is for solves; a new challenge's Redis time is shown, not judged.
          ...(name.startsWith("owned solve") ? { check: { goal: "≤ 150% of the floor", met: s <= 1.5 * f } } : {}),
        });
      }
      return rows;
    } finally {
      redis.disconnect();
      await swarm.close();
      await stopAll(ctx, procs);
    }
  },
};
