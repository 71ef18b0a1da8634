// One contract, every store: presence (src/store/ports/presence.ts). Nodes hand the store their
// counts per (channel, member); the store sums them over the nodes whose lease runs, reaps the
// others, and tells the feed when a member's total leaves 0 (join) or comes back to it (leave),
// once each, whatever the number of nodes and calls at once. The embedded store serves one node,
// but it keeps the same contract, so nothing above the port depends on the backend.
import { expect } from "chai";
import type { FeedMessage, PresenceCount, Store } from "../src/store/port.js";
import { describeStoreContract } from "./support/backends.js";
import { sleep, waitFor } from "./support/wait.js";

type Told = Extract<FeedMessage, { type: "presence" }>;
const LONG = 60_000;
const full = { full: true, leaseMs: LONG };
const part = { full: false, leaseMs: LONG };
const count = (channel: string, member: string, n: number): PresenceCount => ({ channel, member, count: n });

describeStoreContract("Store contract: presence", (backend) => {
  let store: Store;
  let heard: Told[];
  let markers = 0;
  beforeEach(async () => {
    const node = await backend.startNode();
    store = node.opened.store;
    heard = [];
    await node.opened.realtime.feed.subscribe((m) => {
      if (m.type === "presence") heard.push(m);
    });
  });
  const line = (m: Told) => `${m.joined ? "join" : "leave"} ${m.app}/${m.channel} ${m.member}`;

  /**
   * What the feed told before a marker (a member joining a channel of its own after everything the
   * test expects): the feed tells changes in order, so this is all it told, without a sleep.
   */
  async function toldBefore(): Promise<string[]> {
    const member = `t:marker-${++markers}`;
    await store.presence.sync("marker-node", "marker-app", [count("m", member, 1)], part);
    return waitFor(
      "the marker's join on the feed",
      () => {
        const i = heard.findIndex((m) => m.member === member);
        return i >= 0 && heard.slice(0, i).map(line);
      },
      { seen: () => heard.map(line).join(", ") },
    );
  }

  const members = (app: string, channel: string, node = "reader") => store.presence.members(app, channel, node);
  const sorted = <T extends { member: string }>(xs: T[]) => [...xs].sort((a, b) => a.member.localeCompare(b.member));

  it("When two nodes count members of a channel, then members sums them, each member joins once, and leaves once its last count is 0", async () => {
    expect(await store.presence.sync("n1", "app", [count("ch", "t:a", 2), count("ch", "u:b", 1)], full)).to.deep.equal({
      lost: false,
      held: true,
    });
    expect(await store.presence.sync("n2", "app", [count("ch", "t:a", 1)], full)).to.deep.equal({
      lost: false,
      held: true,
    });
    expect(sorted(await members("app", "ch"))).to.deep.equal([
      { member: "t:a", connections: 3 },
      { member: "u:b", connections: 1 },
    ]);
    expect(await members("app", "other")).to.deep.equal([]);
    expect(await members("other-app", "ch")).to.deep.equal([]);
    // Counts are absolute: the same sync twice changes nothing.
    await store.presence.sync("n1", "app", [count("ch", "t:a", 1)], part);
    await store.presence.sync("n1", "app", [count("ch", "t:a", 1)], part);
    expect(sorted(await members("app", "ch"))).to.deep.equal([
      { member: "t:a", connections: 2 },
      { member: "u:b", connections: 1 },
    ]);
    expect(await store.presence.sync("n1", "app", [count("ch", "t:a", 0), count("ch", "u:b", 0)], part)).to.deep.equal({
      lost: false,
      held: false,
    });
    expect(await members("app", "ch")).to.deep.equal([{ member: "t:a", connections: 1 }]);
    await store.presence.sync("n2", "app", [count("ch", "t:a", 0)], part);
    expect(await members("app", "ch")).to.deep.equal([]);
    expect(await toldBefore()).to.deep.equal([
      "join app/ch t:a",
      "join app/ch u:b",
      "leave app/ch u:b",
      "leave app/ch t:a",
    ]);
  });

  it("When a node's lease ends, then the next call on the app reaps it (its members leave), and the node's next partial sync says it was lost", async () => {
    await store.presence.sync("dying", "app", [count("ch", "t:a", 2), count("ch2", "t:a", 1)], {
      full: true,
      leaseMs: 150,
    });
    await store.presence.sync("alive", "app", [count("ch", "t:b", 1)], full);
    // A node's own call renews its own lease rather than reaping it.
    await sleep(250);
    expect(await store.presence.sync("dying", "app", [], part)).to.deep.equal({ lost: false, held: true });
    await store.presence.sync("dying", "app", [], { full: false, leaseMs: 150 });
    await sleep(250);
    // Any other node's call reaps it: a read, here.
    expect(await members("app", "ch")).to.deep.equal([{ member: "t:b", connections: 1 }]);
    expect(await members("app", "ch2")).to.deep.equal([]);
    expect(await store.presence.sync("dying", "app", [count("ch", "t:a", 2)], part)).to.deep.equal({
      lost: true,
      held: true,
    });
    // It sends everything again: back as it was.
    await store.presence.sync("dying", "app", [count("ch", "t:a", 2), count("ch2", "t:a", 1)], full);
    expect(sorted(await members("app", "ch"))).to.deep.equal([
      { member: "t:a", connections: 2 },
      { member: "t:b", connections: 1 },
    ]);
    expect(await toldBefore()).to.deep.equal([
      "join app/ch t:a",
      "join app/ch2 t:a",
      "join app/ch t:b",
      "leave app/ch t:a",
      "leave app/ch2 t:a",
      "join app/ch t:a",
      "join app/ch2 t:a",
    ]);
  });

  it("When a full sync leaves out entries the node had, then they are gone", async () => {
    await store.presence.sync("n1", "app", [count("a", "t:x", 1), count("b", "t:x", 3)], full);
    await store.presence.sync("n1", "app", [count("b", "t:x", 1)], full);
    expect(await members("app", "a")).to.deep.equal([]);
    expect(await members("app", "b")).to.deep.equal([{ member: "t:x", connections: 1 }]);
    expect(await toldBefore()).to.deep.equal(["join app/a t:x", "join app/b t:x", "leave app/a t:x"]);
  });

  it("When a node drops an app, then its members leave at once and the other nodes' stay", async () => {
    await store.presence.sync("n1", "app", [count("ch", "t:a", 1), count("ch", "t:b", 4)], full);
    await store.presence.sync("n2", "app", [count("ch", "t:b", 1)], full);
    await store.presence.drop("n1", "app");
    await store.presence.drop("never-there", "app");
    expect(await members("app", "ch")).to.deep.equal([{ member: "t:b", connections: 1 }]);
    expect(await toldBefore()).to.deep.equal(["join app/ch t:a", "join app/ch t:b", "leave app/ch t:a"]);
  });

  it("When 50 nodes count one member at once, then it joins once with 50 connections, and when all 50 go at once it leaves once", async () => {
    const nodes = Array.from({ length: 50 }, (_, i) => `n${i}`);
    await Promise.all(nodes.map((n) => store.presence.sync(n, "app", [count("ch", "t:a", 1)], full)));
    expect(await members("app", "ch")).to.deep.equal([{ member: "t:a", connections: 50 }]);
    await Promise.all(
      nodes.map((n, i) =>
        i % 2 ? store.presence.drop(n, "app") : store.presence.sync(n, "app", [count("ch", "t:a", 0)], part),
      ),
    );
    expect(await members("app", "ch")).to.deep.equal([]);
    expect(await toldBefore()).to.deep.equal(["join app/ch t:a", "leave app/ch t:a"]);
  });
});
