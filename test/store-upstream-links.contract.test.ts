// The upstream links part of the store port: one contract, every store. An identity at an
// upstream (issuer, sub) is linked to one account only, even when 50 sign-ins through it link at
// once; a user sees and unlinks only their own; removeForUser leaves nothing (account deletion);
// unlinkUnlessLast and PasskeyStore.removeUnlessLast never remove an account's last link or passkey,
// even when its last two are removed 50 times at once — here and on a Redis Cluster.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import { describeOnCluster } from "./support/on-cluster.js";
import type { PasskeyRecord, Store, UpstreamLinkRecord } from "../src/store/port.js";

const ISSUER = "https://sso.corp.example/realms/staff";
const passkey = (id: string, userId: string): PasskeyRecord => ({
  id,
  userId,
  name: "Laptop",
  publicKey: "AQID",
  counter: 0,
  deviceType: "multiDevice",
  backedUp: true,
  createdAt: 1,
});

/** u1's last two links (a, b) unlinked 50 times at once, 25 each: one is left. */
async function unlinkLastTwoAtOnce(store: Store): Promise<void> {
  await store.upstreamLinks.link(link("a", "u1", 1));
  await store.upstreamLinks.link(link("b", "u1", 2));
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => store.upstreamLinks.unlinkUnlessLast("u1", ISSUER, i % 2 ? "a" : "b")),
  );
  expect(results.filter((r) => r === "removed")).to.have.length(1);
  expect(results.filter((r) => r === "removed" || r === "last" || r === "unknown")).to.have.length(50);
  const left = await store.upstreamLinks.listForUser("u1");
  expect(left).to.have.length(1);
  const gone = left[0]!.subject === "a" ? "b" : "a";
  expect(await store.upstreamLinks.byIdentity(ISSUER, gone)).to.equal(null);
  expect((await store.upstreamLinks.byIdentity(ISSUER, left[0]!.subject))?.userId).to.equal("u1");
  // The last one stays; a passkey is another way in, so then it goes.
  expect(await store.upstreamLinks.unlinkUnlessLast("u1", ISSUER, left[0]!.subject)).to.equal("last");
  expect(await store.passkeys.add(passkey("pk1", "u1"))).to.equal(true);
  expect(await store.upstreamLinks.unlinkUnlessLast("u1", ISSUER, left[0]!.subject)).to.equal("removed");
  expect(await store.upstreamLinks.listForUser("u1")).to.deep.equal([]);
  expect(await store.upstreamLinks.byIdentity(ISSUER, left[0]!.subject)).to.equal(null);
}

/** u1's last passkey and last link removed 50 times at once, 25 each (unless last): one is left. */
async function removePasskeyAndLinkAtOnce(store: Store): Promise<void> {
  await store.upstreamLinks.link(link("a", "u1", 1));
  await store.passkeys.add(passkey("pk1", "u1"));
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      i % 2 ? store.upstreamLinks.unlinkUnlessLast("u1", ISSUER, "a") : store.passkeys.removeUnlessLast("u1", "pk1"),
    ),
  );
  expect(results.filter((r) => r === "removed")).to.have.length(1);
  const links = await store.upstreamLinks.listForUser("u1");
  const passkeys = await store.passkeys.listForUser("u1");
  expect(links.length + passkeys.length).to.equal(1);
  // What is left stays; a second passkey of the user's lets the first go.
  if (passkeys.length === 1) expect(await store.passkeys.removeUnlessLast("u1", "pk1")).to.equal("last");
  else expect(await store.upstreamLinks.unlinkUnlessLast("u1", ISSUER, "a")).to.equal("last");
  await store.passkeys.add(passkey("pk2", "u1"));
  expect(await store.passkeys.removeUnlessLast("u1", "pk2")).to.equal("removed");
  expect(await store.passkeys.byId("pk2")).to.equal(null);
  expect(await store.passkeys.removeUnlessLast("u2", "pk1")).to.equal("unknown");
}

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

  it("When an account's last two links are unlinked 50 times at once (unless last), then exactly one goes; the last stays until a passkey is there", async () => {
    await unlinkLastTwoAtOnce(store);
  });

  it("When an account's last passkey and last link are removed 50 times at once (unless last), then exactly one goes", async () => {
    await removePasskeyAndLinkAtOnce(store);
  });

  it("When another user, or an identity not linked, is unlinked unless last, then nothing changes", async () => {
    // Times of their own: Date.now() twice can go back when the machine's clock is stepped.
    await store.upstreamLinks.link(link("a", "u1", 1_000));
    await store.upstreamLinks.link(link("b", "u1", 2_000));
    await store.upstreamLinks.link(link("c", "u2"));
    expect(await store.upstreamLinks.unlinkUnlessLast("u2", ISSUER, "a")).to.equal("unknown");
    expect(await store.upstreamLinks.unlinkUnlessLast("u1", ISSUER, "nope")).to.equal("unknown");
    expect(await store.upstreamLinks.unlinkUnlessLast("u2", ISSUER, "c")).to.equal("last");
    expect((await store.upstreamLinks.listForUser("u1")).map((l) => l.subject)).to.deep.equal(["a", "b"]);
    expect((await store.upstreamLinks.byIdentity(ISSUER, "c"))?.userId).to.equal("u2");
    // Another user's passkey is not this user's way in.
    await store.passkeys.add(passkey("pk2", "u1"));
    expect(await store.upstreamLinks.unlinkUnlessLast("u2", ISSUER, "c")).to.equal("last");
  });

  it("When a user's links are listed, then the oldest come first, and links of the same millisecond by issuer and subject, on every store", async () => {
    for (const [subject, at, issuer] of [
      ["z", 5_000, ISSUER],
      ["m", 3_000, ISSUER],
      ["b", 3_000, ISSUER],
      ["a", 3_000, "https://other.example"],
      ["c", 1_000, ISSUER],
    ] as const)
      await store.upstreamLinks.link(link(subject, "u1", at, issuer));
    expect((await store.upstreamLinks.listForUser("u1")).map((l) => l.subject)).to.deep.equal([
      "c",
      "a", // https://other.example comes before https://sso.corp.example
      "b",
      "m",
      "z",
    ]);
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

describeOnCluster("Upstream links on Redis Cluster", (on) => {
  it("When an account's last two links are unlinked 50 times at once (unless last), then exactly one goes (one shard per user's keys)", async () => {
    await unlinkLastTwoAtOnce((await on.freshNode()).opened.store);
  });
  it("When an account's last passkey and last link are removed 50 times at once (unless last), then exactly one goes", async () => {
    await removePasskeyAndLinkAtOnce((await on.freshNode()).opened.store);
  });
});
