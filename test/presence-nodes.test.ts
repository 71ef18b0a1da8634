// docs/realtime.md#presence across nodes on one Redis: members counted over every node, join and
// leave heard on another node than the one the member is on, a node that drains (its members leave
// at once) and a node killed outright (its members leave within three PRESENCE_HEARTBEATs).
import { expect } from "chai";
import type { ErrorObject, PresenceResponse } from "../src/protocol.js";
import { describeBackends } from "./support/backends.js";
import { call, readyClient, type ChannelClient } from "./support/channel.js";
import { StoreUnavailableError } from "../src/errors.js";
import type { Store } from "../src/store/port.js";
import { startNode, type TestNode } from "./support/nodes.js";
import { startProcessNode, type ServerProcess } from "./support/processes.js";
import { waitFor } from "./support/wait.js";

const APP = "test-app";

type Members = PresenceResponse["members"];
const sortMembers = (ms: Members) => [...ms].sort((x, y) => String(x.token).localeCompare(String(y.token)));

/** Waits until presence, asked on `c`, is `want` (another node writes its changes right after acknowledging them). */
function presenceBecomes(c: ChannelClient, channel: string, want: Members, ms = 5000): Promise<Members> {
  const expected = JSON.stringify(sortMembers(want));
  let last = "";
  return waitFor(
    `presence of ${channel} to be ${expected}`,
    async () => {
      const got = sortMembers((await call<PresenceResponse>(c, "presence", { channel })).members);
      last = JSON.stringify(got);
      return last === expected && got;
    },
    { ms, seen: () => `the last answer: ${last}` },
  );
}

/** What a presence subscriber heard on `channel` before the marker's join (sorted: two nodes write in any order). */
async function heardBefore(listener: ChannelClient, channel: string, marker: { id: string }): Promise<string[]> {
  const line = `join ${channel} ${marker.id}`;
  const before = await waitFor(
    `the marker's join on ${channel}`,
    () => {
      const i = listener.presence.indexOf(line);
      return i >= 0 && listener.presence.slice(0, i);
    },
    { seen: () => listener.presence.join(", ") },
  );
  return [...before].sort();
}

