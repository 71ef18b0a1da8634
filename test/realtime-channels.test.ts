// Channels on the realtime channel (docs/realtime.md#channels) through socket.io-client: subscribe
// (ack, replay after since, then live), unsubscribe, what a token may subscribe to, bad payloads,
// publishes racing a subscribe (nothing lost or sent twice between the replay and the live
// messages), delivery across nodes and the publish rate limit shared by the nodes.
import { expect } from "chai";
import type { ErrorObject, MessageEvent } from "../src/protocol.js";
import { describeBackendsWholeSuite, oneBackend } from "./support/backends.js";
import { call, readyClient, type ChannelClient, publishWith } from "./support/channel.js";
import type { TestNode } from "./support/nodes.js";

const APP = "test-app";

/** Publishes over HTTP with a CUSTOM TOKEN made with --publish; the ids. */
async function publish(node: TestNode, token: string, body: unknown): Promise<string[]> {
  const r = await publishWith(node.url, token, body);
  expect(r.status, r.text).to.equal(200);
  return r.json.ids as string[];
}

const on = (c: ChannelClient, channel: string) => c.messages.filter((m) => m.channel === channel);

function expectErrorAck(v: unknown, code: string, what: string): void {
  expect(Object.keys(v as object).sort(), what).to.deep.equal(["error", "error_description"]);
  expect((v as ErrorObject).error, what).to.equal(code);
}

describeBackendsWholeSuite("Channels on the realtime channel", (backend) => {
  let node: TestNode;
  let token: string;
  before(async () => {
    node = await backend.startNode();
    token = (await node.server.customTokens.create({ app: APP, publish: true })).token;
  });

  it("When a socket subscribes without since, then the ack says not recovered and it gets the channel's live messages (and no other channel's) until it unsubscribes", async () => {
    const c = await readyClient(node.url, { token });
    expect(await call(c, "subscribe", { channel: "live" })).to.deep.equal({ recovered: false });
    expect(await call(c, "subscribe", { channel: "marker" })).to.deep.equal({ recovered: false });
    const [id] = await publish(node, token, [
      { channel: "live", data: { n: 1 } },
      { channel: "elsewhere", data: 0 },
    ]);
    const [m] = await c.waitMessages(1);
    expect(Object.keys(m!).sort()).to.deep.equal(["at", "channel", "data", "id"]);
    expect(m).to.deep.include({ channel: "live", id, data: { n: 1 } });
    expect(new Date(m!.at).toISOString()).to.equal(m!.at);
    expect(await call(c, "unsubscribe", { channel: "live" })).to.deep.equal({});
    await publish(node, token, [
      { channel: "live", data: 2 },
      { channel: "marker", data: "after" },
    ]);
    await c.waitMessages(2);
    expect(c.messages.map((x) => x.channel)).to.deep.equal(["live", "marker"]);
  });

  it("When a socket subscribes with since, then the ack says recovered, the messages after since follow in order, then live ones; a since older than the history says not recovered", async () => {
    const ids = await publish(
      node,
      token,
      Array.from({ length: 5 }, (_, i) => ({ channel: "replay", data: i })),
    );
    const c = await readyClient(node.url, { token });
    const order: string[] = [];
    c.socket.on("message", (m: MessageEvent) => order.push(`message ${m.data as number}`));
    // A callback, not a promise: it runs as the ack arrives, so the order is the order on the wire.
    c.socket.emit("subscribe", { channel: "replay", since: ids[1]! }, (ack) =>
      order.push(`ack ${(ack as { recovered: boolean }).recovered}`),
    );
    await c.waitMessages(3);
    await publish(node, token, { channel: "replay", data: 5 });
    await c.waitMessages(4);
    expect(order[0]).to.equal("ack true");
    expect(on(c, "replay").map((m) => m.data)).to.deep.equal([2, 3, 4, 5]);
    // More than HISTORY_MAX_EVENTS later, the first id is gone: recovered false, the rest replayed.
    for (let i = 0; i < 12; i++) {
      await publish(
        node,
        token,
        Array.from({ length: 100 }, () => ({ channel: "trimmed", data: i })),
      );
    }
    const [first] = await publish(node, token, { channel: "old", data: 0 });
    const d = await readyClient(node.url, { token });
    expect(await call(d, "subscribe", { channel: "trimmed", since: "1-0" })).to.deep.equal({ recovered: false });
    expect(await call(d, "subscribe", { channel: "old", since: first })).to.deep.equal({ recovered: true });
    expect(await call(d, "subscribe", { channel: "never", since: first })).to.deep.equal({ recovered: false });
    const replayed = await d.waitMessages(1000);
    expect(replayed.length).to.be.within(1000, 1100);
  });

  it("When 50 publishes are in flight while a socket subscribes with since, then it gets every message after since exactly once, in id order", async () => {
    const [since] = await publish(node, token, { channel: "race", data: -1 });
    // 1,000 messages to replay (five pages, the socket drained between them): the 50 publishes
    // land while the replay is being read and sent.
    const before: string[] = [];
    for (let i = 0; i < 10; i++) {
      before.push(
        ...(await publish(
          node,
          token,
          Array.from({ length: 100 }, () => ({ channel: "race", data: -2 })),
        )),
      );
    }
    const c = await readyClient(node.url, { token });
    const inFlight = Array.from({ length: 50 }, (_, i) => publish(node, token, { channel: "race", data: i }));
    const ack = await call<{ recovered: boolean }>(c, "subscribe", { channel: "race", since });
    const ids = (await Promise.all(inFlight)).flat();
    expect(ack.recovered).to.equal(true);
    // A last one after everything: anything sent twice would show before it.
    const [last] = await publish(node, token, { channel: "race", data: 50 });
    const got = await c.waitMessages(1051, 10_000);
    const expected = [...before, ...ids].sort(compareIds).concat(last!);
    expect(got.map((m) => m.id)).to.deep.equal(expected);
    expect(
      got
        .map((m) => m.data as number)
        .filter((d) => d >= 0 && d < 50)
        .sort((a, b) => a - b),
    ).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
  });

  it("When a subscribe or unsubscribe payload is bad, or the token may not use the channel, then the ack is the error object and the socket stays connected", async () => {
    const limited = (await node.server.customTokens.create({ app: APP, channels: ["mine"] })).token;
    const c = await readyClient(node.url, { token: limited });
    const bad: Array<[string, unknown[], string]> = [
      ["subscribe", [], "invalid_request"],
      ["subscribe", ["mine"], "invalid_request"],
      ["subscribe", [{}], "invalid_request"],
      ["subscribe", [{ channel: "a b" }], "invalid_request"],
      ["subscribe", [{ channel: "x".repeat(129) }], "invalid_request"],
      ["subscribe", [{ channel: "mine", since: "yesterday" }], "invalid_request"],
      ["subscribe", [{ channel: "mine", since: 5 }], "invalid_request"],
      ["subscribe", [{ channel: "theirs" }], "forbidden"],
      ["unsubscribe", [{ channel: 7 }], "invalid_request"],
      ["unsubscribe", [null], "invalid_request"],
    ];
    for (const [event, args, code] of bad) {
      expectErrorAck(await call(c, event, ...args), code, `${event} ${JSON.stringify(args)}`);
    }
    expect(await call(c, "subscribe", { channel: "mine" })).to.deep.equal({ recovered: false });
    expect(await call(c, "unsubscribe", { channel: "never-subscribed" })).to.deep.equal({});
    expect(c.socket.connected).to.equal(true);
  });
});

