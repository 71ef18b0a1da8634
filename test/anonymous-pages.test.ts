// docs/http-api.md#pages: visiting a page without signing in keeps no state in the store (anonymous forms
// carry a stateless CSRF token), so anonymous traffic cannot grow it; the store holds a session
// only once someone signs in, under a new id. Every form's token is bound to its browser's cookie.
import { expect } from "chai";
import { embeddedDump } from "./support/embedded.js";
import { describeBackends, type Backend } from "./support/backends.js";
import { http } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, csrfOf, registerApp } from "./support/pages.js";

const PASSWORD = "correct horse battery";

/** How many entries the store holds: Redis keys, or the embedded store's records. */
function storeSize(backend: Backend, node: TestNode): number {
  if (backend.redis) return Number(backend.redis.cli("DBSIZE"));
  return embeddedDump(node.opened.store).split("\n").filter(Boolean).length;
}

/** Runs `count` calls of `fn`, `width` at a time. */
async function inParallel(count: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

describeBackends("Anonymous visits keep no state in the store", (backend) => {
  let node: TestNode;
  let base: string;
  beforeEach(async () => {
    node = await backend.startNode();
    base = node.url;
  });

  it("When 3,000 anonymous pages are viewed, then the store holds as many entries as before", async function () {
    this.timeout(120_000);
    const dev = new PageClient(base);
    await dev.signUp("devon", PASSWORD);
    const app = await registerApp(dev);
    const authorize = `/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: app.redirectUri, state: "s" })}`;
    // The sign-up's and the app's audit records are written a moment after their requests.
    await node.server.services.audit.settled();
    const before = storeSize(backend, node);
    expect(before).to.be.above(0);
    const paths = ["/signin", "/signup", authorize];
    // Most visitors come without cookies; some come back with the cookie of their last visit.
    const returning = new PageClient(base);
    await inParallel(3000, 8, async (i) => {
      const path = paths[i % 3]!;
      const r = i % 10 === 0 ? await returning.get(path) : await http(base, path);
      expect(r.status, `${path}: ${r.text.slice(0, 200)}`).to.be.oneOf([200, 303]);
    });
    expect(storeSize(backend, node)).to.equal(before);
  });

  it("When an anonymous page is viewed, then its form works and only a signed CSRF cookie was set", async () => {
    await new PageClient(base).signUp("alice", PASSWORD);
    const c = new PageClient(base);
    const page = await c.get("/signin");
    expect([...c.cookies.keys()]).to.deep.equal(["sigil.csrf"]);
    const cookie = String(page.headers["set-cookie"]);
    expect(cookie).to.match(/HttpOnly/i);
    expect(cookie).to.match(/SameSite=Lax/i);
    expect(cookie).to.not.match(/Secure/i);
    const r = await c.post("/signin", { _csrf: csrfOf(page.text), username: "alice", password: PASSWORD });
    expect(r.status).to.equal(303);
    expect(c.cookies.has("sigil.sid")).to.equal(true);
    expect((await c.get("/account")).status).to.equal(200);
  });

  it("When a form's token is sent with another browser's cookie, or with none, then it is refused with 403", async () => {
    await new PageClient(base).signUp("alice", PASSWORD);
    const a = new PageClient(base);
    const b = new PageClient(base);
    const tokenA = csrfOf((await a.get("/signin")).text);
    const tokenB = csrfOf((await b.get("/signin")).text);
    expect(tokenA).to.not.equal(tokenB);
    expect((await b.post("/signin", { _csrf: tokenA, username: "alice", password: PASSWORD })).status).to.equal(403);
    expect((await a.post("/signin", { _csrf: tokenB, username: "alice", password: PASSWORD })).status).to.equal(403);
    expect(
      (await new PageClient(base).post("/signin", { _csrf: tokenA, username: "alice", password: PASSWORD })).status,
    ).to.equal(403);
    // A cookie made up by hand is not a token Sigil signed.
    const forged = new PageClient(base);
    forged.cookies.set("sigil.csrf", "0".repeat(64) + ".abc");
    expect(
      (await forged.post("/signin", { _csrf: "0".repeat(64) + ".abc", username: "alice", password: PASSWORD })).status,
    ).to.equal(403);
    // Each token still works with its own cookie.
    expect((await a.post("/signin", { _csrf: tokenA, username: "alice", password: PASSWORD })).status).to.equal(303);
  });

  it("When a signed-in user's form token is sent with another user's cookies, then it is refused with 403", async () => {
    const alice = new PageClient(base);
    await alice.signUp("alice", PASSWORD);
    const bob = new PageClient(base);
    await bob.signUp("bob", PASSWORD);
    const aliceToken = csrfOf((await alice.get("/account")).text);
    expect((await bob.post("/account", { _csrf: aliceToken, display_name: "Not Bob" })).status).to.equal(403);
    expect((await alice.post("/account", { _csrf: aliceToken, display_name: "Alice L" })).status).to.equal(303);
  });

  it("When someone signs in, then the session gets a new id, whatever session id the browser held", async () => {
    await new PageClient(base).signUp("alice", PASSWORD);
    const c = new PageClient(base);
    c.cookies.set("sigil.sid", "s%3Aplanted-by-an-attacker.x");
    const first = await c.submit("/signin", "/signin", { username: "alice", password: PASSWORD });
    expect(first.status).to.equal(303);
    const sid1 = c.cookies.get("sigil.sid");
    expect(sid1).to.be.a("string").and.not.equal("s%3Aplanted-by-an-attacker.x");
    // Signing in again (as someone already signed in) issues another id and ends the old one.
    const again = await c.submit("/signin", "/signin", { username: "alice", password: PASSWORD });
    expect(again.status).to.equal(303);
    const sid2 = c.cookies.get("sigil.sid");
    expect(sid2).to.be.a("string").and.not.equal(sid1);
    const old = new PageClient(base);
    old.cookies.set("sigil.sid", sid1!);
    expect((await old.get("/account")).status, "the old session").to.equal(303);
  });
});