describeBackends(
  "Presence across nodes",
  (backend) => {
    let a: TestNode, b: TestNode;
    beforeEach(async () => {
      [a, b] = await Promise.all([backend.startNode(), backend.startNode()]);
    });
    const newToken = () => a.server.customTokens.create({ app: APP });

    it("When three sockets of two tokens subscribe on two nodes, then presence on either node says 2 and 1, and a presence subscriber on node A hears each join and leave once", async () => {
      const [tl, t1, t2, tm] = await Promise.all([newToken(), newToken(), newToken(), newToken()]);
      const listener = await readyClient(a.url, { token: tl.token });
      await call(listener, "subscribe", { channel: "room", presence: true });
      const [t1OnA, t1OnB, t2OnB] = await Promise.all([
        readyClient(a.url, { token: t1.token }),
        readyClient(b.url, { token: t1.token }),
        readyClient(b.url, { token: t2.token }),
      ]);
      await Promise.all([t1OnA, t1OnB, t2OnB].map((c) => call(c, "subscribe", { channel: "room" })));
      const want = [
        { token: tl.id, connections: 1 },
        { token: t1.id, connections: 2 },
        { token: t2.id, connections: 1 },
      ];
      await presenceBecomes(listener, "room", want);
      await presenceBecomes(t2OnB, "room", want);
      expect(await heardBefore(listener, "room", await markerOn(b, tm.token, tm))).to.deep.equal(
        [`join room ${tl.id}`, `join room ${t1.id}`, `join room ${t2.id}`].sort(),
      );
      // t1 leaves B (still on A: no leave), then A (leave); t2 disconnects from B (leave).
      await call(t1OnB, "unsubscribe", { channel: "room" });
      await presenceBecomes(listener, "room", [
        want[0]!,
        { token: t1.id, connections: 1 },
        want[2]!,
        { token: tm.id, connections: 1 },
      ]);
      await call(t1OnA, "unsubscribe", { channel: "room" });
      t2OnB.close();
      await presenceBecomes(listener, "room", [want[0]!, { token: tm.id, connections: 1 }]);
      const tn = await newToken();
      expect(await heardBefore(listener, "room", await markerOn(b, tn.token, tn))).to.deep.equal(
        [
          `join room ${tl.id}`,
          `join room ${t1.id}`,
          `join room ${t2.id}`,
          `join room ${tm.id}`,
          `leave room ${t1.id}`,
          `leave room ${t2.id}`,
        ].sort(),
      );
    });

    it("When 50 sockets of one token subscribe at once on two nodes, then one join, and presence says 50", async function () {
      this.timeout(20_000);
      const [tl, t1, tm] = await Promise.all([newToken(), newToken(), newToken()]);
      const listener = await readyClient(b.url, { token: tl.token });
      await call(listener, "subscribe", { channel: "crowd", presence: true });
      const many = await Promise.all(
        Array.from({ length: 50 }, (_, i) => readyClient(i % 2 ? a.url : b.url, { token: t1.token })),
      );
      await Promise.all(many.map((c) => call(c, "subscribe", { channel: "crowd" })));
      await presenceBecomes(listener, "crowd", [
        { token: tl.id, connections: 1 },
        { token: t1.id, connections: 50 },
      ]);
      expect(await heardBefore(listener, "crowd", await markerOn(a, tm.token, tm, "crowd"))).to.deep.equal(
        [`join crowd ${tl.id}`, `join crowd ${t1.id}`].sort(),
      );
    });

    it("When a node drains, then its members leave at once on the other nodes, long before their lease would end", async () => {
      const slow = { PRESENCE_HEARTBEAT: "60000" };
      const [c, d] = await Promise.all([backend.startNode(slow), backend.startNode(slow)]);
      const [tl, t1] = await Promise.all([newToken(), newToken()]);
      const listener = await readyClient(c.url, { token: tl.token });
      await call(listener, "subscribe", { channel: "drain", presence: true });
      const onD = await readyClient(d.url, { token: t1.token });
      await call(onD, "subscribe", { channel: "drain" });
      await waitFor("the join", () => listener.presence.includes(`join drain ${t1.id}`));
      const t0 = Date.now();
      await d.close();
      await waitFor("the leave", () => listener.presence.includes(`leave drain ${t1.id}`), { ms: 3000 });
      expect(Date.now() - t0).to.be.lessThan(3000);
      await presenceBecomes(listener, "drain", [{ token: tl.id, connections: 1 }]);
    });

    it("When a node cannot reach the store for longer than its lease, then presence asked there acks unavailable, its members leave, and join again once it can", async () => {
      const env = { PRESENCE_HEARTBEAT: "200" };
      let cut = false;
      const c = await backend.startNode(env);
      const d = await startNode({
        redisUrl: backend.redis!.url,
        env,
        wrapStore: (store) => cutPresence(store, () => cut),
      });
      try {
        const [tl, t1] = await Promise.all([newToken(), newToken()]);
        const listener = await readyClient(c.url, { token: tl.token });
        await call(listener, "subscribe", { channel: "cut", presence: true });
        const onD = await readyClient(d.url, { token: t1.token });
        await call(onD, "subscribe", { channel: "cut" });
        const heard = (line: string, n: number) =>
          waitFor(`${line} (#${n})`, () => listener.presence.filter((l) => l === line).length >= n, {
            seen: () => listener.presence.join(", "),
          });
        await heard(`join cut ${t1.id}`, 1);
        cut = true;
        // Asked meanwhile, the node answers at once that the store is away.
        expect(await call<ErrorObject>(onD, "presence", { channel: "cut" })).to.include({ error: "unavailable" });
        await heard(`leave cut ${t1.id}`, 1);
        cut = false;
        await heard(`join cut ${t1.id}`, 2);
        await presenceBecomes(listener, "cut", [
          { token: tl.id, connections: 1 },
          { token: t1.id, connections: 1 },
        ]);
        expect(d.logs.filter((l) => l.includes("presence: the store did not take"))).to.have.length.within(1, 2);
      } finally {
        await d.close();
      }
    });
  },
  ["redis"],
);

