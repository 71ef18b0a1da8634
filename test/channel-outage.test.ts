// The channel through Redis trouble: a dropped subscription loses no live event, and a Redis
// restart (with its data on disk) keeps the history and the live feed.
import { expect } from "chai";
import { Redis } from "ioredis";
import { compareEventIds } from "../src/store/port.js";
import { call, readyClient, refusal, publishWith } from "./support/channel.js";
import { challengeApi } from "./support/http.js";
import { startNode, type TestNode } from "./support/nodes.js";
import { requireRedis, TestRedis } from "./support/redis.js";
import { liveApp, readyUserSocket, revokeAsApp, signInTo } from "./support/user-sockets.js";
import { waitFor } from "./support/wait.js";

/** Solves and checks it was answered (an attempt that failed would have no event to wait for). */
async function solved(api: ReturnType<typeof challengeApi>, key: string, answer: string): Promise<void> {
  const r = await api.solve(key, answer);
  expect(r.status, `the solve (${answer}) answered ${r.status} ${r.text}`).to.equal(200);
}

describe("Realtime channel through Redis trouble", function () {
  this.timeout(30_000);
  let redis: TestRedis;
  const nodes: TestNode[] = [];
  let probe: Redis;
  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start({ appendonly: true });
    probe = new Redis(redis.url);
    probe.on("error", () => {}); // it reconnects by itself when the restart test stops Redis
  });
  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.close()));
  });
  after(async () => {
    probe?.disconnect();
    await redis?.destroy();
  });

  /** How many connections (one per node) are subscribed to the nodes' feed channel now. */
  async function feedSubscribers(): Promise<number> {
    const [, n] = (await probe.pubsub("NUMSUB", "sigil:feed")) as [string, number];
    return Number(n);
  }

  /**
   * Two nodes; a socket of the app on node A, solves sent to node B; the first solve's event has
   * reached the socket, so the feed works before a test cuts it.
   */
  async function listeningOnA() {
    const [a, b] = await Promise.all([startNode({ redisUrl: redis.url }), startNode({ redisUrl: redis.url })]);
    nodes.push(a!, b!);
    const { token } = await a!.server.customTokens.create({ app: "test-app" });
    const cl = await readyClient(a!.url, { token });
    const api = challengeApi(b!.url);
    const key = await api.createKey("q", "a", { authorization: `Bearer ${token}` });
    await solved(api, key, "a");
    await cl.waitEvents(1);
    return { cl, api, key };
  }

  it("When the nodes' subscriptions are cut while solves go on, then the sockets still get every event", async () => {
    const { cl, api, key } = await listeningOnA();
    // Cut every subscriber connection; publishes made before they are back reach nobody.
    redis.cli("CLIENT", "KILL", "TYPE", "pubsub");
    for (let i = 0; i < 3; i++) await solved(api, key, "no");
    const evs = await cl.waitEvents(4, 5000);
    expect(evs.map((e) => e.correct)).to.deep.equal([true, false, false, false]);
    expect(new Set(evs.map((e) => e.id)).size).to.equal(4);
    expect(cl.socket.connected).to.equal(true);
  });

  it("When a solve lands right after the subscriptions are back, then the solves made while they were away still arrive, in order", async () => {
    const { cl, api, key } = await listeningOnA();
    redis.cli("CLIENT", "KILL", "TYPE", "pubsub");
    await solved(api, key, "missed"); // published while node A's feed is away: A does not hear it
    // Both nodes' feeds subscribed again, then at once a solve that A hears live.
    await waitFor("both nodes' feed subscriptions back", async () => (await feedSubscribers()) === 2, { ms: 5000 });
    await solved(api, key, "heard");
    const evs = await cl.waitEvents(3, 5000);
    expect(evs.map((e) => e.correct)).to.deep.equal([true, false, false]);
    expect(evs.map((e) => e.id)).to.deep.equal([...evs.map((e) => e.id)].sort(compareEventIds));
    expect(cl.socket.connected).to.equal(true);
  });

  it("When the subscriptions are cut while an app publishes, then a subscribed socket still gets every channel message, once, in order", async () => {
    const [a, b] = await Promise.all([startNode({ redisUrl: redis.url }), startNode({ redisUrl: redis.url })]);
    nodes.push(a!, b!);
    const { token } = await a!.server.customTokens.create({ app: "test-app", publish: true });
    const publish = async (data: number) => {
      const r = await publishWith(b!.url, token, { channel: "news", data });
      expect(r.status, r.text).to.equal(200);
    };
    const cl = await readyClient(a!.url, { token });
    expect(await call(cl, "subscribe", { channel: "news" })).to.deep.equal({ recovered: false });
    await publish(0);
    await cl.waitMessages(1);
    redis.cli("CLIENT", "KILL", "TYPE", "pubsub");
    for (let i = 1; i <= 3; i++) await publish(i);
    await waitFor("both nodes' feed subscriptions back", async () => (await feedSubscribers()) === 2, { ms: 5000 });
    await publish(4);
    const got = await cl.waitMessages(5, 5000);
    expect(got.map((m) => m.data)).to.deep.equal([0, 1, 2, 3, 4]);
    expect(cl.socket.connected).to.equal(true);
  });

  it("When a token is revoked while the subscriptions are cut, then its sockets still drop", async () => {
    const [a, b] = await Promise.all([startNode({ redisUrl: redis.url }), startNode({ redisUrl: redis.url })]);
    nodes.push(a!, b!);
    const { token, id } = await a!.server.customTokens.create({ app: "test-app" });
    const cl = await readyClient(b!.url, { token });
    redis.cli("CLIENT", "KILL", "TYPE", "pubsub");
    await a!.server.customTokens.revoke("test-app", id);
    expect(await cl.waitDisconnect(2000)).to.equal("io server disconnect");
  });

  it("When a token is revoked while the subscriptions are cut, then a new handshake with it is refused at once", async () => {
    const [a, b] = await Promise.all([startNode({ redisUrl: redis.url }), startNode({ redisUrl: redis.url })]);
    nodes.push(a!, b!);
    const { token, id } = await a!.server.customTokens.create({ app: "test-app" });
    await readyClient(b!.url, { token }); // node B has just checked this token
    redis.cli("CLIENT", "KILL", "TYPE", "pubsub");
    await a!.server.customTokens.revoke("test-app", id);
    expect((await refusal(b!.url, { token })).message).to.equal("invalid_token");
  });

  it("When a user's access token is revoked while the subscriptions are cut, then the user's socket still ends once they are back", async () => {
    const [a, b] = await Promise.all([startNode({ redisUrl: redis.url }), startNode({ redisUrl: redis.url })]);
    nodes.push(a!, b!);
    const app = await liveApp(a!);
    const alice = await signInTo(a!, app, "alice", "openid realtime");
    const s = await readyUserSocket(b!, alice.accessToken);
    redis.cli("CLIENT", "KILL", "TYPE", "pubsub");
    expect((await revokeAsApp(a!, app, alice.accessToken)).status).to.equal(200);
    expect(await s.c.waitDisconnect(5000)).to.equal("io server disconnect");
    expect(s.ended).to.deep.equal([{ reason: "revoked" }]);
  });

  it("When Redis restarts, then the history survives and live events flow again", async () => {
    const a = await startNode({ redisUrl: redis.url });
    nodes.push(a);
    const { token } = await a.server.customTokens.create({ app: "test-app" });
    const cl = await readyClient(a.url, { token });
    const api = challengeApi(a.url);
    const key = await api.createKey("q", "a", { authorization: `Bearer ${token}` });
    await api.solve(key, "a");
    const [first] = await cl.waitEvents(1);
    await redis.stop();
    expect((await api.solve(key, "a")).status).to.equal(503);
    await redis.start();
    let last = "";
    await waitFor(
      "a solve answered 200 once Redis is back",
      async () => {
        const r = await api.solve(key, "a");
        last = `${r.status} ${r.text}`;
        return r.status === 200;
      },
      { ms: 5000, everyMs: 100, seen: () => `the last answer: ${last}` },
    );
    await cl.waitEvents(2, 5000);
    const back = await readyClient(a.url, { token, since: first!.id });
    expect(back.readies[0]).to.deep.equal({ app: "test-app", recovered: true });
    expect(back.events).to.have.length(1);
  });
});
