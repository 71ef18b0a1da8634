// The email part of the store port (src/store/ports/email.ts): one contract, both stores.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { Store } from "../src/store/port.js";

describeStoreContract("Store contract: email", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  it("When a link is taken 50 times at once, then exactly one take gets its record, and it is gone after", async () => {
    await store.email.saveLink("h1", { kind: "reset-password", userId: "u1" }, 60);
    expect(await store.email.peekLink("h1")).to.deep.equal({ kind: "reset-password", userId: "u1" });
    expect(await store.email.peekLink("h1"), "peeking leaves it").to.not.equal(null);
    const takes = await Promise.all(Array.from({ length: 50 }, () => store.email.takeLink("h1")));
    expect(takes.filter((t) => t !== null)).to.deep.equal([{ kind: "reset-password", userId: "u1" }]);
    expect(await store.email.peekLink("h1")).to.equal(null);
    expect(await store.email.takeLink("unknown")).to.equal(null);
  });

  it("When a link outlives its TTL, then neither peek nor take finds it", async () => {
    await store.email.saveLink("h2", { kind: "confirm-email", userId: "u1", email: "a@x.example" }, 1);
    expect((await store.email.peekLink("h2"))?.email).to.equal("a@x.example");
    await new Promise((r) => setTimeout(r, 1100));
    expect(await store.email.peekLink("h2")).to.equal(null);
    expect(await store.email.takeLink("h2")).to.equal(null);
  });

  it("When users are indexed under an address, then it lists each once, and unindexing removes only that one", async () => {
    await store.email.indexEmail("a@x.example", "u1");
    await store.email.indexEmail("a@x.example", "u1");
    await store.email.indexEmail("a@x.example", "u2");
    expect((await store.email.usersByEmail("a@x.example")).sort()).to.deep.equal(["u1", "u2"]);
    await store.email.unindexEmail("a@x.example", "u1");
    await store.email.unindexEmail("a@x.example", "u3");
    expect(await store.email.usersByEmail("a@x.example")).to.deep.equal(["u2"]);
    expect(await store.email.usersByEmail("b@x.example")).to.deep.equal([]);
  });

  it("When a user's links are removed, then every one of theirs is gone (short and long lived, used or not) and others' stay", async () => {
    await store.email.saveLink("c1", { kind: "confirm-email", userId: "u1", email: "a@x.example" }, 86_400);
    await store.email.saveLink("r1", { kind: "reset-password", userId: "u1", stamp: "s" }, 1800);
    await store.email.saveLink("c2", { kind: "confirm-email", userId: "u1", email: "b@x.example" }, 60);
    await store.email.saveLink("o1", { kind: "reset-password", userId: "u2", stamp: "s" }, 1800);
    expect(await store.email.takeLink("c2")).to.not.equal(null);
    await store.email.removeLinksForUser("u1");
    for (const h of ["c1", "r1", "c2"]) expect(await store.email.peekLink(h), h).to.equal(null);
    expect(await store.email.peekLink("o1")).to.deep.equal({ kind: "reset-password", userId: "u2", stamp: "s" });
    await store.email.removeLinksForUser("nobody");
  });
});
