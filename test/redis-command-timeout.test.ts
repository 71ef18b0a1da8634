// The Redis command timeout (src/store/redis/redis-client.ts): a Redis that stops answering fails
// a request with 503 within about a second, and the node recovers by itself; a reply that arrived
// while the node's event loop was blocked for longer than the timeout is taken, not failed.
import { expect } from "chai";
import { TestCluster } from "./support/cluster.js";
import { http } from "./support/http.js";
import { startNode } from "./support/nodes.js";
import { requireRedis, TestRedis } from "./support/redis.js";
import { createRedisClient, waitReady, type RedisClient } from "../src/store/redis/redis-client.js";

/** Keeps the event loop busy for ms (what a node does while it writes one event to thousands of sockets). */
function block(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

/** Sends n SETs, then blocks the loop for blockMs once they are written; their outcomes. */
async function writesAcrossAStall(client: RedisClient, n: number, blockMs: number) {
  // First without a stall, until every connection (each master of a Cluster) is open and answers
  // within the timeout (a busy machine can take longer than 100 ms to open one).
  for (let attempt = 1; ; attempt++) {
    const warm = await Promise.allSettled(Array.from({ length: n }, (_, i) => client.set(`stall:${i}`, "-")));
    if (warm.every((r) => r.status === "fulfilled")) break;
    if (attempt === 50) throw new Error("the client never answered 50 writes within its timeout");
  }
  const sent = Array.from({ length: n }, (_, i) =>
    client.set(`stall:${i}`, String(i)).then(
      (v) => v,
      (e: Error) => e.message,
    ),
  );
  // The automatic pipeline writes the commands from an immediate queued by the first of them;
  // this one runs right after it, so the loop blocks with the commands written and their replies
  // arriving in the socket unread.
  await new Promise<void>((r) =>
    setImmediate(() => {
      block(blockMs);
      r();
    }),
  );
  return Promise.all(sent);
}

describe("Redis command timeout", function () {
  this.timeout(60_000);
  let redis: TestRedis;

  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
  });
  after(() => redis?.destroy());

  for (const kind of ["Redis", "Cluster"] as const)
    it(`replies that arrived while the event loop was blocked past the timeout are taken (${kind})`, async () => {
      const cluster = kind === "Cluster" ? await TestCluster.start() : undefined;
      const client = createRedisClient(cluster?.url ?? redis.url, { commandTimeoutMs: 100 });
      try {
        await waitReady(client, 10_000);
        // With the timer deciding before the socket was read, these failed with "Command timed
        // out" although Redis had made every write.
        const outcomes = await writesAcrossAStall(client, 50, 1_000);
        expect(outcomes).to.deep.equal(Array(50).fill("OK"));
      } finally {
        client.disconnect();
        await cluster?.destroy();
      }
    });

  it("a Redis that stops answering fails a request with 503 within about a second; the node recovers when it answers again", async () => {
    const node = await startNode({ redisUrl: redis.url });
    const post = () => http(node.url, "/challenge/new", { method: "POST", headers: { question: "q?", answer: "a" } });
    try {
      expect((await post()).status).to.equal(201);
      redis.signal("SIGSTOP");
      let stopped = true;
      try {
        const t0 = Date.now();
        const r = await post();
        const took = Date.now() - t0;
        expect(r.status).to.equal(503);
        expect(r.json.error).to.equal("unavailable");
        expect(took).to.be.lessThan(5_000);
        redis.signal("SIGCONT");
        stopped = false;
        let status = 0;
        for (let i = 0; i < 50 && status !== 201; i++) {
          status = (await post()).status;
          if (status !== 201) await new Promise((r) => setTimeout(r, 100));
        }
        expect(status).to.equal(201);
      } finally {
        if (stopped) redis.signal("SIGCONT");
      }
    } finally {
      await node.close();
    }
  });
});
