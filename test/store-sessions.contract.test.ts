// The per-user session index of the SessionStore port (src/store/ports/sessions.ts): listForUser and
// destroyForUser, one contract on both stores.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { SessionOwner, Store } from "../src/store/port.js";
import { embeddedDump } from "./support/embedded.js";

const owner = (userId: string, seen: number, extra: Partial<SessionOwner> = {}): SessionOwner => ({
  userId,
  createdAt: 1000,
  lastSeenAt: seen,
  userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0",
  address: "192.0.2.7",
  create: true,
  ...extra,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeStoreContract("Store contract: sessions per user", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  it("When a user signs in from two browsers, then both are listed (most recently seen first), and no one else's", async () => {
    await store.sessions.set("s1", '{"a":1}', 60, owner("u1", 2000));
    await store.sessions.set("s2", '{"a":2}', 60, owner("u1", 3000, { userAgent: "curl/8", address: "198.51.100.1" }));
    await store.sessions.set("s3", '{"a":3}', 60, owner("u2", 4000));
    await store.sessions.set("anon", '{"c":1}', 60);
    const list = await store.sessions.listForUser("u1");
    expect(list.map((s) => s.sid)).to.deep.equal(["s2", "s1"]);
    expect(list[0]).to.include({
      userId: "u1",
      createdAt: 1000,
      lastSeenAt: 3000,
      userAgent: "curl/8",
      address: "198.51.100.1",
    });
    expect(list[0]!.expiresAt).to.be.within(Date.now() + 58_000, Date.now() + 61_000);
    expect((await store.sessions.listForUser("u2")).map((s) => s.sid)).to.deep.equal(["s3"]);
    expect(await store.sessions.listForUser("nobody")).to.deep.equal([]);
  });

  it("When a session is written again, then its entry follows (last seen), and a write never brings back an ended session", async () => {
    await store.sessions.set("s1", '{"a":1}', 60, owner("u1", 2000));
    await store.sessions.set("s1", '{"a":2}', 60, owner("u1", 9000, { create: false }));
    expect((await store.sessions.listForUser("u1")).map((s) => s.lastSeenAt)).to.deep.equal([9000]);
    await store.sessions.destroy("s1");
    // A "last seen" save that lost the race with the sign-out: nothing comes back.
    await store.sessions.set("s1", '{"a":3}', 60, owner("u1", 9999, { create: false }));
    expect(await store.sessions.get("s1")).to.equal(null);
    expect(await store.sessions.listForUser("u1")).to.deep.equal([]);
  });

  it("When sessions end (destroy with or without the user, or their TTL), then they leave the list", async () => {
    await store.sessions.set("s1", "{}", 60, owner("u1", 1));
    await store.sessions.set("s2", "{}", 60, owner("u1", 2));
    await store.sessions.set("s3", "{}", 1, owner("u1", 3));
    await store.sessions.destroy("s1"); // cleanup on read
    await store.sessions.destroy("s2", "u1"); // at once
    expect((await store.sessions.listForUser("u1")).map((s) => s.sid)).to.deep.equal(["s3"]);
    await sleep(1100);
    expect(await store.sessions.listForUser("u1")).to.deep.equal([]);
    if (backend.redis) expect(backend.redis.cli("KEYS", "*sessions-of*")).to.equal("");
  });

  it("When sessions end and no one reads the list, then the index lets them go too", async () => {
    await store.sessions.set("s1", "{}", 1, owner("u1", 1));
    await store.sessions.set("s2", "{}", 60, owner("u2", 1));
    await store.sessions.destroy("s2");
    await sleep(1100);
    if (!backend.redis) {
      // The index entry of u1 ended with its session; u2's goes on the next read or at its end.
      expect(
        embeddedDump(store)
          .split("\n")
          .filter((l) => l.startsWith("user-sessions ") && l.includes('"u1"')),
      ).to.deep.equal([]);
    }
    if (backend.redis) {
      // The index of u1 expired with its last session; u2's entry goes on the next read.
      expect(backend.redis.cli("KEYS", "*sessions-of:{u1}*")).to.equal("");
    }
  });

  it("When the index is on Redis, then it expires with the user's last session", async function () {
    if (!backend.redis) this.skip();
    await store.sessions.set("s1", "{}", 30, owner("u1", 1));
    await store.sessions.set("s2", "{}", 90, owner("u1", 2));
    await store.sessions.set("s3", "{}", 10, owner("u1", 3));
    const keys = backend.redis.cli("KEYS", "*sessions-of*").split("\n").filter(Boolean);
    expect(keys).to.have.length(1);
    expect(Number(backend.redis.cli("TTL", keys[0]!))).to.be.within(85, 90);
  });

  it("When a user's sessions are ended but one, then only that one is left and the others' ids come back; then all", async () => {
    for (const sid of ["s1", "s2", "s3"]) await store.sessions.set(sid, "{}", 60, owner("u1", 1));
    await store.sessions.set("t1", "{}", 60, owner("u2", 1));
    expect((await store.sessions.destroyForUser("u1", "s2")).sort()).to.deep.equal(["s1", "s3"]);
    expect(await store.sessions.get("s1")).to.equal(null);
    expect(await store.sessions.get("s3")).to.equal(null);
    expect(await store.sessions.get("s2")).to.equal("{}");
    expect((await store.sessions.listForUser("u1")).map((s) => s.sid)).to.deep.equal(["s2"]);
    expect(await store.sessions.destroyForUser("u1")).to.deep.equal(["s2"]);
    expect(await store.sessions.destroyForUser("u1")).to.deep.equal([]);
    expect(await store.sessions.listForUser("u1")).to.deep.equal([]);
    expect(await store.sessions.get("t1")).to.equal("{}");
    if (backend.redis) expect(backend.redis.cli("KEYS", "*sessions-of:{u1}*")).to.equal("");
  });

  it("When 50 sign-outs everywhere run at once, then each session is ended (and returned) once in all", async () => {
    for (let i = 0; i < 20; i++) await store.sessions.set(`s${i}`, "{}", 60, owner("u1", i));
    const counts = await Promise.all(Array.from({ length: 50 }, () => store.sessions.destroyForUser("u1")));
    const ended = counts.flat().sort();
    expect(ended).to.deep.equal(Array.from({ length: 20 }, (_, i) => `s${i}`).sort());
    expect(await store.sessions.listForUser("u1")).to.deep.equal([]);
    for (let i = 0; i < 20; i++) expect(await store.sessions.get(`s${i}`)).to.equal(null);
  });
});
