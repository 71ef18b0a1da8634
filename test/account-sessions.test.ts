// The per-user session index through the pages (docs/http-api.md#pages): signing in from two
// browsers (two cookie jars) indexes two sessions; "last seen" is written at most once a minute;
// Accounts.endSessions ends the others at once. Both stores.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, sidOf, signInAs } from "./support/pages.js";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";
const SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1";

describeBackends("Sessions per user (index)", (backend) => {
  let node: TestNode;
  beforeEach(async () => {
    node = await backend.startNode();
  });
  const userId = async (username: string) => (await node.opened.store.accounts.byUsername(username))!.id;

  it("When a user signs in from two browsers, then both sessions are indexed with browser, address and sign-in time", async () => {
    const a = new PageClient(node.url);
    const b = new PageClient(node.url);
    const before = Date.now();
    await a.signUp("sessy", "correct horse battery");
    await signInAs(b, "sessy", "correct horse battery", SAFARI);
    const list = await node.opened.store.sessions.listForUser(await userId("sessy"));
    expect(list.map((s) => s.sid).sort()).to.deep.equal([sidOf(a), sidOf(b)].sort());
    const bs = list.find((s) => s.sid === sidOf(b))!;
    expect(bs.userAgent).to.equal(SAFARI);
    expect(bs.address).to.match(/127\.0\.0\.1/);
    expect(bs.createdAt).to.be.within(Math.floor(before / 1000) * 1000, Date.now());
    expect(list[0]!.sid).to.equal(sidOf(b)); // most recently seen first
  });

  it("When a session is used again within the minute, then its last seen is not rewritten", async () => {
    const a = new PageClient(node.url);
    await a.signUp("seeny", "correct horse battery");
    const [first] = await node.opened.store.sessions.listForUser(await userId("seeny"));
    for (let i = 0; i < 5; i++) expect((await a.get("/account", { "user-agent": FIREFOX })).status).to.equal(200);
    const [after] = await node.opened.store.sessions.listForUser(await userId("seeny"));
    expect(after).to.deep.equal(first);
    expect(after!.userAgent).to.not.equal(FIREFOX);
  });

  it("When a session is used a minute or more after it was last seen, then browser, address and time are noted again", async () => {
    const a = new PageClient(node.url);
    await a.signUp("latey", "correct horse battery");
    const sid = sidOf(a);
    // As if the last note were two minutes old.
    const data = JSON.parse((await node.opened.store.sessions.get(sid))!) as { seenAt: number };
    data.seenAt = Date.now() - 120_000;
    await node.opened.store.sessions.set(sid, JSON.stringify(data), 600);
    const before = Date.now();
    expect((await a.get("/account", { "user-agent": FIREFOX })).status).to.equal(200);
    const [after] = await node.opened.store.sessions.listForUser(await userId("latey"));
    expect(after!.userAgent).to.equal(FIREFOX);
    expect(after!.lastSeenAt).to.be.at.least(before);
    expect(after!.sid).to.equal(sid);
  });

  it("When endSessions runs for a user, then every other browser is signed out at once and this one stays", async () => {
    const a = new PageClient(node.url);
    const b = new PageClient(node.url);
    const c = new PageClient(node.url);
    await a.signUp("endy", "correct horse battery");
    await signInAs(b, "endy", "correct horse battery", SAFARI);
    await signInAs(c, "endy", "correct horse battery", FIREFOX);
    const id = await userId("endy");
    expect((await node.opened.store.sessions.destroyForUser(id, sidOf(a))).sort()).to.deep.equal(
      [sidOf(b), sidOf(c)].sort(),
    );
    expect((await a.get("/account")).status).to.equal(200);
    for (const other of [b, c]) {
      const r = await other.get("/account");
      expect(r.status).to.equal(303);
      expect(r.headers.location).to.match(/^\/signin/);
    }
    expect((await node.opened.store.sessions.listForUser(id)).map((s) => s.sid)).to.deep.equal([sidOf(a)]);
  });

  it("When a browser signs out, then its session leaves the index at once", async () => {
    const a = new PageClient(node.url);
    await a.signUp("outy", "correct horse battery");
    await a.submit("/account", "/signout", {});
    expect(await node.opened.store.sessions.listForUser(await userId("outy"))).to.deep.equal([]);
    if (backend.redis) expect(backend.redis.cli("KEYS", "*sessions-of*")).to.equal("");
  });
});
