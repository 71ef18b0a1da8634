// docs/realtime.md#presence on one node, on the embedded store and on Redis, through socket.io-client:
// `presence {channel}` lists each member (a CUSTOM TOKEN by its id, never the token) with its
// connections; a `presence: true` subscription hears `join` when a member's first socket subscribes
// and `leave` when its last one goes (unsubscribe or disconnect), never for the others; only a
// token that may use the channel may ask; bad payloads ack the error object.
import { expect } from "chai";
import type { ErrorObject, PresenceEvent, PresenceResponse } from "../src/protocol.js";
import { describeBackendsWholeSuite } from "./support/backends.js";
import { call, readyClient, type ChannelClient } from "./support/channel.js";
import type { TestNode } from "./support/nodes.js";
import { waitFor } from "./support/wait.js";

const APP = "test-app";

describeBackendsWholeSuite("Presence on one node", (backend) => {
  let node: TestNode;
  before(async () => {
    node = await backend.startNode();
  });
  const newToken = (opts: { channels?: string[] } = {}) => node.server.customTokens.create({ app: APP, ...opts });
  const connect = (token: string) => readyClient(node.url, { token });
  const presence = (c: ChannelClient, channel: string) => call<PresenceResponse>(c, "presence", { channel });
  const byToken = (r: PresenceResponse) =>
    [...r.members].sort((x, y) => String(x.token).localeCompare(String(y.token)));
  /** Waits until presence, asked on `c`, says `want` (sockets that went away are seen by the node a moment later). */
  const presenceBecomes = (c: ChannelClient, channel: string, want: PresenceResponse["members"]) =>
    waitFor(`presence of ${channel} to be ${JSON.stringify(want)}`, async () => {
      const got = byToken(await presence(c, channel));
      return JSON.stringify(got) === JSON.stringify(want) && got;
    });

  /**
   * What a presence subscriber heard on `channel` before a marker token's socket joined it: the
   * node writes its changes in order and the feed tells them in order, so that is everything.
   */
  async function heardBefore(listener: ChannelClient, channel: string): Promise<string[]> {
    const marker = await newToken();
    const m = await connect(marker.token);
    expect(await call(m, "subscribe", { channel })).to.deep.equal({ recovered: false });
    const line = `join ${channel} ${marker.id}`;
    return waitFor(
      `the marker's join on ${channel}`,
      () => {
        const i = listener.presence.indexOf(line);
        return i >= 0 && listener.presence.slice(0, i);
      },
      { seen: () => listener.presence.join(", ") },
    );
  }

  it("When three sockets of two tokens subscribe, then presence lists each token by its id with its connections, to any socket that may use the channel", async () => {
    const [t1, t2] = await Promise.all([newToken(), newToken()]);
    const [a1, b1, a2, asker] = await Promise.all([t1, t1, t2, t2].map((t) => connect(t.token)));
    for (const c of [a1!, b1!, a2!])
      expect(await call(c, "subscribe", { channel: "room-1" })).to.deep.equal({ recovered: false });
    // The asker is not subscribed: being allowed to subscribe is enough.
    const ack = await presence(asker!, "room-1");
    expect(Object.keys(ack)).to.deep.equal(["members", "total"]);
    expect(ack.total).to.equal(2);
    expect(byToken(ack)).to.deep.equal(
      [
        { token: t1.id, connections: 2 },
        { token: t2.id, connections: 1 },
      ].sort((x, y) => x.token.localeCompare(y.token)),
    );
    for (const t of [t1, t2]) expect(JSON.stringify(ack)).to.not.include(t.token);
    expect(await presence(asker!, "nobody-here")).to.deep.equal({ members: [], total: 0 });
    // An unsubscribe counts at once for the node that acknowledged it; a disconnect once the node sees it.
    expect(await call(b1!, "unsubscribe", { channel: "room-1" })).to.deep.equal({});
    expect(byToken(await presence(asker!, "room-1"))).to.deep.include({ token: t1.id, connections: 1 });
    a1!.close();
    await presenceBecomes(asker!, "room-1", [{ token: t2.id, connections: 1 }]);
  });

  it("When a socket subscribes with presence: true, then it hears join for a member's first socket and leave for its last, and nothing for the others", async () => {
    const [tl, t1] = await Promise.all([newToken(), newToken()]);
    const listener = await connect(tl.token);
    const raw: PresenceEvent[] = [];
    listener.socket.on("join", (e) => raw.push(e));
    expect(await call(listener, "subscribe", { channel: "room-2", presence: true })).to.deep.equal({
      recovered: false,
    });
    const [first, second] = await Promise.all([connect(t1.token), connect(t1.token)]);
    await call(first!, "subscribe", { channel: "room-2" });
    // Changes a node makes while its last write is under way go out together, as their sum: wait
    // for this one, so the leave below is not summed with it into nothing.
    await waitFor("the join", () => listener.presence.includes(`join room-2 ${t1.id}`));
    await call(second!, "subscribe", { channel: "room-2" });
    // Started over (subscribe again): still one socket of the member.
    await call(second!, "subscribe", { channel: "room-2" });
    await call(first!, "unsubscribe", { channel: "room-2" });
    await call(second!, "unsubscribe", { channel: "room-2" });
    // Another channel's members are not this channel's.
    await call(first!, "subscribe", { channel: "room-2b" });
    expect(await heardBefore(listener, "room-2")).to.deep.equal([
      `join room-2 ${tl.id}`,
      `join room-2 ${t1.id}`,
      `leave room-2 ${t1.id}`,
    ]);
    expect(raw[0]).to.deep.equal({ channel: "room-2", token: tl.id });
  });

  it("When a subscription is started over with presence: false, then its join and leave stop; with presence: true again, they come again", async () => {
    const [tl, t1, marker] = await Promise.all([newToken(), newToken(), newToken()]);
    const listener = await connect(tl.token);
    await call(listener, "subscribe", { channel: "room-5", presence: true });
    await waitFor("its own join", () => listener.presence.includes(`join room-5 ${tl.id}`));
    expect(await call(listener, "subscribe", { channel: "room-5", presence: false })).to.deep.equal({
      recovered: false,
    });
    await call(listener, "subscribe", { channel: "room-5-control", presence: true });
    const member = await connect(t1.token);
    await call(member, "subscribe", { channel: "room-5" });
    // The marker joins another channel the listener hears, after the member joined room-5.
    const m = await connect(marker.token);
    await call(m, "subscribe", { channel: "room-5-control" });
    const line = `join room-5-control ${marker.id}`;
    const before = await waitFor("the marker's join", () => {
      const i = listener.presence.indexOf(line);
      return i >= 0 && listener.presence.slice(0, i);
    });
    expect(before).to.deep.equal([`join room-5 ${tl.id}`, `join room-5-control ${tl.id}`]);
    // Still counted all along (started over, not unsubscribed): presence says so.
    expect(byToken(await presence(listener, "room-5"))).to.deep.include({ token: tl.id, connections: 1 });
    await call(listener, "subscribe", { channel: "room-5", presence: true });
    await call(member, "unsubscribe", { channel: "room-5" });
    await waitFor("the member's leave", () => listener.presence.includes(`leave room-5 ${t1.id}`), {
      seen: () => listener.presence.join(", "),
    });
  });

  it("When a member's last socket disconnects, then a presence subscriber hears it leave", async () => {
    const [tl, t1] = await Promise.all([newToken(), newToken()]);
    const listener = await connect(tl.token);
    await call(listener, "subscribe", { channel: "room-3", presence: true });
    const gone = await connect(t1.token);
    await call(gone, "subscribe", { channel: "room-3" });
    await waitFor("the join", () => listener.presence.includes(`join room-3 ${t1.id}`));
    gone.close();
    await waitFor("the leave", () => listener.presence.includes(`leave room-3 ${t1.id}`), {
      seen: () => listener.presence.join(", "),
    });
    expect(byToken(await presence(listener, "room-3"))).to.deep.equal([{ token: tl.id, connections: 1 }]);
  });

  it("When 50 sockets of one token subscribe at once, then there is one join and 50 connections; when all 50 go at once, one leave", async function () {
    this.timeout(20_000);
    const [tl, t1] = await Promise.all([newToken(), newToken()]);
    const listener = await connect(tl.token);
    await call(listener, "subscribe", { channel: "room-4", presence: true });
    const many = await Promise.all(Array.from({ length: 50 }, () => connect(t1.token)));
    const acks = await Promise.all(many.map((c) => call(c, "subscribe", { channel: "room-4" })));
    expect(acks.every((a) => JSON.stringify(a) === '{"recovered":false}')).to.equal(true);
    expect(byToken(await presence(many[0]!, "room-4"))).to.deep.include({ token: t1.id, connections: 50 });
    for (const c of many) c.close();
    await presenceBecomes(listener, "room-4", [{ token: tl.id, connections: 1 }]);
    expect(await heardBefore(listener, "room-4")).to.deep.equal([
      `join room-4 ${tl.id}`,
      `join room-4 ${t1.id}`,
      `leave room-4 ${t1.id}`,
    ]);
  });

  it("When a channel has 2,500 members (made through the store), then presence lists the first 1,000 by member key, tokens before users, and says the total", async function () {
    this.timeout(30_000);
    const ids = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, "0")}`);
    const tokens = ids("tok-", 1200);
    const subs = ids("user-", 1300);
    const counts = [
      ...subs.toReversed().map((s) => ({ channel: "crowd", member: `u:${s}` as const, count: 1 })),
      ...tokens.toReversed().map((t) => ({ channel: "crowd", member: `t:${t}` as const, count: 2 })),
    ];
    // Another node's members, written as a node writes them: at most 1,000 a call, the first one full.
    for (let i = 0; i < counts.length; i += 1000)
      await node.opened.store.presence.sync("another-node", APP, counts.slice(i, i + 1000), {
        full: i === 0,
        leaseMs: 60_000,
      });
    const c = await connect((await newToken()).token);
    const ack = await presence(c, "crowd");
    expect(ack.total).to.equal(2500);
    expect(ack.members).to.deep.equal(tokens.slice(0, 1000).map((token) => ({ token, connections: 2 })));
    expect(JSON.stringify(ack).length).to.be.below(70_000);
    // The users are counted, and listed once the tokens leave room for them.
    await node.opened.store.presence.sync(
      "another-node",
      APP,
      tokens.slice(0, 1100).map((t) => ({ channel: "crowd", member: `t:${t}` as const, count: 0 })),
      { full: false, leaseMs: 60_000 },
    );
    const after = await presence(c, "crowd");
    expect(after.total).to.equal(1400);
    expect(after.members.map((m) => m.token ?? m.sub)).to.deep.equal([...tokens.slice(1100), ...subs.slice(0, 900)]);
    await node.opened.store.presence.drop("another-node", APP);
  });

  it("When a token may not use the channel, then presence acks forbidden; bad payloads ack invalid_request and the socket stays connected", async () => {
    const limited = await newToken({ channels: ["mine"] });
    const c = await connect(limited.token);
    const bad: Array<[string, unknown[], string]> = [
      ["presence", [{ channel: "theirs" }], "forbidden"],
      ["presence", [], "invalid_request"],
      ["presence", [null], "invalid_request"],
      ["presence", ["mine"], "invalid_request"],
      ["presence", [{}], "invalid_request"],
      ["presence", [{ channel: 5 }], "invalid_request"],
      ["presence", [{ channel: "a b" }], "invalid_request"],
      ["presence", [{ channel: "x".repeat(129) }], "invalid_request"],
      ["subscribe", [{ channel: "mine", presence: "yes" }], "invalid_request"],
      ["subscribe", [{ channel: "mine", presence: 1 }], "invalid_request"],
      ["subscribe", [{ channel: "theirs", presence: true }], "forbidden"],
    ];
    for (const [event, args, code] of bad) {
      const reply = await call<ErrorObject>(c, event, ...args);
      const what = `${event} ${JSON.stringify(args)}`;
      expect(Object.keys(reply).sort(), what).to.deep.equal(["error", "error_description"]);
      expect(reply.error, what).to.equal(code);
    }
    // None of those subscribed it.
    expect(await presence(c, "mine")).to.deep.equal({ members: [], total: 0 });
    expect(await call(c, "subscribe", { channel: "mine", presence: false })).to.deep.equal({ recovered: false });
    expect(await presence(c, "mine")).to.deep.equal({ members: [{ token: limited.id, connections: 1 }], total: 1 });
    expect(c.socket.connected).to.equal(true);
  });
});
