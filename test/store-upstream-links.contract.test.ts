// The upstream links part of the store port: one contract, every store. An identity at an
// upstream (issuer, sub) is linked to one account only, even when 50 sign-ins through it link at
// once; a user sees and unlinks only their own; removeForUser leaves nothing (account deletion).
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { Store, UpstreamLinkRecord } from "../src/store/port.js";

const ISSUER = "https://sso.corp.example/realms/staff";
const link = (subject: string, userId: string, linkedAt = Date.now(), issuer = ISSUER): UpstreamLinkRecord => ({
  upstream: "corp",
  issuer,
  subject,
  userId,
  email: `${subject}@corp.example`,
  linkedAt,
});

describeStoreContract("Store contract: upstream links", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  it("When identities are linked, then each belongs to one account, listed oldest first, and only its owner unlinks it", async () => {
    expect(await store.upstreamLinks.link(link("b", "u1", 2))).to.equal(true);
    expect(await store.upstreamLinks.link(link("a", "u1", 1))).to.equal(true);
    expect(await store.upstreamLinks.link(link("a", "u2", 3))).to.equal(false);
    // The same sub at another issuer is another identity.
    expect(await store.upstreamLinks.link(link("a", "u2", 3, "https://other.example"))).to.equal(true);
    expect((await store.upstreamLinks.listForUser("u1")).map((l) => l.subject)).to.deep.equal(["a", "b"]);
    expect(await store.upstreamLinks.byIdentity(ISSUER, "a")).to.deep.equal(link("a", "u1", 1));
    expect(await store.upstreamLinks.byIdentity(ISSUER, "nope")).to.equal(null);
    expect(await store.upstreamLinks.unlink("u2", ISSUER, "a")).to.equal(false);
    expect(await store.upstreamLinks.unlink("u1", ISSUER, "a")).to.equal(true);
    expect(await store.upstreamLinks.unlink("u1", ISSUER, "a")).to.equal(false);
    expect(await store.upstreamLinks.byIdentity(ISSUER, "a")).to.equal(null);
    expect((await store.upstreamLinks.byIdentity("https://other.example", "a"))?.userId).to.equal("u2");
    // Unlinked, the identity is free for another account.
    expect(await store.upstreamLinks.link(link("a", "u2"))).to.equal(true);
  });

  it("When 50 accounts link one identity at once, then exactly one gets it", async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.upstreamLinks.link(link("same", `u${i}`))),
    );
    expect(results.filter(Boolean)).to.have.length(1);
    const owner = `u${results.indexOf(true)}`;
    expect((await store.upstreamLinks.byIdentity(ISSUER, "same"))?.userId).to.equal(owner);
    for (let i = 0; i < 50; i++) {
      expect(await store.upstreamLinks.listForUser(`u${i}`), `u${i}`).to.have.length(`u${i}` === owner ? 1 : 0);
    }
  });

  it("When a user's links are all removed (account deletion), then none is left, by user or by identity, and others keep theirs", async () => {
    await store.upstreamLinks.link(link("a", "u1"));
    await store.upstreamLinks.link(link("b", "u1"));
    await store.upstreamLinks.link(link("c", "u2"));
    expect(await store.upstreamLinks.removeForUser("u1")).to.equal(2);
    expect(await store.upstreamLinks.listForUser("u1")).to.deep.equal([]);
    expect(await store.upstreamLinks.byIdentity(ISSUER, "a")).to.equal(null);
    expect((await store.upstreamLinks.byIdentity(ISSUER, "c"))?.userId).to.equal("u2");
    if (backend.redis) {
      const keys = backend.redis.cli("--scan").split("\n").filter(Boolean);
      expect(keys.filter((k) => /upstream.*(\{u1\}| a\}| b\})/.test(k))).to.deep.equal([]);
      expect(keys.filter((k) => k.includes("upstream"))).to.have.length(2);
    }
  });
});