describeBackendsWholeSuite(
  "Channels across nodes",
  (backend) => {
    let a: TestNode, b: TestNode;
    let token: string;
    before(async () => {
      [a, b] = await Promise.all([backend.startNode(), backend.startNode()]);
      token = (await a.server.customTokens.create({ app: APP, publish: true })).token;
    });

    it("When a message is published on node A, then a socket subscribed on node B gets it once, and a resume on B with since replays what A published", async () => {
      const onB = await readyClient(b.url, { token });
      expect(await call(onB, "subscribe", { channel: "x" })).to.deep.equal({ recovered: false });
      const [id] = await publish(a, token, { channel: "x", data: "from A" });
      const [m] = await onB.waitMessages(1);
      expect(m).to.deep.include({ id, data: "from A" });
      const more = await publish(a, token, [
        { channel: "x", data: 1 },
        { channel: "x", data: 2 },
      ]);
      await onB.waitMessages(3);
      const again = await readyClient(b.url, { token });
      expect(await call(again, "subscribe", { channel: "x", since: id })).to.deep.equal({ recovered: true });
      expect((await again.waitMessages(2)).map((x) => x.id)).to.deep.equal(more);
      expect(onB.messages.map((x) => x.id)).to.deep.equal([id, ...more]);
    });

    it("When an app publishes past its rate limit through two nodes, then the nodes count together: the limit is admitted in all, the excess gets 429 with Retry-After", async () => {
      // A limit of 10 per minute (settings): the 40 requests fall in one window however slow the
      // machine, so counting apart would admit 20 (10 on each node), counting together 10.
      const env = { PUBLISH_RATE_LIMIT: "10", PUBLISH_RATE_WINDOW: "60" };
      const [c, d] = await Promise.all([backend.startNode(env), backend.startNode(env)]);
      // An app of its own: the other tests' publishes count in their app's window.
      const { token } = await c.server.customTokens.create({ app: "other-app", publish: true });
      const send = (n: TestNode) => publishWith(n.url, token, { channel: "fast", data: 1 });
      const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => send(i % 2 ? c : d)));
      expect(rs.map((r) => r.status).filter((st) => st !== 200 && st !== 429)).to.deep.equal([]);
      expect(rs.filter((r) => r.status === 200)).to.have.length(10);
      const refused = rs.find((r) => r.status === 429)!;
      expect(refused.json.error).to.equal("rate_limited");
      expect(Number(refused.headers["retry-after"])).to.be.within(1, 60);
    });
  },
  oneBackend("redis"),
);

function compareIds(x: string, y: string): number {
  const [a1, a2] = x.split("-").map(Number) as [number, number];
  const [b1, b2] = y.split("-").map(Number) as [number, number];
  return a1 - b1 || a2 - b2;
}
