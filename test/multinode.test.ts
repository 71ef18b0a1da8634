// Several nodes on one Redis share every challenge and every limit; a restart loses nothing;
// Redis going away gives a quick 503 and the service comes back by itself.
import { expect } from "chai";
import { startNode, type TestNode } from "./support/nodes.js";
import { challengeApi, http } from "./support/http.js";
import { requireRedis, TestRedis } from "./support/redis.js";

describe("Several nodes on one Redis", function () {
  let redis: TestRedis;
  const nodes: TestNode[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const n = await startNode({ redisUrl: redis.url, env });
    nodes.push(n);
    return n;
  };

  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
  });
  beforeEach(() => redis.cli("FLUSHALL"));
  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.close()));
    if (!redis.running) await redis.start();
  });
  after(() => redis?.destroy());

  it("When a challenge is made on node 1, then node 2 reads and solves it", async () => {
    const [n1, n2] = [await start(), await start()];
    const key = await challengeApi(n1.url).createKey("Which node?", "any");
    const api2 = challengeApi(n2.url);
    expect((await api2.question(key)).text).to.equal("Which node?");
    expect((await api2.solve(key, "any")).json).to.deep.equal({ correct: true });
  });

  it("When wrong answers are spread over three nodes, then the limit counts them all", async () => {
    const ns = [await start(), await start(), await start()];
    const key = await challengeApi(ns[0]!.url).createKey("q", "right");
    for (let i = 0; i < 10; i++) {
      const r = await challengeApi(ns[i % 3]!.url).solve(key, "wrong");
      expect(r.status).to.equal(200);
    }
    for (const n of ns) expect((await challengeApi(n.url).solve(key, "right")).status).to.equal(429);
  });

  it("When the only node restarts, then its challenges are still there", async () => {
    const n1 = await start();
    const key = await challengeApi(n1.url).createKey("Still here?", "yes");
    await n1.close();
    const n2 = await start();
    expect((await challengeApi(n2.url).question(key)).text).to.equal("Still here?");
    expect((await challengeApi(n2.url).solve(key, "yes")).json).to.deep.equal({ correct: true });
  });

  it("When Redis stops, then requests get 503 quickly, /readyz says so, and service resumes when it is back", async () => {
    const n = await start();
    const api = challengeApi(n.url);
    const key = await api.createKey("q", "a");
    expect((await http(n.url, "/readyz")).status).to.equal(200);

    await redis.stop();
    for (const call of [() => api.solve(key, "a"), () => api.create("q", "a"), () => api.question(key)]) {
      const t0 = Date.now();
      const r = await call();
      expect(Date.now() - t0, "answered quickly").to.be.lessThan(1500);
      expect(r.status).to.equal(503);
      expect(r.json.error).to.equal("unavailable");
      expect(r.headers["retry-after"]).to.match(/^\d+$/);
    }
    const ready = await http(n.url, "/readyz");
    expect(ready.status).to.equal(503);
    expect(ready.json.error).to.equal("unavailable");
    expect((await http(n.url, "/healthz")).status, "the process itself is alive").to.equal(200);

    await redis.start();
    const deadline = Date.now() + 5000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await http(n.url, "/readyz")).status;
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status, "ready again by itself").to.equal(200);
    const fresh = await api.createKey("after the outage", "ok");
    expect((await api.solve(fresh, "ok")).json).to.deep.equal({ correct: true });
  });

  it("When Redis is down at start, then the node starts, answers 503, and serves once Redis comes up", async () => {
    await redis.stop();
    // Redis is stopped on purpose: the start need not wait the usual 3 s for it before serving 503.
    const n = await startNode({ redisUrl: redis.url, storeWaitMs: 100 });
    nodes.push(n);
    expect((await challengeApi(n.url).create("q", "a")).status).to.equal(503);
    await redis.start();
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && (await http(n.url, "/readyz")).status !== 200)
      await new Promise((r) => setTimeout(r, 100));
    expect((await challengeApi(n.url).create("q", "a")).status).to.equal(201);
  });
});
