// The grant part of the store port (refresh chains, revocation, public origins): one contract,
// both stores. What only the store can show quickly: marks keep their lifetime when a grant is
// revoked, so a grant's refresh tokens stay revoked as long as they could live.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { AppRecord, CodeRecord, RefreshRecord, Store } from "../src/store/port.js";
import { embeddedDump } from "./support/embedded.js";
import { redisDump } from "./support/redis.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const code = (userId: string, clientId: string): CodeRecord => ({
  clientId,
  redirectUri: "https://a.example/cb",
  redirectUriGiven: true,
  userId,
  scope: ["offline_access"],
});
const chain = (grantId: string, clientId = "app1", untilMs = Date.now() + 60_000): RefreshRecord => ({
  grantId,
  userId: "u1",
  clientId,
  scope: ["profile", "offline_access"],
  grantExpiresAt: untilMs,
});

const app = (clientId: string, uris: string[], pub: boolean): AppRecord => ({
  clientId,
  ownerId: "o",
  name: clientId,
  redirectUris: uris,
  secretHash: pub ? "" : "ab",
  ...(pub ? { public: true } : {}),
  createdAt: 1,
});

describeStoreContract("Store contract: grants", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
    // Grants are kept only for apps that exist (GrantStore).
    for (const clientId of ["app1", "app2"]) await store.apps.create(app(clientId, ["https://a.example/cb"], false));
  });

  /** A code saved under a consent and taken: the start of a grant. */
  async function taken(grantId: string, user = "u1", client = "app1") {
    await store.grants.grantConsent(user, client);
    expect(await store.grants.saveCode(grantId, code(user, client), 60, 600)).to.equal(true);
    expect((await store.grants.takeCode(grantId, 1)).kind).to.equal("first");
  }

  it("When a refresh token rotates, then the next one works, the old one is reused and that revokes the grant", async () => {
    await taken("g1");
    expect(await store.grants.startRefresh("r1", chain("g1"), Date.now())).to.equal(true);
    const r = await store.grants.rotateRefresh("r1", "app1", "r2", Date.now());
    expect(r.kind).to.equal("rotated");
    expect((await store.grants.refreshToken("r2", "app1"))!.active).to.equal(true);
    // A rotated token keeps only its grant (what reuse detection needs).
    expect(await store.grants.refreshToken("r1", "app1")).to.deep.equal({ active: false, grantId: "g1" });
    expect((await store.grants.rotateRefresh("r1", "app1", "r3", Date.now())).kind).to.equal("reused");
    expect((await store.grants.rotateRefresh("r2", "app1", "r4", Date.now())).kind).to.equal("revoked");
    expect(await store.grants.refreshToken("r3", "app1")).to.equal(null);
  });

  it("When another client presents a refresh token, then it is unknown to it and left as it was", async () => {
    await taken("g1");
    await store.grants.startRefresh("r1", chain("g1"), Date.now());
    expect((await store.grants.rotateRefresh("r1", "app2", "r2", Date.now())).kind).to.equal("unknown");
    expect(await store.grants.refreshToken("r1", "app2")).to.equal(null);
    expect((await store.grants.rotateRefresh("r1", "app1", "r2", Date.now())).kind).to.equal("rotated");
  });

  it("When one token is rotated 50 times at once, then exactly one call rotates and the grant ends", async () => {
    await taken("g1");
    await store.grants.startRefresh("r1", chain("g1"), Date.now());
    const all = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.grants.rotateRefresh("r1", "app1", `n${i}`, Date.now())),
    );
    expect(all.filter((r) => r.kind === "rotated")).to.have.length(1);
    expect(all.filter((r) => r.kind === "reused" || r.kind === "revoked")).to.have.length(49);
    const winner = all.findIndex((r) => r.kind === "rotated");
    expect((await store.grants.refreshToken(`n${winner}`, "app1"))!.active).to.equal(false);
  });

  it("When a grant is revoked (replay, withdrawal, revokeGrant), then the mark outlives the short mark TTL; when a grant ends, its tokens are gone", async () => {
    for (const [g, revoke] of [
      ["g1", () => store.grants.takeCode("g1", 1)],
      ["g2", () => store.grants.withdrawConsent("u2", "app1", 1)],
      ["g3", () => store.grants.revokeGrant("g3", 1)],
    ] as const) {
      await taken(g, g === "g2" ? "u2" : "u1");
      expect(await store.grants.startRefresh(`${g}-r`, chain(g), Date.now())).to.equal(true);
      await revoke();
    }
    await taken("g4");
    await store.grants.startRefresh("g4-r", chain("g4", "app1", Date.now() + 1000), Date.now());
    await sleep(1200);
    for (const g of ["g1", "g2", "g3"]) {
      expect((await store.grants.rotateRefresh(`${g}-r`, "app1", `${g}-n`, Date.now())).kind, g).to.equal("revoked");
    }
    expect((await store.grants.rotateRefresh("g4-r", "app1", "g4-n", Date.now())).kind).to.equal("unknown");
  });

  it("When a grant was revoked before its chain starts, then startRefresh saves nothing", async () => {
    await taken("g1");
    await store.grants.revokeGrant("g1", 60);
    expect(await store.grants.startRefresh("r1", chain("g1"), Date.now())).to.equal(false);
    expect(await store.grants.refreshToken("r1", "app1")).to.equal(null);
  });

  it("When every grant of a user is revoked, then codes and chains end under every consent, and the consents stay", async () => {
    await taken("g1", "u1", "app1");
    await taken("g2", "u1", "app2");
    await store.grants.grantConsent("u1", "app1");
    await store.grants.saveCode("c3", code("u1", "app1"), 60, 600);
    await store.grants.startRefresh("r1", chain("g1"), Date.now());
    await store.grants.startRefresh("r2", chain("g2", "app2"), Date.now());
    await taken("g9", "u9", "app1");
    await store.grants.startRefresh("r9", { ...chain("g9"), userId: "u9" }, Date.now());
    await store.grants.revokeUserGrants("u1", 60);
    expect((await store.grants.rotateRefresh("r1", "app1", "x", Date.now())).kind).to.equal("revoked");
    expect((await store.grants.rotateRefresh("r2", "app2", "y", Date.now())).kind).to.equal("revoked");
    expect((await store.grants.takeCode("c3", 60)).kind).to.equal("revoked");
    expect((await store.grants.consents("u1")).sort()).to.deep.equal(["app1", "app2"]);
    expect((await store.grants.rotateRefresh("r9", "app1", "z", Date.now())).kind).to.equal("rotated");
  });

  it("When an app is deleted, then forgetApp removes every user's consent, scopes, codes and tokens of it, other apps' stay, and later writes for it keep nothing", async () => {
    await taken("g1", "u1", "app1");
    expect(await store.grants.startRefresh("r1", chain("g1"), Date.now())).to.equal(true);
    expect((await store.grants.rotateRefresh("r1", "app1", "r2", Date.now())).kind).to.equal("rotated");
    expect(await store.grants.saveToken("t1", { userId: "u1", clientId: "app1", codeHash: "g1" }, 60)).to.equal(true);
    expect(await store.consentScopes.set("u1", "app1", ["openid", "offline_access"])).to.equal(true);
    expect(await store.grants.grantConsent("u2", "app1")).to.equal(true);
    expect(await store.grants.saveCode("c2", code("u2", "app1"), 60, 600)).to.equal(true);
    await taken("g5", "u1", "app2");
    await store.grants.startRefresh("r5", chain("g5", "app2"), Date.now());
    await store.grants.saveToken("t5", { userId: "u1", clientId: "app2", codeHash: "g5" }, 60);

    await store.apps.delete("app1");
    await store.grants.forgetApp("app1");
    expect(await store.grants.consents("u1")).to.deep.equal(["app2"]);
    expect(await store.grants.consents("u2")).to.deep.equal([]);
    expect(await store.consentScopes.get("u1", "app1")).to.equal(null);
    for (const r of ["r1", "r2"]) expect(await store.grants.refreshToken(r, "app1"), r).to.equal(null);
    expect(await store.grants.token("t1", "app1")).to.equal(null);
    expect((await store.grants.takeCode("c2", 60)).kind).to.equal("unknown");
    expect((await store.grants.rotateRefresh("r2", "app1", "r3", Date.now())).kind).to.equal("unknown");
    // Nothing is kept for the deleted app from here on.
    expect(await store.grants.grantConsent("u3", "app1")).to.equal(false);
    expect(await store.grants.consents("u3")).to.deep.equal([]);
    expect(await store.consentScopes.set("u3", "app1", ["profile"])).to.equal(false);
    expect(await store.consentScopes.get("u3", "app1")).to.equal(null);
    expect(await store.grants.saveToken("t2", { userId: "u1", clientId: "app1", codeHash: "g1" }, 60)).to.equal(false);
    expect(await store.grants.token("t2", "app1")).to.equal(null);
    // The other app's grant is untouched; forgetting twice is harmless.
    expect((await store.grants.refreshToken("r5", "app2"))!.active).to.equal(true);
    expect(await store.grants.token("t5", "app2")).to.not.equal(null);
    await store.grants.forgetApp("app1");
    if (!backend.redis) expect(embeddedDump(store)).to.not.include('"app1"');
    if (backend.redis) {
      const left = redisDump(backend.redis)
        .split("\n")
        .filter((l) => ["app1", "{g1}", "{r1}", "{r2}", "{r3}", ":t1", ":t2", "{c2}"].some((n) => l.includes(n)));
      expect(left).to.deep.equal([]);
    }
  });

  it("When 50 writes for an app (tokens, chains, rotations, codes, consents) run while it is deleted, then nothing of it is left", async () => {
    const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // Five rounds, the deletion starting at another moment of the writes each time.
    for (let round = 0; round < 5; round++) {
      const app1 = `gone-${round}`;
      const x = (name: string) => `${name}-r${round}`;
      await store.apps.create(app(app1, ["https://a.example/cb"], false));
      const n = 10;
      for (let i = 0; i < n; i++) await taken(x(`grant-${i}`), `user-${i}`, app1); // chains to start
      for (let i = 0; i < n; i++) {
        await taken(x(`live-${i}`), `user-${i}`, app1);
        const rec = { ...chain(x(`live-${i}`), app1), userId: `user-${i}` };
        expect(await store.grants.startRefresh(x(`ref-${i}`), rec, Date.now())).to.equal(true);
      }
      const writes: Array<() => Promise<unknown>> = [];
      for (let i = 0; i < n; i++) {
        const u = `user-${i}`;
        writes.push(
          () => store.grants.saveToken(x(`tok-${i}`), { userId: u, clientId: app1, codeHash: x(`live-${i}`) }, 60),
          () => store.grants.startRefresh(x(`first-${i}`), { ...chain(x(`grant-${i}`), app1), userId: u }, Date.now()),
          () => store.grants.rotateRefresh(x(`ref-${i}`), app1, x(`next-${i}`), Date.now()),
          () => store.grants.saveCode(x(`code-${i}`), code(u, app1), 60, 600),
          () =>
            i % 2
              ? store.grants.grantConsent(x(`late-${i}`), app1)
              : store.consentScopes.set(x(`late-${i}`), app1, ["profile"]),
        );
      }
      await Promise.all([
        later(round * 2).then(async () => {
          await store.apps.delete(app1);
          await store.grants.forgetApp(app1);
        }),
        ...writes.map((w, i) => later(i % 10).then(w)),
      ]);
      if (!backend.redis) expect(embeddedDump(store), app1).to.not.include(`"${app1}"`);
      for (let i = 0; i < n; i++) expect(await store.grants.consents(`user-${i}`)).to.not.include(app1);
      if (backend.redis) {
        const left = redisDump(backend.redis)
          .split("\n")
          .filter((l) => l.includes(app1) || l.includes(`-r${round}`));
        expect(left, app1).to.deep.equal([]);
      }
    }
  });

  it("When public and confidential apps are created and deleted, then publicOriginKnown follows the public ones", async () => {
    await store.apps.create(app("p1", ["https://spa.example/cb", "http://127.0.0.1:8080/cb"], true));
    await store.apps.create(app("p2", ["https://spa.example/other"], true));
    await store.apps.create(app("c1", ["https://server.example/cb"], false));
    expect(await store.apps.publicOriginKnown("https://spa.example")).to.equal(true);
    expect(await store.apps.publicOriginKnown("http://127.0.0.1")).to.equal(true);
    expect(await store.apps.publicOriginKnown("https://server.example")).to.equal(false);
    await store.apps.delete("p1");
    expect(await store.apps.publicOriginKnown("https://spa.example")).to.equal(true);
    expect(await store.apps.publicOriginKnown("http://127.0.0.1")).to.equal(false);
    await store.apps.delete("p2");
    expect(await store.apps.publicOriginKnown("https://spa.example")).to.equal(false);
  });

  it("When a public app's redirect URLs are updated, then publicOriginKnown follows the new ones", async () => {
    const before = app("p1", ["https://old.example/cb"], true);
    await store.apps.create(before);
    await store.apps.create(app("p2", ["https://shared.example/cb"], true));
    await store.apps.update("p1", (a) => ({
      ...a,
      redirectUris: ["https://new.example/cb", "https://shared.example/x"],
    }));
    expect(await store.apps.publicOriginKnown("https://old.example")).to.equal(false);
    expect(await store.apps.publicOriginKnown("https://new.example")).to.equal(true);
    await store.apps.update("p1", (a) => ({ ...a, redirectUris: ["https://new.example/cb"] }));
    expect(await store.apps.publicOriginKnown("https://shared.example")).to.equal(true); // still p2's
    await store.apps.update("p1", (a) => ({ ...a, public: false }) as AppRecord);
    expect(await store.apps.publicOriginKnown("https://new.example")).to.equal(false);
    expect((await store.apps.get("p1"))?.clientId).to.equal("p1");
  });
});
