// What the Redis store sends per operation on the sign-in hot path. Scripts go by SHA1
// (EVALSHA), never as text (EVAL) once a server has them, and a check of a limit that was never
// hit is one plain read, not a MULTI transaction: the text of four scripts and a transaction on
// every code trade cost about a fifth of a node's CPU there (docs/benchmarks.md). A solve of an
// app's challenge reads no range of the app's history: a reverse range walk in every event append
// (the time trim) cost Redis ~60 µs per solve, twice the rest of the solve. A publish to an app's
// channels keeps the same bound per channel.
// Redis only: the embedded store has no wire to count.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { grant, postForm } from "./support/grants.js";
import { challengeApi } from "./support/http.js";
import { publishWith } from "./support/channel.js";
import { Receiver } from "./support/receiver.js";
import { PageClient, basic, registerApp, userInfo, type TestApp } from "./support/pages.js";
import type { TestRedis } from "./support/redis.js";

/** Calls per command since the last CONFIG RESETSTAT, from INFO commandstats. */
function commandCalls(redis: TestRedis): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of redis.cli("INFO", "commandstats").split("\n")) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

describeBackends(
  "Redis commands per operation",
  (backend) => {
    let node: TestNode;
    let app: TestApp;
    let alice: PageClient;

    beforeEach(async () => {
      // No look at the delivery queue on the clock during a count (one a second by default: a
      // script and a range read, which a slow run of ten requests met now and then); a delivery
      // queued here is looked at at once, as ever.
      node = await backend.startNode({ DELIVERY_POLL: "60000" });
      const dev = new PageClient(node.url);
      await dev.signUp("devon");
      app = await registerApp(dev, ["https://app.example/cb"]);
      alice = new PageClient(node.url);
      await alice.signUp("alice", "password123", "Alice Liddell");
    });

    async function trade() {
      const r = await grant(node.url, alice, app, "profile");
      expect(r.status).to.equal(200);
      expect((await userInfo(node.url, r.json.access_token as string, app.clientId)).status).to.equal(200);
    }

    it("a code trade sends no script text and no transaction once the scripts are loaded", async () => {
      await trade(); // loads the scripts (a server without them answers NOSCRIPT once)
      backend.redis!.cli("CONFIG", "RESETSTAT");
      for (let i = 0; i < 10; i++) await trade();
      const calls = commandCalls(backend.redis!);
      expect(calls.evalsha ?? 0, JSON.stringify(calls)).to.be.greaterThan(0);
      expect(calls, JSON.stringify(calls)).not.to.have.any.keys("eval", "multi", "exec", "script|load");
    });

    it("a client credentials token costs three commands: the throttle's read and the app's (sent together), and one script", async () => {
      const stored = (await node.server.services.apps.byClientId(app.clientId))!;
      await node.server.services.apps.update(stored, { m2mScopes: ["jobs:run"] });
      const cc = () =>
        postForm(
          node.url,
          "/token",
          { grant_type: "client_credentials" },
          { authorization: basic(app.clientId, app.clientSecret) },
        );
      expect((await cc()).status).to.equal(200); // loads the script
      backend.redis!.cli("CONFIG", "RESETSTAT");
      for (let i = 0; i < 10; i++) expect((await cc()).status).to.equal(200);
      const calls = commandCalls(backend.redis!);
      // EXISTS: the throttle's read, and the script's check that the app is still there.
      expect(calls, JSON.stringify(calls)).to.include({ exists: 20, get: 10, evalsha: 10, set: 10 });
      expect(calls, JSON.stringify(calls)).not.to.have.any.keys("eval", "multi", "pttl", "hget", "hgetall");
    });

    it("an app's solve (right and wrong answers) reads no range of the history and sends one script", async () => {
      const { token } = await node.server.customTokens.create({ app: "test-app" });
      const api = challengeApi(node.url);
      const auth = { authorization: `Bearer ${token}` };
      // The first solve of a key learns its owner and loads the scripts.
      const keys = [await api.createKey("q", "right", auth), await api.createKey("q2", "right", auth)];
      for (const key of keys) expect((await api.solve(key, "right")).json).to.deep.equal({ correct: true });
      backend.redis!.cli("CONFIG", "RESETSTAT");
      for (let i = 0; i < 10; i++) {
        const key = keys[i % 2]!;
        expect((await api.solve(key, i % 3 === 0 ? "wrong" : "right")).status).to.equal(200);
      }
      const calls = commandCalls(backend.redis!);
      expect(calls.xadd, JSON.stringify(calls)).to.equal(10);
      expect(calls.evalsha, JSON.stringify(calls)).to.equal(10);
      expect(calls, JSON.stringify(calls)).not.to.have.any.keys("xrange", "xrevrange", "xread", "eval", "multi");
    });

    it("a publish to an app's channels reads no range of their histories: one XADD per message, in one script per request", async () => {
      const { token } = await node.server.customTokens.create({ app: "test-app", publish: true });
      const publish = (body: unknown) => publishWith(node.url, token, body);
      const batch = Array.from({ length: 10 }, (_, i) => ({ channel: i % 2 ? "a" : "b:c", data: i }));
      expect((await publish(batch)).status).to.equal(200); // loads the script, makes the streams
      backend.redis!.cli("CONFIG", "RESETSTAT");
      for (let i = 0; i < 3; i++) expect((await publish(batch)).status).to.equal(200);
      const calls = commandCalls(backend.redis!);
      expect(calls.xadd, JSON.stringify(calls)).to.equal(30);
      expect(calls, JSON.stringify(calls)).not.to.have.any.keys("xrange", "xrevrange", "xread", "eval");
    });

    it("a publish of 100 messages to channels the app sends to its webhook queues them in one write: one HSET", async () => {
      const receiver = await Receiver.start();
      try {
        const { services } = node.server;
        const record = (await services.apps.byClientId(app.clientId))!;
        await services.eventEndpoints.set(record, { webhookUrl: receiver.url(), webhookChannels: "news, orders:*" });
        const { token } = await node.server.customTokens.create({ app: app.clientId, publish: true });
        const batch = Array.from({ length: 100 }, (_, i) => ({
          channel: ["news", "orders:1", "other"][i % 3],
          data: i,
        }));
        expect((await publishWith(node.url, token, batch)).status).to.equal(200); // loads the script
        await receiver.until(67);
        backend.redis!.cli("CONFIG", "RESETSTAT");
        expect((await publishWith(node.url, token, batch)).status).to.equal(200);
        // One HSET of 67 deliveries (its ZADD in the same MULTI; the senders' takes ZADD their leases,
        // and their other writes are HDEL, ZREM, LPUSH: a receiver answering 204 is never retried).
        const calls = commandCalls(backend.redis!);
        expect(calls.hset, JSON.stringify(calls)).to.equal(1);
        await receiver.until(134);
      } finally {
        await receiver.close();
      }
    });
  },
  ["redis"],
);
