// The bundled client's channels (client/src/realtime.ts: subscribe, the returned unsubscribe, and
// the resume per channel after a reconnection) against a live node, messages published over HTTP.
import { expect } from "chai";
import { createClient, type MessageEvent, type RealtimeConnection, type SigilClient } from "../client/src/index.js";
import { describeBackendsWholeSuite, oneBackend } from "./support/backends.js";
import { record } from "./support/client-realtime.js";
import { publishWith } from "./support/channel.js";
import type { TestNode } from "./support/nodes.js";

const APP = "test-app";

const open: RealtimeConnection[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

describeBackendsWholeSuite(
  "Client: channels",
  (backend) => {
    let node: TestNode;
    let sigil: SigilClient;
    let token: string;
    before(async () => {
      node = await backend.startNode();
      sigil = createClient({ baseUrl: node.url });
      token = (await node.server.customTokens.create({ app: APP, publish: true, channels: ["a", "b", "c", "d"] }))
        .token;
    });
    const connect = () => {
      const conn = sigil.connect({ token, socket: { reconnectionDelay: 50, reconnectionDelayMax: 200 } });
      open.push(conn);
      return conn;
    };
    const publish = async (body: unknown): Promise<string[]> => {
      const r = await publishWith(node.url, token, body);
      expect(r.status, r.text).to.equal(200);
      return r.json.ids as string[];
    };

    it("When an app subscribes with a handler, then it gets the channel's messages (replayed after since, then live) until it calls the returned unsubscribe", async () => {
      const [first, second] = await publish([
        { channel: "a", data: "old" },
        { channel: "a", data: "missed" },
      ]);
      const conn = connect();
      const r = record(conn);
      const subscribed: Array<{ channel: string; recovered: boolean }> = [];
      conn.on("subscribed", (e) => subscribed.push(e));
      const got: MessageEvent[] = [];
      const stop = conn.subscribe("a", (m) => got.push(m), { since: first! });
      const onB: MessageEvent[] = [];
      conn.subscribe("b", (m) => onB.push(m));
      await r.until(() => got.length >= 1, "the replayed message");
      expect(got[0]).to.deep.include({ channel: "a", id: second, data: "missed" });
      await r.until(() => subscribed.length >= 2, "both acks");
      expect(subscribed).to.deep.include({ channel: "a", recovered: true });
      const [live] = await publish({ channel: "a", data: { live: true } });
      await r.until(() => got.length >= 2, "the live message");
      expect(got[1]).to.deep.include({ id: live, data: { live: true } });
      expect(conn.lastMessageId("a")).to.equal(live);
      stop();
      await publish([
        { channel: "a", data: "after stop" },
        { channel: "b", data: "marker" },
      ]);
      await r.until(() => onB.length >= 1, "the marker on b");
      expect(got).to.have.length(2);
    });

    it("When the connection drops (the server's disconnect, or the transport), then the client subscribes again from each channel's last id and gets what it missed once, in order", async () => {
      const conn = connect();
      const r = record(conn);
      const onC: unknown[] = [];
      const onD: unknown[] = [];
      let acks = 0;
      conn.on("subscribed", () => acks++);
      conn.subscribe("c", (m) => onC.push(m.data));
      conn.subscribe("d", (m) => onD.push(m.data));
      await r.until(() => acks >= 2, "both subscriptions");
      await publish([
        { channel: "c", data: 1 },
        { channel: "d", data: 1 },
      ]);
      await r.until(() => onC.length >= 1 && onD.length >= 1, "the first messages");
      node.server.io.disconnectSockets(true);
      await r.until(() => r.disconnects.includes("io server disconnect") || undefined, "the disconnect");
      await publish([
        { channel: "c", data: 2 },
        { channel: "d", data: 2 },
      ]);
      await r.readyCount(2);
      await r.until(() => onC.length >= 2 && onD.length >= 2, "the missed messages");
      for (const [, s] of node.server.io.of("/").sockets) s.conn.close();
      await publish({ channel: "c", data: 3 });
      await r.readyCount(3);
      await r.until(() => onC.length >= 3, "the message missed on the second drop");
      await publish([
        { channel: "c", data: 4 },
        { channel: "d", data: 3 },
      ]);
      await r.until(() => onC.length >= 4 && onD.length >= 3, "the last ones");
      expect(onC).to.deep.equal([1, 2, 3, 4]);
      expect(onD).to.deep.equal([1, 2, 3]);
    });

    it("When an app subscribes with presence, then presence(channel) lists the members, join and leave come as events, and after a reconnection the subscription still has presence", async () => {
      const [me, peer] = await Promise.all(
        [0, 1].map(() => node.server.customTokens.create({ app: APP, channels: ["p"] })),
      );
      const conn = sigil.connect({ token: me!.token, socket: { reconnectionDelay: 50, reconnectionDelayMax: 200 } });
      open.push(conn);
      const r = record(conn);
      const told: string[] = [];
      conn.on("join", (e) => told.push(`join ${e.channel} ${e.token}`));
      conn.on("leave", (e) => told.push(`leave ${e.channel} ${e.token}`));
      conn.subscribe("p", () => {}, { presence: true });
      await r.until(() => told.includes(`join p ${me!.id}`), "its own join");
      expect(await conn.presence("p")).to.deep.equal([{ token: me!.id, connections: 1 }]);
      const other = sigil.connect({ token: peer!.token });
      open.push(other);
      other.subscribe("p", () => {});
      await r.until(() => told.includes(`join p ${peer!.id}`), "the peer's join");
      // The service drops this connection alone; the client comes back and subscribes again, with presence.
      for (const [, s] of node.server.io.of("/").sockets) if (s.data.tokenId === me!.id) s.disconnect(true);
      await r.readyCount(2);
      await r.until(() => told.filter((l) => l === `join p ${me!.id}`).length === 2, "its join after the reconnection");
      other.close();
      await r.until(() => told.includes(`leave p ${peer!.id}`), "the peer's leave");
      // (Its own leave, when it was dropped, reaches it only if it came back before the node told it.)
      expect(told.filter((l) => l !== `leave p ${me!.id}`)).to.deep.equal([
        `join p ${me!.id}`,
        `join p ${peer!.id}`,
        `join p ${me!.id}`,
        `leave p ${peer!.id}`,
      ]);
      const refused = await conn.presence("not-mine").catch((err: unknown) => err);
      expect(refused).to.have.property("code", "forbidden");
    });

    it("When a channel has more members than presence lists, then presence(channel) lists the first 1,000 and says the total", async function () {
      this.timeout(30_000);
      const me = await node.server.customTokens.create({ app: APP, channels: ["crowd", "empty"] });
      const conn = sigil.connect({ token: me.token });
      open.push(conn);
      // Another node's members, written as a node writes them: at most 1,000 a call, the first one full.
      const members = Array.from({ length: 1500 }, (_, i) => ({
        channel: "crowd",
        member: `t:tok-${String(i).padStart(4, "0")}` as const,
        count: 1,
      }));
      for (let i = 0; i < members.length; i += 1000)
        await node.opened.store.presence.sync("another-node", APP, members.slice(i, i + 1000), {
          full: i === 0,
          leaseMs: 60_000,
        });
      try {
        const crowd = await conn.presence("crowd");
        expect(crowd.total).to.equal(1500);
        expect(crowd).to.have.length(1000);
        expect(crowd[0]).to.deep.equal({ token: "tok-0000", connections: 1 });
        const few = await conn.presence("empty");
        expect([few.length, few.total]).to.deep.equal([0, 0]);
      } finally {
        await node.opened.store.presence.drop("another-node", APP);
      }
    });

    it("When a channel is refused, then subscribe:error says why and the channel is dropped", async () => {
      const conn = connect();
      const errors: Array<{ channel: string; code: string }> = [];
      conn.on("subscribe:error", (e) => errors.push({ channel: e.channel, code: e.error.code }));
      conn.subscribe("not-mine", () => {});
      conn.subscribe("bad name", () => {});
      await record(conn).until(() => errors.length >= 2, "two refusals");
      expect(errors).to.deep.include({ channel: "not-mine", code: "forbidden" });
      expect(errors).to.deep.include({ channel: "bad name", code: "invalid_request" });
      expect(conn.lastMessageId("not-mine")).to.equal(undefined);
    });
  },
  oneBackend("lmdb"),
);
