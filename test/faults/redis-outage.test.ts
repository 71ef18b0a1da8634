// Redis (AOF on) stopped for 5 s under steady load (issue 6, docs/http-api.md#when-redis-is-away-and-draining "503 ... never a hang"):
// the node keeps running, answers 503 unavailable with Retry-After within 1 s, serves fully again
// within 2 s of Redis's return, and no challenge it acknowledged (201) is lost.
import { expect } from "chai";
import { requireRedis, TestRedis } from "../support/redis.js";
import { startSigil, type ServerProcess } from "../support/processes.js";
import { createRequest, send, sleep, solveRequest, steadyLoad, type Outcome, type Req } from "./client.js";

describe("Faults: Redis stops for 5 s under steady load", function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let sigil: ServerProcess;

  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start({ appendonly: true });
    sigil = await startSigil(redis.url);
  });
  after(async () => {
    await sigil?.stop("SIGTERM");
    await redis?.destroy();
  });

  it("When Redis is killed and returns, then 503 within 1 s, full service within 2 s, nothing acknowledged lost", async () => {
    const acked: Array<{ key: string; question: string; answer: string }> = [];
    let seq = 0;
    const load = steadyLoad({
      base: sigil.url,
      workers: 4,
      pauseMs: 10,
      maxMs: 20_000,
      maxRequests: 20_000,
      timeoutMs: 3000,
      next: (w): { kind: string; req: Req } => {
        const i = seq++;
        if (i % 2 === 0 || acked.length === 0) {
          const question = `question ${w}-${i}`;
          const answer = `answer ${w}-${i}`;
          return { kind: `new|${question}|${answer}`, req: createRequest(question, answer) };
        }
        const c = acked[i % acked.length]!;
        return { kind: "solve", req: solveRequest(c.key, c.answer) };
      },
      onOutcome: (o) => {
        if (o.kind.startsWith("new|") && o.status === 201) {
          const [, question, answer] = o.kind.split("|");
          acked.push({ key: o.json.key, question: question!, answer: answer! });
        }
      },
    });

    await sleep(1500);
    const stoppedAt = load.now();
    await redis.stop("SIGKILL");
    await sleep(1000);
    const ready = await send(sigil.url, { method: "GET", path: "/readyz" }, { timeoutMs: 2000 });
    await sleep(4000);
    await redis.start();
    const backAt = load.now();
    await sleep(4000);
    await load.stop();
    const all: Outcome[] = load.outcomes;

    // The process lived through it, and /readyz said so during the outage.
    expect(sigil.proc.exitCode, "sigil exited").to.equal(null);
    expect(ready.status, "/readyz during the outage").to.equal(503);

    // Never a hang, never a connection failure, never a 5xx other than 503 unavailable.
    expect(
      all.filter((o) => o.error !== undefined).map((o) => o.error),
      "connection errors",
    ).to.deep.equal([]);
    const bad5xx = all.filter((o) => o.status! >= 500 && !(o.status === 503 && o.json?.error === "unavailable"));
    expect(
      bad5xx.map((o) => `${o.status} ${JSON.stringify(o.json)}`),
      "unexpected 5xx",
    ).to.deep.equal([]);
    const slow = all.filter((o) => o.ended - o.sent > 1000);
    expect(
      slow.map((o) => `${o.kind.split("|")[0]} took ${o.ended - o.sent} ms`),
      "requests over 1 s",
    ).to.deep.equal([]);

    // Before the stop: full service.
    const before = all.filter((o) => o.ended < stoppedAt);
    expect(before.length).to.be.greaterThan(20);
    expect(before.every((o) => o.status === 200 || o.status === 201)).to.equal(true);

    // 503 with Retry-After within 1 s of the stop, and only 503s while Redis is away.
    const first503 = all.find((o) => o.sent >= stoppedAt && o.status === 503);
    expect(first503, "a 503 after the stop").to.not.equal(undefined);
    expect(first503!.ended - stoppedAt, "ms from the stop to the first 503").to.be.at.most(1000);
    const during = all.filter((o) => o.sent >= stoppedAt + 1000 && o.ended <= backAt);
    expect(during.length).to.be.greaterThan(20);
    for (const o of during) {
      expect(o.status, `${o.kind.split("|")[0]} during the outage`).to.equal(503);
      expect(o.headers!["retry-after"]).to.match(/^\d+$/);
      expect(o.headers!["content-type"]).to.match(/^application\/json/);
      expect(o.json).to.have.keys("error", "error_description");
    }

    // Full service within 2 s of Redis's return.
    const firstOk = all.find((o) => o.sent >= backAt && (o.status === 200 || o.status === 201));
    expect(firstOk, "a success after the return").to.not.equal(undefined);
    expect(firstOk!.ended - backAt, "ms from the return to the first success").to.be.at.most(2000);
    const after = all.filter((o) => o.sent >= backAt + 2000);
    expect(after.length).to.be.greaterThan(20);
    expect(
      after.filter((o) => o.status !== 200 && o.status !== 201).map((o) => o.status),
      "failures 2 s after the return",
    ).to.deep.equal([]);
    for (const o of after.filter((x) => x.kind === "solve")) expect(o.json).to.deep.equal({ correct: true });

    console.log(
      `      ${all.length} requests; first 503 ${first503!.ended - stoppedAt} ms after the stop; ` +
        `first success ${firstOk!.ended - backAt} ms after the return; ${acked.length} acknowledged challenges`,
    );

    // Nothing acknowledged is lost: every 201'd challenge reads back and solves.
    expect(acked.length).to.be.greaterThan(20);
    for (let i = 0; i < acked.length; i += 20) {
      await Promise.all(
        acked.slice(i, i + 20).map(async (c) => {
          const q = await send(sigil.url, { method: "GET", path: "/challenge/q", headers: { key: c.key } });
          expect(q.status, `question of an acknowledged challenge`).to.equal(200);
          const s = await send(sigil.url, solveRequest(c.key, c.answer));
          expect(s.json, "solve of an acknowledged challenge").to.deep.equal({ correct: true });
        }),
      );
    }
  });
});
