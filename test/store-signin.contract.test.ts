// The sign-in part of the store port (src/store/port.ts): one contract, both stores.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { AppRecord, Store, UserRecord } from "../src/store/port.js";

const user = (id: string, username: string): UserRecord => ({
  id,
  username,
  displayName: username,
  passwordHash: "x",
  createdAt: 1,
});
const app = (clientId: string, ownerId: string): AppRecord => ({
  clientId,
  ownerId,
  name: clientId,
  redirectUris: ["https://a.example/cb"],
  secretHash: "ab",
  createdAt: 1,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeStoreContract("Store contract: sign-in", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  it("When two users take one username, then only the first gets it", async () => {
    expect(await store.accounts.create(user("u1", "ann"))).to.equal(true);
    expect(await store.accounts.create(user("u2", "ann"))).to.equal(false);
    expect((await store.accounts.byUsername("ann"))!.id).to.equal("u1");
    expect(await store.accounts.byId("u2")).to.equal(null);
  });

  it("When a user is updated and a picture saved, then both read back (bytes exact)", async () => {
    await store.accounts.create(user("u1", "ann"));
    const saved = await store.accounts.update("u1", (u) => ({
      ...u,
      displayName: "Ann B",
      picture: { type: "image/png", version: 1 },
    }));
    expect(saved!.displayName).to.equal("Ann B");
    expect((await store.accounts.byId("u1"))!.displayName).to.equal("Ann B");
    const bytes = Buffer.from([0, 255, 1, 128, 10, 13]);
    await store.accounts.savePicture("u1", bytes);
    expect(Buffer.compare((await store.accounts.picture("u1"))!, bytes)).to.equal(0);
    expect(await store.accounts.picture("u2")).to.equal(null);
  });

  it("When a user is disabled and enabled again (sigil users disable|enable), then the mark reads back and goes", async () => {
    await store.accounts.create(user("u1", "ann"));
    await store.accounts.update("u1", (u) => ({ ...u, disabled: true }));
    expect((await store.accounts.byId("u1"))!.disabled).to.equal(true);
    expect((await store.accounts.byUsername("ann"))!.disabled).to.equal(true);
    await store.accounts.update("u1", ({ disabled: _, ...rest }) => rest);
    expect(await store.accounts.byId("u1")).to.deep.equal(user("u1", "ann"));
  });

  it("When one user is changed 50 times at once (each adds to what it reads), then every change lands", async () => {
    await store.accounts.create(user("u1", "ann"));
    const bump = (u: UserRecord) => ({ ...u, picture: { type: "image/png", version: (u.picture?.version ?? 0) + 1 } });
    const saved = await Promise.all(Array.from({ length: 50 }, () => store.accounts.update("u1", bump)));
    expect((await store.accounts.byId("u1"))!.picture!.version).to.equal(50);
    expect(new Set(saved.map((u) => u!.picture!.version)).size, "each call saw its own result").to.equal(50);
  });

  it("When a change leaves the record, renames it, or names no user, then nothing is written", async () => {
    await store.accounts.create(user("u1", "ann"));
    expect((await store.accounts.update("u1", () => undefined))!.displayName).to.equal("ann");
    await store.accounts.update("u1", (u) => ({ ...u, id: "u9", username: "bob", displayName: "Ann B" }));
    const after = (await store.accounts.byId("u1"))!;
    expect([after.id, after.username, after.displayName]).to.deep.equal(["u1", "ann", "Ann B"]);
    expect(await store.accounts.byId("u9")).to.equal(null);
    expect(await store.accounts.byUsername("bob")).to.equal(null);
    expect(await store.accounts.update("nobody", (u) => ({ ...u, displayName: "x" }))).to.equal(null);
    expect(await store.accounts.byId("nobody")).to.equal(null);
  });

  it("When a user is deleted 50 times at once, then one call deletes it, and its name is free again", async () => {
    await store.accounts.create(user("u1", "ann"));
    await store.accounts.savePicture("u1", Buffer.from([1, 2, 3]));
    const results = await Promise.all(Array.from({ length: 50 }, () => store.accounts.delete(user("u1", "ann"))));
    expect(results.filter(Boolean)).to.have.length(1);
    expect(await store.accounts.byId("u1")).to.equal(null);
    expect(await store.accounts.byUsername("ann")).to.equal(null);
    expect(await store.accounts.picture("u1")).to.equal(null);
    expect(await store.accounts.create(user("u2", "ann"))).to.equal(true);
    // Deleting the old record again never frees the name its new owner holds.
    expect(await store.accounts.delete(user("u1", "ann"))).to.equal(false);
    expect((await store.accounts.byUsername("ann"))!.id).to.equal("u2");
  });

  it("When a session is set, then it reads back until its TTL or destroy", async () => {
    await store.sessions.set("s1", '{"a":1}', 1);
    await store.sessions.set("s2", '{"b":2}', 60);
    expect(await store.sessions.get("s1")).to.equal('{"a":1}');
    await store.sessions.destroy("s2");
    expect(await store.sessions.get("s2")).to.equal(null);
    await sleep(1100);
    expect(await store.sessions.get("s1")).to.equal(null);
  });

  it("When apps are created, listed and deleted, then the owner's list follows", async () => {
    await store.apps.create(app("c1", "o1"));
    await store.apps.create(app("c2", "o1"));
    await store.apps.create(app("c3", "o2"));
    expect((await store.apps.listByOwner("o1")).map((a) => a.clientId).sort()).to.deep.equal(["c1", "c2"]);
    await store.apps.delete("c1");
    expect(await store.apps.get("c1")).to.equal(null);
    expect((await store.apps.listByOwner("o1")).map((a) => a.clientId)).to.deep.equal(["c2"]);
    const renamed = await store.apps.update("c2", (a) => ({ ...a, name: "renamed" }));
    expect(renamed?.name).to.equal("renamed");
    expect((await store.apps.get("c2"))!.name).to.equal("renamed");
    expect(await store.apps.update("c1", (a) => ({ ...a, name: "ghost" }))).to.equal(null);
    expect(await store.apps.get("c1")).to.equal(null);
  });

  it("When fifty changes to one app are sent at once, each adding its own redirect URL, then every one holds", async () => {
    await store.apps.create(app("c1", "o1"));
    const urls = Array.from({ length: 50 }, (_, i) => `https://app.example/cb${i}`);
    await Promise.all(
      urls.map((u) => store.apps.update("c1", (a) => ({ ...a, redirectUris: [...a.redirectUris, u] }))),
    );
    const stored = await store.apps.get("c1");
    expect(stored!.redirectUris.filter((u) => urls.includes(u)).sort()).to.deep.equal([...urls].sort());
    expect(stored!.clientId).to.equal("c1");
  });

  it("When consents are granted and withdrawn, then they are listed per user", async () => {
    await store.apps.create(app("c1", "o1"));
    await store.apps.create(app("c2", "o1"));
    await store.grants.grantConsent("u1", "c1");
    await store.grants.grantConsent("u1", "c2");
    expect(await store.grants.hasConsent("u1", "c1")).to.equal(true);
    expect(await store.grants.hasConsent("u2", "c1")).to.equal(false);
    await store.grants.withdrawConsent("u1", "c1", 120);
    expect(await store.grants.consents("u1")).to.deep.equal(["c2"]);
  });

  it("When a code is taken twice, then the second take is a replay that revokes its tokens", async () => {
    await store.apps.create(app("c", "o"));
    await store.grants.grantConsent("u", "c");
    expect(
      await store.grants.saveCode(
        "h1",
        { clientId: "c", redirectUri: "r", redirectUriGiven: true, userId: "u" },
        60,
        120,
      ),
    ).to.equal(true);
    const first = await store.grants.takeCode("h1", 120);
    expect(first.kind).to.equal("first");
    await store.grants.saveToken("t1", { userId: "u", clientId: "c", codeHash: "h1" }, 60);
    expect(await store.grants.token("t1", "c")).to.deep.equal({ userId: "u", clientId: "c", codeHash: "h1" });
    expect((await store.grants.takeCode("h1", 120)).kind).to.equal("replay");
    expect(await store.grants.token("t1", "c")).to.equal(null);
    expect((await store.grants.takeCode("nope", 120)).kind).to.equal("unknown");
  });

  it("When there is no consent, then a code is not saved", async () => {
    await store.apps.create(app("c8", "o"));
    const rec = { clientId: "c8", redirectUri: "r", redirectUriGiven: true, userId: "u8" };
    expect(await store.grants.saveCode("h8", rec, 60, 120)).to.equal(false);
    expect((await store.grants.takeCode("h8", 120)).kind).to.equal("unknown");
    await store.grants.grantConsent("u8", "c8");
    await store.grants.withdrawConsent("u8", "c8", 120);
    expect(await store.grants.saveCode("h8", rec, 60, 120)).to.equal(false);
  });

  it("When a consent is withdrawn, then its codes are revoked and the tokens issued from them refused; other grants stay", async () => {
    await store.accounts.create(user("u9", "fay"));
    await store.apps.create(app("c9", "owner"));
    await store.apps.create(app("c10", "owner"));
    const code = (clientId: string, userId = "u9") => ({ clientId, redirectUri: "r", redirectUriGiven: true, userId });
    for (const [u, c] of [
      ["u9", "c9"],
      ["u9", "c10"],
      ["u10", "c9"],
    ] as const)
      await store.grants.grantConsent(u, c);
    await store.grants.saveCode("traded", code("c9"), 60, 120);
    await store.grants.saveCode("pending", code("c9"), 60, 120);
    await store.grants.saveCode("other-app", code("c10"), 60, 120);
    await store.grants.saveCode("other-user", code("c9", "u10"), 60, 120);
    expect((await store.grants.takeCode("traded", 120)).kind).to.equal("first");
    await store.grants.saveToken("t9", { userId: "u9", clientId: "c9", codeHash: "traded" }, 60);
    expect((await store.grants.tokenUser("t9", "c9"))!.user.id).to.equal("u9");

    await store.grants.withdrawConsent("u9", "c9", 120);
    expect(await store.grants.hasConsent("u9", "c9")).to.equal(false);
    expect(await store.grants.token("t9", "c9")).to.equal(null);
    expect(await store.grants.tokenUser("t9", "c9")).to.equal(null);
    expect((await store.grants.takeCode("pending", 120)).kind).to.equal("revoked");
    expect((await store.grants.takeCode("other-app", 120)).kind).to.equal("first");
    expect((await store.grants.takeCode("other-user", 120)).kind).to.equal("first");

    // Consent again: new codes work, the old ones stay revoked; withdrawing twice is harmless.
    await store.grants.grantConsent("u9", "c9");
    expect(await store.grants.saveCode("fresh", code("c9"), 60, 120)).to.equal(true);
    expect((await store.grants.takeCode("fresh", 120)).kind).to.equal("first");
    expect(await store.grants.token("t9", "c9")).to.equal(null);
    await Promise.all([store.grants.withdrawConsent("u9", "c9", 120), store.grants.withdrawConsent("u9", "c9", 120)]);
    expect((await store.grants.takeCode("fresh", 120)).kind).to.equal("revoked");
  });

  it("When a token is read with another client id, then it is not found", async () => {
    await store.apps.create(app("c", "o"));
    await store.grants.saveToken("t4", { userId: "u", clientId: "c", codeHash: "h4" }, 60);
    expect(await store.grants.token("t4", "c")).to.deep.equal({ userId: "u", clientId: "c", codeHash: "h4" });
    expect(await store.grants.token("t4", "d")).to.equal(null);
  });

  it("When tokenUser reads a token, then it has its user until the token is revoked or its app or user is gone", async () => {
    await store.accounts.create(user("u5", "eve"));
    await store.apps.create(app("c5", "owner"));
    await store.grants.grantConsent("u5", "c5");
    expect(
      await store.grants.saveCode(
        "h5",
        { clientId: "c5", redirectUri: "r", redirectUriGiven: true, userId: "u5" },
        60,
        120,
      ),
    ).to.equal(true);
    await store.grants.takeCode("h5", 120);
    await store.grants.saveToken("t5", { userId: "u5", clientId: "c5", codeHash: "h5" }, 60);
    await store.grants.saveToken("t6", { userId: "u5", clientId: "c5", codeHash: "h6" }, 60);
    await store.grants.saveToken("t7", { userId: "nobody", clientId: "c5", codeHash: "h7" }, 60);
    const found = await store.grants.tokenUser("t5", "c5");
    expect(found).to.deep.equal({ token: { userId: "u5", clientId: "c5", codeHash: "h5" }, user: user("u5", "eve") });
    expect(await store.grants.tokenUser("t5", "c6")).to.equal(null);
    expect(await store.grants.tokenUser("unknown", "c5")).to.equal(null);
    expect(await store.grants.tokenUser("t7", "c5")).to.equal(null);
    expect((await store.grants.takeCode("h5", 120)).kind).to.equal("replay");
    expect(await store.grants.tokenUser("t5", "c5")).to.equal(null);
    expect((await store.grants.tokenUser("t6", "c5"))!.user.id).to.equal("u5");
    await store.apps.delete("c5");
    expect(await store.grants.tokenUser("t6", "c5")).to.equal(null);
  });

  it("When concurrent takes race for one code, then exactly one wins", async () => {
    await store.apps.create(app("c", "o"));
    await store.grants.grantConsent("u", "c");
    expect(
      await store.grants.saveCode(
        "h2",
        { clientId: "c", redirectUri: "r", redirectUriGiven: true, userId: "u" },
        60,
        120,
      ),
    ).to.equal(true);
    const results = await Promise.all(Array.from({ length: 10 }, () => store.grants.takeCode("h2", 120)));
    expect(results.filter((r) => r.kind === "first")).to.have.length(1);
  });

  it("When a code or token outlives its TTL, then it is gone", async () => {
    await store.apps.create(app("c", "o"));
    await store.grants.grantConsent("u", "c");
    expect(
      await store.grants.saveCode(
        "h3",
        { clientId: "c", redirectUri: "r", redirectUriGiven: false, userId: "u" },
        1,
        120,
      ),
    ).to.equal(true);
    await store.grants.saveToken("t3", { userId: "u", clientId: "c", codeHash: "hx" }, 1);
    await sleep(1100);
    expect((await store.grants.takeCode("h3", 120)).kind).to.equal("unknown");
    expect(await store.grants.token("t3", "c")).to.equal(null);
  });
});
