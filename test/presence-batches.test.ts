// What presence costs the store (docs/realtime.md#presence, "What it costs"): the node's changes of
// one tick go to the store in one call per app, at most 1,000 entries a call, never two calls of
// one app at once. The domain
// use case (domain/presence.ts) over each real store, its calls to the store counted on the way.
import { expect } from "chai";
import { Presence } from "../src/domain/presence.js";
import type { PresenceCount, Store } from "../src/store/port.js";
import { describeStoreContract } from "./support/backends.js";
import { waitFor } from "./support/wait.js";

interface Call {
  app: string;
  entries: number;
  full: boolean;
}

describeStoreContract("Presence's writes to the store", (backend) => {
  let store: Store;
  let calls: Call[];
  let inFlight: number;
  let most: number;
  beforeEach(async () => {
    const real = (await backend.startNode()).opened.store;
    calls = [];
    inFlight = 0;
    most = 0;
    // The store, its presence writes counted (and how many were under way at once).
    const presence: Store["presence"] = {
      async sync(node: string, app: string, counts: PresenceCount[], opts: { full: boolean; leaseMs: number }) {
        calls.push({ app, entries: counts.length, full: opts.full });
        most = Math.max(most, ++inFlight);
        try {
          return await real.presence.sync(node, app, counts, opts);
        } finally {
          inFlight--;
        }
      },
      members: (...args) => real.presence.members(...args),
      drop: (...args) => real.presence.drop(...args),
    };
    store = new Proxy(real, { get: (t, p, r) => (p === "presence" ? presence : Reflect.get(t, p, r)) });
  });
  const open: Presence[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
  });
  const presenceOf = (heartbeatMs = 60_000) => {
    const p = new Presence({ store, heartbeatMs });
    open.push(p);
    return p;
  };

  it("When 50 sockets of two apps subscribe in one tick, then the store gets one call per app", async () => {
    const p = presenceOf();
    for (let i = 0; i < 50; i++) p.add(i % 2 ? "app-a" : "app-b", `ch-${i % 5}`, { token: `t${i % 7}` });
    // app-a's ch-1: sockets 1, 11, 21, 31 and 41, of tokens t1, t4, t0, t3 and t6.
    expect(await p.members("app-a", "ch-1")).to.deep.equal({
      members: ["t0", "t1", "t3", "t4", "t6"].map((token) => ({ token, connections: 1 })),
      total: 5,
    });
    expect((await p.members("app-b", "ch-0")).members).to.have.length(5);
    // The tick's flush has come by now, and found nothing left to write.
    await new Promise((r) => setImmediate(r));
    expect(calls.map((c) => c.app).sort()).to.deep.equal(["app-a", "app-b"]);
  });

  it("When 2,500 entries change in one tick, then they go in calls of at most 1,000, one at a time, and all of them count", async () => {
    const p = presenceOf();
    for (let i = 0; i < 2500; i++) p.add("app", `ch-${i % 50}`, { token: `t${i}` });
    const members = await waitFor("the last of the 2,500 written", async () => {
      const { members: m } = await p.members("app", "ch-49");
      return m.length === 50 && m;
    });
    expect(members.every((m) => m.connections === 1)).to.equal(true);
    expect(calls.map((c) => c.entries)).to.deep.equal([1000, 1000, 500]);
    expect(calls.map((c) => c.full)).to.deep.equal([true, false, false]);
    expect(most, "calls of one app under way at once").to.equal(1);
  });
});
