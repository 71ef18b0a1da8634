// DeliveryStore (src/store/ports/deliveries.ts): the queue of webhook and back-channel logout
// deliveries, taken by one node at a time under a lease, and each app's list of attempts; one
// contract, every store.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { Delivery, DeliveryAttempt, Store } from "../src/store/port.js";

const T0 = 1_800_000_000_000;

const delivery = (id: string, dueAt: number, app = "app1"): Delivery => ({
  id,
  app,
  kind: "webhook",
  type: "user.deleted",
  sub: "sealed-sub",
  body: "sealed-body",
  attempts: 0,
  createdAt: T0,
  dueAt,
});

const attempt = (n: number): DeliveryAttempt => ({
  id: `d${n}`,
  kind: "webhook",
  type: "session.ended",
  url: "https://a.example/hook",
  at: T0 + n,
  attempt: 1,
  status: 500,
  ms: 3,
  outcome: "retrying",
});

describeStoreContract("Store contract: the delivery queue", (backend) => {
  let store: Store;
  beforeEach(async () => {
    // The node's own sender looks at the queue once at start, then not for a minute.
    store = (await backend.startNode({ DELIVERY_POLL: "60000" })).opened.store;
  });

  const ids = (ds: Delivery[]) => ds.map((d) => d.id);

  it("When deliveries are queued, then a take gets those due, soonest first, each leased; complete forgets one, retry makes it due at its new time", async () => {
    await store.deliveries.enqueue([delivery("b", T0 + 20), delivery("a", T0 + 10), delivery("later", T0 + 1000)]);
    expect(ids(await store.deliveries.take(T0 + 5, 10, 500)), "none due yet").to.deep.equal([]);
    const taken = await store.deliveries.take(T0 + 100, 10, 500);
    expect(ids(taken)).to.deep.equal(["a", "b"]);
    expect(taken[0]).to.deep.equal(delivery("a", T0 + 10));
    expect(ids(await store.deliveries.take(T0 + 200, 10, 500)), "leased").to.deep.equal([]);
    // The lease runs out (the node died mid-send): due again, for another taker.
    expect(ids(await store.deliveries.take(T0 + 700, 1, 500))).to.deep.equal(["a"]);

    await store.deliveries.complete("b");
    await store.deliveries.complete("b"); // idempotent
    await store.deliveries.retry({ ...delivery("a", T0 + 5000), attempts: 1 });
    expect(ids(await store.deliveries.take(T0 + 1100, 10, 500))).to.deep.equal(["later"]);
    await store.deliveries.complete("later");
    const again = await store.deliveries.take(T0 + 5000, 10, 500);
    expect(again).to.deep.equal([{ ...delivery("a", T0 + 5000), attempts: 1 }]);
    await store.deliveries.complete("a");
    expect(await store.deliveries.take(T0 + 100_000, 10, 500)).to.deep.equal([]);
  });

  it("When 50 takes run at once over 30 due deliveries, then each is taken exactly once", async () => {
    const all = Array.from({ length: 30 }, (_, i) => delivery(`d${String(i).padStart(2, "0")}`, T0 + i));
    await store.deliveries.enqueue(all);
    const takes = await Promise.all(Array.from({ length: 50 }, () => store.deliveries.take(T0 + 100, 3, 10_000)));
    const got = takes.flatMap(ids);
    expect(got.toSorted()).to.deep.equal(ids(all));
  });

  it("When attempts are recorded, then an app's list keeps the newest 20, newest first, apart from other apps'; forgetting the app empties it", async () => {
    for (let n = 1; n <= 25; n++) await store.deliveries.record("app1", attempt(n), 20);
    await store.deliveries.record("app2", attempt(99), 20);
    const list = await store.deliveries.recent("app1");
    expect(list.map((a) => a.id)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `d${25 - i}`));
    expect(list[0]).to.deep.equal(attempt(25));
    await store.deliveries.forgetApp("app1");
    expect(await store.deliveries.recent("app1")).to.deep.equal([]);
    expect((await store.deliveries.recent("app2")).map((a) => a.id)).to.deep.equal(["d99"]);
  });
});
