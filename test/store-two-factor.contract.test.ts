// The two-factor part of the store port (src/store/ports/two-factor.ts): one contract, both stores.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { Store } from "../src/store/port.js";

const rec = { sealedSecret: "sealed", enabledAt: 1 };

describeStoreContract("Store contract: two-factor", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  it("When two-factor is turned on, off and on again, then the record and the codes follow", async () => {
    expect(await store.twoFactor.get("u1")).to.equal(null);
    await store.twoFactor.enable("u1", rec, ["a", "b", "c"]);
    expect(await store.twoFactor.get("u1")).to.deep.equal(rec);
    expect(await store.twoFactor.recoveryCodesLeft("u1")).to.equal(3);
    expect(await store.twoFactor.get("u2")).to.equal(null);
    await store.twoFactor.enable("u1", { ...rec, enabledAt: 2 }, ["d", "e"]);
    expect(await store.twoFactor.useRecoveryCode("u1", "a")).to.equal(false);
    expect(await store.twoFactor.recoveryCodesLeft("u1")).to.equal(2);
    expect(await store.twoFactor.disable("u1")).to.equal(true);
    expect(await store.twoFactor.disable("u1")).to.equal(false);
    expect(await store.twoFactor.get("u1")).to.equal(null);
    expect(await store.twoFactor.recoveryCodesLeft("u1")).to.equal(0);
    expect(await store.twoFactor.useRecoveryCode("u1", "d")).to.equal(false);
  });

  it("When enabling expects a state (off, or the enabledAt to replace), then it writes only in that state; 20 at once from off: one writes", async () => {
    expect(await store.twoFactor.enable("u1", rec, ["a"], { replaces: 7 })).to.equal(false);
    expect(await store.twoFactor.get("u1")).to.equal(null);
    const tries = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.twoFactor.enable("u1", { ...rec, enabledAt: 1_700_000_000_000 + i }, [`h${i}`], { replaces: null }),
      ),
    );
    expect(tries.filter(Boolean)).to.have.length(1);
    const on = (await store.twoFactor.get("u1"))!;
    expect(await store.twoFactor.enable("u1", rec, ["x"], { replaces: null })).to.equal(false);
    expect(await store.twoFactor.enable("u1", rec, ["x"], { replaces: on.enabledAt + 1 })).to.equal(false);
    expect(await store.twoFactor.get("u1")).to.deep.equal(on);
    expect(
      await store.twoFactor.enable("u1", { ...rec, enabledAt: 5 }, ["y", "z"], { replaces: on.enabledAt }),
    ).to.equal(true);
    expect(await store.twoFactor.recoveryCodesLeft("u1")).to.equal(2);
  });

  it("When the recovery codes are replaced, then only the new ones work; while off nothing is written", async () => {
    expect(await store.twoFactor.replaceRecoveryCodes("u1", ["a"])).to.equal(false);
    expect(await store.twoFactor.recoveryCodesLeft("u1")).to.equal(0);
    await store.twoFactor.enable("u1", rec, ["a", "b"]);
    expect(await store.twoFactor.replaceRecoveryCodes("u1", ["c", "d", "e"])).to.equal(true);
    expect(await store.twoFactor.useRecoveryCode("u1", "a")).to.equal(false);
    expect(await store.twoFactor.useRecoveryCode("u1", "c")).to.equal(true);
    expect(await store.twoFactor.recoveryCodesLeft("u1")).to.equal(2);
  });

  it("When one recovery code and one step are used 50 times at once, then exactly one use succeeds each", async () => {
    await store.twoFactor.enable("u1", rec, ["a", "b"]);
    const codes = await Promise.all(Array.from({ length: 50 }, () => store.twoFactor.useRecoveryCode("u1", "a")));
    expect(codes.filter(Boolean)).to.have.length(1);
    expect(await store.twoFactor.recoveryCodesLeft("u1")).to.equal(1);
    const steps = await Promise.all(Array.from({ length: 50 }, () => store.twoFactor.useStep("u1", 1000, 120)));
    expect(steps.filter(Boolean)).to.have.length(1);
    expect(await store.twoFactor.useStep("u1", 1001, 120)).to.equal(true);
    expect(await store.twoFactor.useStep("u2", 1000, 120)).to.equal(true);
  });

  it("When a used step's mark ends, then the step is usable again; turning off forgets the marks", async () => {
    expect(await store.twoFactor.useStep("u1", 7, 1)).to.equal(true);
    expect(await store.twoFactor.useStep("u1", 8, 60)).to.equal(true);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await store.twoFactor.useStep("u1", 7, 1)).to.equal(true);
    expect(await store.twoFactor.useStep("u1", 8, 60)).to.equal(false);
    await store.twoFactor.enable("u1", rec, ["a"]);
    await store.twoFactor.disable("u1");
    expect(await store.twoFactor.useStep("u1", 8, 60)).to.equal(true);
  });

  if (backend.name === "redis")
    it("When a user's two-factor is stored on Redis, then every key carries the user's hash tag, and turning off leaves none", async () => {
      const redis = backend.redis!;
      await store.twoFactor.enable("u-9", rec, ["a"]);
      await store.twoFactor.useStep("u-9", 5, 60);
      const keys = redis.cli("KEYS", "*2fa*").split(/\s+/).filter(Boolean);
      expect(keys).to.have.length(3);
      for (const k of keys) expect(k).to.contain("{u-9}");
      await store.twoFactor.disable("u-9");
      expect(redis.cli("KEYS", "*2fa*")).to.equal("");
    });
});