/** The store, but its presence writes fail while `isCut()` (a node cut off from Redis, for presence alone). */
function cutPresence(store: Store, isCut: () => boolean): Store {
  const presence: Store["presence"] = {
    sync: (...args) => (isCut() ? Promise.reject(new StoreUnavailableError()) : store.presence.sync(...args)),
    members: (...args) => (isCut() ? Promise.reject(new StoreUnavailableError()) : store.presence.members(...args)),
    drop: (...args) => store.presence.drop(...args),
  };
  return new Proxy(store, { get: (t, p, r) => (p === "presence" ? presence : Reflect.get(t, p, r)) });
}

/** A marker token's socket subscribing on `node`: its join comes after everything that node and the others wrote before. */
async function markerOn(node: TestNode, token: string, t: { id: string }, channel = "room"): Promise<{ id: string }> {
  const m = await readyClient(node.url, { token });
  await call(m, "subscribe", { channel });
  return t;
}

describeBackends(
  "Presence when a node dies",
  (backend) => {
    let p: ServerProcess | undefined;
    afterEach(async () => {
      await p?.stop("SIGKILL");
    });

    it("When a node is SIGKILLed, then its members leave, on the surviving node, within three PRESENCE_HEARTBEATs", async function () {
      this.timeout(40_000);
      const HEARTBEAT = 300;
      const env = { PRESENCE_HEARTBEAT: String(HEARTBEAT) };
      p = await startProcessNode({ REDIS_URL: backend.redis!.url, LOG_LEVEL: "warn", ...env });
      const survivor = await backend.startNode(env);
      const [tl, t1, t2, tm] = await Promise.all(
        [0, 1, 2, 3].map(() => survivor.server.customTokens.create({ app: APP })),
      );
      const listener = await readyClient(survivor.url, { token: tl!.token });
      await call(listener, "subscribe", { channel: "fate", presence: true });
      // t1 on the doomed node only; t2 on both.
      const doomed = await Promise.all([t1!, t1!, t2!].map((t) => readyClient(p!.url, { token: t.token })));
      const stays = await readyClient(survivor.url, { token: t2!.token });
      await Promise.all([...doomed, stays].map((c) => call(c, "subscribe", { channel: "fate" })));
      await presenceBecomes(listener, "fate", [
        { token: tl!.id, connections: 1 },
        { token: t1!.id, connections: 2 },
        { token: t2!.id, connections: 2 },
      ]);
      const t0 = Date.now();
      await p.stop("SIGKILL");
      await waitFor("t1's leave", () => listener.presence.includes(`leave fate ${t1!.id}`), {
        ms: 10 * HEARTBEAT,
        seen: () => listener.presence.join(", "),
      });
      const took = Date.now() - t0;
      // Three heartbeats, and a second for a busy machine's timers.
      expect(took, "ms from the kill to the leave").to.be.lessThan(3 * HEARTBEAT + 1000);
      await presenceBecomes(listener, "fate", [
        { token: tl!.id, connections: 1 },
        { token: t2!.id, connections: 1 },
      ]);
      // t2 is still on the survivor: it did not leave.
      expect(await heardBefore(listener, "fate", await markerOn(survivor, tm!.token, tm!, "fate"))).to.deep.equal(
        [`join fate ${tl!.id}`, `join fate ${t1!.id}`, `join fate ${t2!.id}`, `leave fate ${t1!.id}`].sort(),
      );
    });
  },
  ["redis"],
);
