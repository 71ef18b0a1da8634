// The store, delivery and replay on a local three-master Redis Cluster with the sharded adapter.
import { expect } from "chai";
import { call, readyClient, refusal } from "./support/channel.js";
import { TestCluster } from "./support/cluster.js";
import { challengeApi } from "./support/http.js";
import { startNode, type TestNode } from "./support/nodes.js";
import { requireRedis } from "./support/redis.js";
import { waitFor } from "./support/wait.js";
import { liveApp, publishAsApp, readyUserSocket, revokeAsApp, signInTo } from "./support/user-sockets.js";

const APP = "test-app";

describe("Redis Cluster (three masters, sharded adapter)", function () {
  this.timeout(30_000);
  let cluster: TestCluster;
  let nodes: TestNode[] = [];
  let a: TestNode, b: TestNode;
  let token: string;
  before(async function () {
    requireRedis(this, "Redis Cluster");
    cluster = await TestCluster.start();
  });
  beforeEach(async () => {
    cluster.flushAll();
    nodes = await Promise.all(
      [0, 1].map(() => startNode({ redisUrl: cluster.url, env: { REDIS_ADAPTER: "sharded" } })),
    );
    [a, b] = nodes as [TestNode, TestNode];
    ({ token } = await a.server.customTokens.create({ app: APP }));
  });
  afterEach(async () => {
    await Promise.all(nodes.map((n) => n.close()));
  });
  after(async () => {
    await cluster?.destroy();
  });
  const bearer = () => ({ authorization: `Bearer ${token}` });

  it("When the nodes run on the cluster, then they use the sharded adapter and the store answers", async () => {
    expect(a.config.redisAdapter).to.equal("sharded");
    expect(a.server.io.of("/").adapter.constructor.name).to.match(/Sharded/);
    const r = await challengeApi(a.url).question("00000000-0000-4000-8000-000000000000");
    expect(r.status).to.equal(404);
  });

  it("When challenges are made and solved on different nodes, then the store and its limits work", async () => {
    const keys = await Promise.all(
      Array.from({ length: 6 }, (_, i) => challengeApi(a.url).createKey(`q${i}`, `a${i}`)),
    );
    for (const [i, k] of keys.entries()) {
      expect((await challengeApi(b.url).question(k)).text).to.equal(`q${i}`);
      expect((await challengeApi(b.url).solve(k, `a${i}`)).json).to.deep.equal({ correct: true });
    }
    const k = keys[0]!;
    for (let i = 0; i < 10; i++) expect((await challengeApi(a.url).solve(k, "wrong")).status).to.equal(200);
    expect((await challengeApi(b.url).solve(k, "a0")).status).to.equal(429);
  });

  it("When /auth/user's store read runs on the cluster, then the token and its app come in one MGET (one hash tag)", async () => {
    const store = a.opened.store;
    await store.accounts.create({ id: "u1", username: "ann", displayName: "Ann", passwordHash: "x", createdAt: 1 });
    await store.apps.create({
      clientId: "c1",
      ownerId: "o",
      name: "c1",
      redirectUris: ["https://a.example/cb"],
      secretHash: "ab",
      createdAt: 1,
    });
    await store.grants.saveToken("t1", { userId: "u1", clientId: "c1", codeHash: "h1" }, 60);
    expect((await store.grants.tokenUser("t1", "c1"))!.user.username).to.equal("ann");
    expect(await store.grants.tokenUser("t1", "c2")).to.equal(null);
    await store.apps.delete("c1");
    expect(await store.grants.tokenUser("t1", "c1")).to.equal(null);
  });

  it("When a consent is withdrawn on the cluster, then its codes and tokens are revoked (each script on one slot)", async () => {
    const store = a.opened.store;
    const other = b.opened.store;
    await store.accounts.create({ id: "u2", username: "bea", displayName: "Bea", passwordHash: "x", createdAt: 1 });
    await store.apps.create({
      clientId: "c2",
      ownerId: "o",
      name: "c2",
      redirectUris: ["https://a.example/cb"],
      secretHash: "ab",
      createdAt: 1,
    });
    await store.grants.grantConsent("u2", "c2");
    const rec = { clientId: "c2", redirectUri: "r", redirectUriGiven: true, userId: "u2" };
    const hashes = Array.from({ length: 8 }, (_, i) => `code-${i}`); // spread over the three masters
    for (const h of hashes) expect(await store.grants.saveCode(h, rec, 60, 120)).to.equal(true);
    expect((await store.grants.takeCode(hashes[0]!, 120)).kind).to.equal("first");
    await store.grants.saveToken("t2", { userId: "u2", clientId: "c2", codeHash: hashes[0]! }, 60);
    expect((await other.grants.tokenUser("t2", "c2"))!.user.username).to.equal("bea");
    await store.grants.withdrawConsent("u2", "c2", 120);
    expect(await other.grants.tokenUser("t2", "c2")).to.equal(null);
    for (const h of hashes.slice(1)) expect((await other.grants.takeCode(h, 120)).kind).to.equal("revoked");
    expect(await other.grants.saveCode("late", rec, 60, 120)).to.equal(false);
  });

  it("When a solve happens on node B, then the socket on node A gets it", async () => {
    const onA = await readyClient(a.url, { token });
    const key = await challengeApi(a.url).createKey("q", "a", bearer());
    await challengeApi(b.url).solve(key, "a");
    const [e] = await onA.waitEvents(1);
    expect(e).to.include({ key, correct: true });
  });

  it("When an app publishes a batch over several channels on node B, then the histories are on its shard (one script) and a socket on node A subscribed with since gets them", async () => {
    const keep = { maxEvents: 1000, ttlSeconds: 86400 };
    const msg = (channel: string, data: unknown) => ({
      channel,
      data: JSON.stringify(data),
      at: new Date().toISOString(),
    });
    const ids = await b.opened.store.channels.publish(APP, [msg("x", 1), msg("y:z", 2), msg("x", 3)], keep);
    expect(ids).to.have.length(3);
    const read = await a.opened.store.channels.readAfter(APP, "x", "0-0", 10, keep);
    expect(read.messages.map((m) => m.id)).to.deep.equal([ids[0], ids[2]]);
    const onA = await readyClient(a.url, { token });
    expect(await call(onA, "subscribe", { channel: "x", since: ids[0] })).to.deep.equal({ recovered: true });
    const [live] = await b.opened.store.channels.publish(APP, [msg("x", 4)], keep);
    expect((await onA.waitMessages(2)).map((m) => [m.id, m.data])).to.deep.equal([
      [ids[2], 3],
      [live, 4],
    ]);
    await a.opened.store.channels.deleteAll(APP);
    expect((await b.opened.store.channels.readAfter(APP, "y:z", "0-0", 10, keep)).messages).to.deep.equal([]);
  });

  it("When sockets subscribe on both nodes, then presence counts them over the nodes (each script on the app's slot) and a presence subscriber on node A hears the join", async () => {
    const other = await a.server.customTokens.create({ app: APP });
    const onA = await readyClient(a.url, { token });
    expect(await call(onA, "subscribe", { channel: "room", presence: true })).to.deep.equal({ recovered: false });
    const onB = await Promise.all([
      readyClient(b.url, { token: other.token }),
      readyClient(b.url, { token: other.token }),
    ]);
    await Promise.all(onB.map((c) => call(c, "subscribe", { channel: "room" })));
    await waitFor("the join of node B's member on node A", () => onA.presence.includes(`join room ${other.id}`));
    const members = await waitFor("both of node B's sockets counted", async () => {
      const r = await call<{ members: Array<{ token: string; connections: number }> }>(onA, "presence", {
        channel: "room",
      });
      return r.members.some((m) => m.token === other.id && m.connections === 2) && r.members;
    });
    expect(members).to.have.length(2);
    // A node that stops takes its members with it at once.
    await b.close();
    await waitFor("the leave", () => onA.presence.includes(`leave room ${other.id}`));
  });

  it("When a socket was away while 5 solves happened, then it gets exactly those 5 on reconnect", async () => {
    const key = await challengeApi(a.url).createKey("q", "a", bearer());
    const first = await readyClient(a.url, { token });
    await challengeApi(b.url).solve(key, "a");
    const [seen] = await first.waitEvents(1);
    first.close();
    for (let i = 0; i < 5; i++) await challengeApi(i % 2 ? a.url : b.url).solve(key, "no");
    const back = await readyClient(b.url, { token, since: seen!.id });
    expect(back.readies[0]).to.deep.equal({ app: APP, recovered: true });
    expect(back.events).to.have.length(5);
    await challengeApi(a.url).solve(key, "a");
    await back.waitEvents(6);
  });

  it("When answers on an owned challenge come at once on both nodes, then the limit holds and each counted one is one event", async () => {
    const onA = await readyClient(a.url, { token });
    const key = await challengeApi(a.url).createKey("q", "right", bearer());
    const rs = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        challengeApi(i % 2 ? a.url : b.url).solve(key, i % 4 < 2 ? "right" : `wrong ${i}`),
      ),
    );
    const counted = rs.filter((r) => r.status === 200);
    expect(counted.filter((r) => r.json.correct === false)).to.have.length(10);
    expect(rs.filter((r) => r.status === 429)).to.have.length(40 - counted.length);
    // Events of one app arrive in order: once a later marker arrived, every earlier one has.
    const marker = await challengeApi(a.url).createKey("marker", "m", bearer());
    await challengeApi(b.url).solve(marker, "m");
    const events = await onA.waitEvents(counted.length + 1);
    expect(events.at(-1)?.key).to.equal(marker);
    expect(events.filter((e) => e.key === key)).to.have.length(counted.length);
  });

  it("When a token is revoked on node A, then its socket on node B drops within 1 s", async () => {
    const { token: t, id } = await a.server.customTokens.create({ app: APP });
    const onB = await readyClient(b.url, { token: t });
    await a.server.customTokens.revoke(APP, id);
    expect(await onB.waitDisconnect(1000)).to.equal("io server disconnect");
    expect((await refusal(b.url, { token: t })).message).to.equal("invalid_token");
  });

  it("When an identity event is told on node B and deliveries are queued, taken and recorded, then node A's socket hears it and each queue step runs on one slot", async () => {
    const onA = await readyClient(a.url, { token });
    const heard = new Promise((resolve) => onA.socket.on("identity", resolve));
    b.server.services.identityEvents.emit("user.disabled", "u-1", [APP]);
    expect(await heard).to.include({ type: "user.disabled", sub: "u-1" });

    const q = a.opened.store.deliveries;
    const d = {
      app: APP,
      kind: "webhook" as const,
      type: "user.disabled",
      sub: "s",
      body: "b",
      attempts: 0,
      createdAt: 1,
    };
    await q.enqueue([
      { ...d, id: "m1", dueAt: 10 },
      { ...d, id: "m2", dueAt: 20 },
    ]);
    expect((await q.take(100, 10, 50)).map((x) => x.id)).to.deep.equal(["m1", "m2"]);
    await q.retry({ ...d, id: "m1", dueAt: 500, attempts: 1 });
    await q.complete("m2");
    expect((await q.take(600, 10, 50)).map((x) => x.id)).to.deep.equal(["m1"]);
    await q.record(
      APP,
      { id: "m1", kind: "webhook", type: "user.disabled", url: "u", at: 1, attempt: 1, ms: 1, outcome: "delivered" },
      20,
    );
    expect(await q.recent(APP)).to.have.length(1);
    await q.forgetApp(APP);
    expect(await q.recent(APP)).to.deep.equal([]);
  });

  it("When the adapter broadcasts, then sockets on every node receive it (sharded pub/sub works)", async () => {
    const onA = await readyClient(a.url, { token });
    const onB = await readyClient(b.url, { token });
    const got: string[] = [];
    for (const c of [onA, onB]) (c.socket as any).on("ping-all", (v: string) => got.push(v));
    (b.server.io as any).emit("ping-all", "x");
    const until = Date.now() + 2000;
    while (got.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(got).to.deep.equal(["x", "x"]);
  });

  it("When a user's socket on node B subscribes to its channel and the app revokes its token on node A, then it gets the app's message, then ends within a second", async () => {
    const app = await liveApp(a);
    const alice = await signInTo(a, app, "alice", "openid realtime");
    const s = await readyUserSocket(b, alice.accessToken);
    expect(await call(s.c, "subscribe", { channel: `user:${alice.sub}` })).to.deep.equal({ recovered: false });
    expect((await publishAsApp(a, app, { channel: `user:${alice.sub}`, data: "hi" })).status).to.equal(200);
    expect((await s.c.waitMessages(1))[0]!.data).to.equal("hi");
    expect((await revokeAsApp(a, app, alice.accessToken)).status).to.equal(200);
    const answered = Date.now();
    expect(await s.c.waitDisconnect(4000)).to.equal("io server disconnect");
    expect(Date.now() - answered).to.be.below(1000);
    expect(s.ended).to.deep.equal([{ reason: "revoked" }]);
  });
});
