// The passkeys part of the store port: one contract, both stores. Credential ids are unique
// across users; a user sees and changes only their own; removal is final (a late update does not
// bring a passkey back); removeForUser leaves nothing (account deletion); a ceremony's challenge
// is taken once, even by 50 takers at once, and expires.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { PasskeyRecord, Store } from "../src/store/port.js";

const passkey = (id: string, userId: string, createdAt = Date.now()): PasskeyRecord => ({
  id,
  userId,
  name: `key ${id}`,
  publicKey: "pk",
  counter: 0,
  transports: ["internal"],
  deviceType: "singleDevice",
  backedUp: false,
  createdAt,
});

describeStoreContract("Store contract: passkeys", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  it("When passkeys are added, then each credential id belongs to one user, listed oldest first, and only its owner changes or removes it", async () => {
    expect(await store.passkeys.add(passkey("b", "u1", 2))).to.equal(true);
    expect(await store.passkeys.add(passkey("a", "u1", 1))).to.equal(true);
    expect(await store.passkeys.add(passkey("a", "u2", 3))).to.equal(false);
    expect(await store.passkeys.add(passkey("c", "u2", 3))).to.equal(true);
    expect((await store.passkeys.listForUser("u1")).map((p) => p.id)).to.deep.equal(["a", "b"]);
    expect((await store.passkeys.byId("a"))?.userId).to.equal("u1");
    expect(await store.passkeys.byId("nope")).to.equal(null);
    expect(await store.passkeys.update("u2", "a", (p) => ({ ...p, name: "theirs" }))).to.equal(null);
    expect(await store.passkeys.remove("u2", "a")).to.equal(false);
    expect(
      await store.passkeys.update("u1", "a", (p) => ({
        ...p,
        id: "z",
        userId: "u2",
        name: "mine",
        counter: 5,
        lastUsedAt: 9,
      })),
    ).to.include({ id: "a", userId: "u1", name: "mine", counter: 5 });
    expect(await store.passkeys.byId("a")).to.include({ name: "mine", counter: 5, lastUsedAt: 9 });
    expect(await store.passkeys.remove("u1", "a")).to.equal(true);
    expect(await store.passkeys.remove("u1", "a")).to.equal(false);
    expect(await store.passkeys.byId("a")).to.equal(null);
    // Removed is removed: a late update (a sign-in finishing) does not revive it; the id is free.
    expect(await store.passkeys.update("u1", "a", (p) => ({ ...p, name: "late" }))).to.equal(null);
    expect(await store.passkeys.byId("a")).to.equal(null);
    expect(await store.passkeys.add(passkey("a", "u2"))).to.equal(true);
  });

  it("When one passkey is renamed and used 50 times at once (each use counts from what it reads), then no change is lost", async () => {
    expect(await store.passkeys.add(passkey("a", "u1", 1))).to.equal(true);
    const uses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2
          ? store.passkeys.update("u1", "a", (p) => ({ ...p, name: `Laptop ${i}` }))
          : store.passkeys.update("u1", "a", (p) => ({ ...p, counter: p.counter + 1, lastUsedAt: i })),
      ),
    );
    expect(uses.every((p) => p !== null)).to.equal(true);
    const after = (await store.passkeys.byId("a"))!;
    expect(after.counter).to.equal(25);
    expect(after.name).to.match(/^Laptop \d+$/);
    expect(after.lastUsedAt).to.be.a("number");
  });

  it("When a user's passkeys are all removed (account deletion), then none is left, by user or by id, and others keep theirs", async () => {
    for (const id of ["x", "y", "z"]) await store.passkeys.add(passkey(id, "gone"));
    await store.passkeys.add(passkey("w", "stays"));
    expect(await store.passkeys.removeForUser("gone")).to.equal(3);
    expect(await store.passkeys.listForUser("gone")).to.deep.equal([]);
    for (const id of ["x", "y", "z"]) expect(await store.passkeys.byId(id)).to.equal(null);
    expect((await store.passkeys.listForUser("stays")).map((p) => p.id)).to.deep.equal(["w"]);
    if (backend.redis) {
      const keys = backend.redis.cli("--scan").split("\n").filter(Boolean);
      expect(keys.filter((k) => k.includes("gone") || /passkey-owner:\{[xyz]\}/.test(k))).to.deep.equal([]);
    }
  });

  it("When 50 take one challenge at once, then one gets its state and 49 get nothing; an expired one is gone", async () => {
    await store.passkeys.saveChallenge("ch1", '{"kind":"signin"}', 60);
    const taken = await Promise.all(Array.from({ length: 50 }, () => store.passkeys.takeChallenge("ch1")));
    expect(taken.filter((t) => t !== null)).to.deep.equal(['{"kind":"signin"}']);
    await store.passkeys.saveChallenge("ch2", "{}", 1);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await store.passkeys.takeChallenge("ch2")).to.equal(null);
  });
});
