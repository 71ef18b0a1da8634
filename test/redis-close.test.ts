// A node that stops while its connections to Redis are not ready (Redis slow to answer, or the node
// stopped moments after it started) stops cleanly: no command rejected at close is left without a
// handler (an unhandled rejection ends a Node process: a mocha worker died so in a busy run, #27).
import { expect } from "chai";
import { createServer, connect, type Server, type Socket } from "node:net";
import { Writable } from "node:stream";
import { loadConfig } from "../src/config.js";
import { createLogger } from "../src/log.js";
import { createMetrics } from "../src/metrics.js";
import { startNode } from "../src/node.js";
import { openStore } from "../src/store/index.js";
import { TEST_SECRET } from "./support/nodes.js";
import { requireRedis, TestRedis } from "./support/redis.js";

/**
 * A TCP proxy to Redis that forwards the first `through` connections and holds every later one
 * silent (accepted, never answered): a Redis that does not answer those connections yet.
 */
async function stallingProxy(target: number, through: number): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let seen = 0;
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("error", () => {});
    client.on("close", () => sockets.delete(client));
    if (++seen > through) return; // held: nothing is read or answered
    const upstream = connect(target, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    upstream.on("close", () => sockets.delete(upstream));
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe("A node stopped while Redis has not answered its realtime connections", function () {
  this.timeout(30_000);
  let redis: TestRedis;
  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
  });
  after(async () => {
    await redis?.destroy();
  });

  it("When it stops, then it stops cleanly: no command it gave up on is left unhandled (which would end the process)", async () => {
    // The request-path client gets through (the node starts on it); the adapter's and the feed's
    // connections are held, so they are still connecting when the node stops.
    const proxy = await stallingProxy(redis.port, 1);
    const { config } = loadConfig({
      NODE_ENV: "test",
      SECRET: TEST_SECRET,
      PORT: "0",
      HOST: "127.0.0.1",
      BASE_URL: "http://127.0.0.1:0",
      SIGNING_KEY_AT_START: "off",
      SHUTDOWN_TIMEOUT: "2",
      REDIS_URL: proxy.url,
    });
    const logs: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logs.push(chunk.toString());
        cb();
      },
    });
    const logger = createLogger("info", sink);
    // The root hooks fail the worker on an unhandled rejection: here it is the thing looked for.
    const rejections: string[] = [];
    const others = process.listeners("unhandledRejection");
    process.removeAllListeners("unhandledRejection");
    const collect = (reason: unknown) =>
      void rejections.push(reason instanceof Error ? reason.message : String(reason));
    process.on("unhandledRejection", collect);
    try {
      const opened = await openStore(config, logger, { waitMs: 3000 });
      const node = await startNode(config, { opened, logger, metrics: createMetrics() });
      await node.close();
      await opened.close();
    } finally {
      // The held connections close (Redis going away), which settles what waited on them; then an
      // unhandled rejection is reported after the microtasks of the turn that made it.
      await proxy.close();
      await new Promise((r) => setTimeout(r, 300));
      process.off("unhandledRejection", collect);
      for (const l of others) process.on("unhandledRejection", l);
    }
    expect(rejections, `rejections nobody handled: ${rejections.join("; ")}`).to.deep.equal([]);
  });
});
