// The device authorization part of the store port (src/store/ports/device-codes.ts): one contract,
// every store.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { DeviceCodeRecord, Store } from "../src/store/port.js";
import { embeddedDump } from "./support/embedded.js";
import { redisDump } from "./support/redis.js";

describeStoreContract("Store contract: device codes", (backend) => {
  let store: Store;
  let rec: DeviceCodeRecord;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
    rec = { clientId: "c1", scope: ["openid", "profile"], expiresAt: Date.now() + 60_000 };
  });
  const dump = () => (backend.redis ? redisDump(backend.redis) : embeddedDump(store));
  const approval = { userId: "u1", authTime: 1_700_000_000, amr: ["pwd"], sid: "sid-of-the-approval" };

  it("When a request is made, then its user code finds it; a second request with the same user code is refused", async () => {
    expect(await store.deviceCodes.create("d1", "u-code", rec, 5, 120)).to.equal(true);
    expect(await store.deviceCodes.create("d2", "u-code", rec, 5, 120)).to.equal(false);
    expect(await store.deviceCodes.pending("u-code")).to.deep.equal({ deviceHash: "d1", record: rec });
    expect(await store.deviceCodes.pending("other")).to.equal(null);
    expect(await store.deviceCodes.poll("d2", "c1", Date.now())).to.deep.equal({ kind: "unknown" });
    expect(await store.deviceCodes.poll("d1", "c2", Date.now())).to.deep.equal({ kind: "unknown" });
  });

  it("When the device polls before the interval is over, then slow_down and the interval grows by 5 s each time", async () => {
    await store.deviceCodes.create("d1", "uc", rec, 5, 120);
    const t = Date.now();
    expect(await store.deviceCodes.poll("d1", "c2", t)).to.deep.equal({ kind: "unknown" }); // another app's counts for nothing
    expect(await store.deviceCodes.poll("d1", "c1", t)).to.deep.equal({ kind: "pending" });
    expect(await store.deviceCodes.poll("d1", "c1", t + 4_000)).to.deep.equal({ kind: "slow_down", interval: 10 });
    expect(await store.deviceCodes.poll("d1", "c1", t + 13_000)).to.deep.equal({ kind: "slow_down", interval: 15 });
    expect(await store.deviceCodes.poll("d1", "c1", t + 28_000)).to.deep.equal({ kind: "pending" });
  });

  it("When the user approves, then one poll of 50 at once takes it and the user code works no more", async () => {
    await store.deviceCodes.create("d1", "uc", rec, 5, 120);
    expect(await store.deviceCodes.decide("uc", approval)).to.equal(true);
    expect(await store.deviceCodes.decide("uc", null)).to.equal(false);
    expect(await store.deviceCodes.pending("uc")).to.equal(null);
    expect(dump()).to.include(approval.sid);
    const now = Date.now();
    const polls = await Promise.all(Array.from({ length: 50 }, () => store.deviceCodes.poll("d1", "c1", now)));
    const approved = polls.filter((p) => p.kind === "approved");
    expect(approved).to.deep.equal([{ kind: "approved", record: rec, approval }]);
    expect(polls.filter((p) => p.kind !== "approved").map((p) => p.kind)).to.deep.equal(Array(49).fill("taken"));
    // Once taken, the record names the user no more.
    expect(dump()).to.not.include(approval.sid);
  });

  it("When 50 decisions are sent at once, then exactly one lands", async () => {
    await store.deviceCodes.create("d1", "uc", rec, 5, 120);
    const tries = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.deviceCodes.decide("uc", i % 2 ? null : { userId: `u${i}` })),
    );
    expect(tries.filter(Boolean)).to.have.length(1);
  });

  it("When the user denies, then every poll hears denied", async () => {
    await store.deviceCodes.create("d1", "uc", rec, 5, 120);
    expect(await store.deviceCodes.decide("uc", null)).to.equal(true);
    expect(await store.deviceCodes.poll("d1", "c1", Date.now())).to.deep.equal({ kind: "denied" });
    expect(await store.deviceCodes.poll("d1", "c1", Date.now())).to.deep.equal({ kind: "denied" });
  });

  it("When the request has expired, then the user code finds nothing, no decision lands and the device hears expired", async () => {
    await store.deviceCodes.create("d1", "uc", { ...rec, expiresAt: Date.now() + 300 }, 5, 120);
    await store.deviceCodes.create("d2", "uc2", { ...rec, expiresAt: Date.now() + 300 }, 5, 120);
    await store.deviceCodes.decide("uc2", approval);
    await new Promise((r) => setTimeout(r, 400)); // past expiresAt: time itself is what is tested
    expect(await store.deviceCodes.pending("uc")).to.equal(null);
    expect(await store.deviceCodes.decide("uc", approval)).to.equal(false);
    expect(await store.deviceCodes.poll("d1", "c1", Date.now())).to.deep.equal({ kind: "expired" });
    expect(await store.deviceCodes.poll("d2", "c1", Date.now())).to.deep.equal({ kind: "expired" });
  });

  it("When an account is deleted, then the requests it approved and no poll took are gone; others stay", async () => {
    await store.deviceCodes.create("d1", "uc1", rec, 5, 120);
    await store.deviceCodes.create("d2", "uc2", rec, 5, 120);
    await store.deviceCodes.create("d3", "uc3", rec, 5, 120);
    await store.deviceCodes.decide("uc1", approval);
    await store.deviceCodes.decide("uc2", { ...approval, userId: "u2", sid: "sid-of-another" });
    expect(dump()).to.include(approval.sid);
    await store.deviceCodes.forgetUser(approval.userId);
    expect(dump()).to.not.include(approval.sid);
    expect(await store.deviceCodes.poll("d1", "c1", Date.now())).to.deep.equal({ kind: "unknown" });
    expect((await store.deviceCodes.poll("d2", "c1", Date.now())).kind).to.equal("approved");
    expect(await store.deviceCodes.pending("uc3")).to.not.equal(null);
  });

  it("When an app is deleted, then its requests and their user codes are gone, another app's stay", async () => {
    const other = { ...rec, clientId: "app-other-than-c1" };
    await store.deviceCodes.create("d1", "uc1", { ...rec, clientId: "app-being-deleted" }, 5, 120);
    await store.deviceCodes.create("d2", "uc2", { ...rec, clientId: "app-being-deleted" }, 5, 120);
    await store.deviceCodes.create("d3", "uc3", other, 5, 120);
    await store.deviceCodes.decide("uc2", approval);
    await store.deviceCodes.forgetApp("app-being-deleted");
    expect(dump()).to.not.include("app-being-deleted");
    expect(dump()).to.not.include("d2"); // nor the user's index of what they approved
    expect(dump()).to.not.include(approval.sid);
    expect(await store.deviceCodes.pending("uc1")).to.equal(null);
    expect(await store.deviceCodes.pending("uc3")).to.deep.equal({ deviceHash: "d3", record: other });
  });
});
