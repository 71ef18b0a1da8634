// docs/realtime.md#several-nodes across nodes: two and three Sigil nodes on one Redis, and a node killed outright.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { call, readyClient, refusal, sleep } from "./support/channel.js";
import { challengeApi } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { startProcessNode, type ServerProcess } from "./support/processes.js";

const APP = "test-app";

describeBackends(
  "Realtime channel across nodes",
  (backend) => {
    let a: TestNode, b: TestNode, c: TestNode;
    let token: string;
    let tokenId: string;
    beforeEach(async () => {
      [a, b, c] = await Promise.all([backend.startNode(), backend.startNode(), backend.startNode()]);
      ({ token, id: tokenId } = await a.server.customTokens.create({ app: APP }));
    });
    const bearer = () => ({ authorization: `Bearer ${token}` });

    it("When a solve happens on node B, then the sockets on nodes A and C get it exactly once", async () => {
      const onA = await readyClient(a.url, { token });
      const onC = await readyClient(c.url, { token });
      const key = await challengeApi(a.url).createKey("q", "a", bearer());
      await challengeApi(b.url).solve(key, "a");
      for (const cl of [onA, onC]) {
        const [e] = await cl.waitEvents(1);
        expect(e).to.include({ key, correct: true });
      }
      // A marker solved on B after it: what came before it on each socket is that one event.
      const marker = await challengeApi(a.url).createKey("marker", "m", bearer());
      await challengeApi(b.url).solve(marker, "m");
      expect(await onA.eventsBefore(marker)).to.have.length(1);
      expect(await onC.eventsBefore(marker)).to.have.length(1);
    });

    it("When the nodes use the sharded adapter on a standalone Redis 7, then delivery and broadcasts work", async () => {
      const [s1, s2] = await Promise.all([
        backend.startNode({ REDIS_ADAPTER: "sharded" }),
        backend.startNode({ REDIS_ADAPTER: "sharded" }),
      ]);
      expect(s1!.server.io.of("/").adapter.constructor.name).to.match(/Sharded/);
      const on1 = await readyClient(s1!.url, { token });
      const key = await challengeApi(s2!.url).createKey("q", "a", bearer());
      await challengeApi(s2!.url).solve(key, "a");
      await on1.waitEvents(1);
      const got: string[] = [];
      (on1.socket as any).on("hello", (v: string) => got.push(v));
      (s2!.server.io as any).emit("hello", "from s2");
      const until = Date.now() + 2000;
      while (!got.length && Date.now() < until) await sleep(10);
      expect(got).to.deep.equal(["from s2"]);
    });

    it("When a socket on node A solves over the channel, then a socket on node B gets the event", async () => {
      const onA = await readyClient(a.url, { token });
      const onB = await readyClient(b.url, { token });
      const { key } = await call<{ key: string }>(onA, "challenge:new", { question: "q", answer: "a" });
      expect(await call(onA, "challenge:solve", { key, a: "nope" })).to.deep.equal({ correct: false });
      const [e] = await onB.waitEvents(1);
      expect(e).to.include({ key, correct: false });
      expect((await onA.waitEvents(1))[0]!.id).to.equal(e!.id);
    });

    it("When a socket was away while 5 solves happened on three nodes, then it gets exactly those 5 on another node, then live ones", async () => {
      const key = await challengeApi(a.url).createKey("q", "a", bearer());
      const first = await readyClient(a.url, { token });
      await challengeApi(b.url).solve(key, "a");
      const [seen] = await first.waitEvents(1);
      first.close();
      const nodes = [a, b, c, a, b];
      const missed: string[] = [];
      for (const [i, n] of nodes.entries()) {
        await challengeApi(n.url).solve(key, i % 2 ? "a" : `w${i}`);
      }
      const back = await readyClient(c.url, { token, since: seen!.id });
      expect(back.readies).to.deep.equal([{ app: APP, recovered: true }]);
      expect(back.events.map((e) => e.correct)).to.deep.equal([false, true, false, true, false]);
      missed.push(...back.events.map((e) => e.id));
      expect(new Set(missed).size).to.equal(5);
      await challengeApi(b.url).solve(key, "a");
      await back.waitEvents(6);
      const marker = await challengeApi(a.url).createKey("marker", "m", bearer());
      await challengeApi(b.url).solve(marker, "m");
      expect(await back.eventsBefore(marker)).to.have.length(6);
    });

    it("When a token is revoked on node A, then its socket on node B drops within 1 s and cannot reconnect", async () => {
      const onB = await readyClient(b.url, { token });
      const onC = await readyClient(c.url, { token });
      const t0 = Date.now();
      await a.server.customTokens.revoke(APP, tokenId);
      expect(await onB.waitDisconnect(1000)).to.equal("io server disconnect");
      expect(await onC.waitDisconnect(1000)).to.equal("io server disconnect");
      expect(Date.now() - t0).to.be.lessThan(1000);
      const err = await refusal(b.url, { token });
      expect(err.message).to.equal("invalid_token");
    });

    it("When every node restarts, then the history is still there for a client with since", async () => {
      const key = await challengeApi(a.url).createKey("q", "a", bearer());
      const cl = await readyClient(a.url, { token });
      await challengeApi(a.url).solve(key, "a");
      const [seen] = await cl.waitEvents(1);
      cl.close();
      for (let i = 0; i < 3; i++) await challengeApi(b.url).solve(key, "no");
      await backend.closeNodes();
      const fresh = await backend.startNode();
      const back = await readyClient(fresh.url, { token, since: seen!.id });
      expect(back.readies[0]).to.deep.equal({ app: APP, recovered: true });
      expect(back.events.map((e) => e.correct)).to.deep.equal([false, false, false]);
    });

    it("When a node drains, then its clients are told to reconnect, and on another node they miss nothing", async () => {
      const key = await challengeApi(a.url).createKey("q", "a", bearer());
      const cl = await readyClient(a.url, { token, reconnection: true });
      await challengeApi(b.url).solve(key, "a");
      await cl.waitEvents(1);
      await a.close();
      // A transport close (not a server disconnect): the client keeps trying, as behind a balancer.
      expect(await cl.waitDisconnect()).to.equal("transport close");
      expect(cl.socket.active).to.equal(true);
      cl.close();
      await challengeApi(b.url).solve(key, "a");
      const again = await readyClient(b.url, { token, since: cl.lastId()! });
      expect(again.readies[0]!.recovered).to.equal(true);
      expect(again.events).to.have.length(1);
    });
  },
  ["redis"],
);

describeBackends(
  "Realtime channel with nodes in their own processes",
  (backend) => {
    let p1: ServerProcess | undefined;
    let p2: ServerProcess | undefined;
    afterEach(async () => {
      await Promise.all([p1?.stop("SIGKILL"), p2?.stop("SIGKILL")]);
    });

    it("When a node gets SIGTERM, then its sockets are told to reconnect and it exits cleanly", async function () {
      this.timeout(30_000);
      p1 = await startProcessNode({ REDIS_URL: backend.redis!.url, LOG_LEVEL: "info" });
      const helper = await backend.startNode();
      const { token } = await helper.server.customTokens.create({ app: APP });
      const cl = await readyClient(p1.url, { token, reconnection: true });
      const t0 = Date.now();
      const code = await p1.stop("SIGTERM");
      expect(code).to.equal(0);
      expect(Date.now() - t0).to.be.lessThan(10_000);
      expect(await cl.waitDisconnect()).to.equal("transport close");
      expect(cl.socket.active).to.equal(true);
      expect(p1.output()).to.not.include(token);
      cl.close();
    });

    it("When the client's node is SIGKILLed, then reconnecting to another node with since loses no event", async function () {
      this.timeout(40_000);
      const env = { REDIS_URL: backend.redis!.url, LOG_LEVEL: "info" };
      [p1, p2] = await Promise.all([startProcessNode(env), startProcessNode(env)]);
      const helper = await backend.startNode();
      const { token } = await helper.server.customTokens.create({ app: APP });
      const key = await challengeApi(p2.url).createKey("q", "a", { authorization: `Bearer ${token}` });
      const cl = await readyClient(p1.url, { token });
      for (let i = 0; i < 3; i++) await challengeApi(p2.url).solve(key, "a");
      await cl.waitEvents(3);
      // Solves keep coming while node 1 dies.
      const solving = (async () => {
        for (let i = 0; i < 10; i++) {
          await challengeApi(p2.url).solve(key, i % 2 ? "a" : "no");
          await sleep(20);
        }
      })();
      await sleep(50);
      await p1.stop("SIGKILL");
      await solving;
      const since = cl.lastId()!;
      cl.close();
      const back = await readyClient(p2.url, { token, since });
      expect(back.readies[0]!.recovered).to.equal(true);
      const ids = [...cl.events, ...back.events].map((e) => e.id);
      expect(ids).to.have.length(13);
      expect(new Set(ids).size).to.equal(13);
    });
  },
  ["redis"],
);
