// docs/upstream-providers.md#github: "Continue with GitHub" (kind github) against a stand-in that
// speaks GitHub's OAuth 2.0 and user API as GitHub documents them (test/support/github-fake.ts), on
// every store: the account is linked to GitHub's numeric id, named after the login, with the
// verified primary address; a code traded with another PKCE verifier or a forged state makes
// nothing; GitHub down gives its page.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { FakeGitHub } from "./support/github-fake.js";
import { PageClient, csrfOf, decodeHtml } from "./support/pages.js";

async function press(c: PageClient): Promise<string> {
  const html = (await c.get("/signin")).text;
  expect(html).to.include("Continue with GitHub");
  const r = await c.post("/upstream/gh?return_to=%2Faccount", { _csrf: csrfOf(html) });
  expect(r.status, r.text.slice(0, 300)).to.equal(303);
  return String(r.headers.location);
}

describeBackends("Upstream providers: Continue with GitHub", function (backend) {
  this.timeout(20_000);
  let gh: FakeGitHub;
  let node: TestNode;
  beforeEach(async () => {
    gh = await FakeGitHub.start();
    node = await backend.startNode(gh.env());
  });
  afterEach(() => gh.stop().catch(() => undefined));

  it("When someone continues with GitHub, then an account linked to their GitHub id is made, named after their login, with their verified primary address on the link", async () => {
    const c = new PageClient(node.url);
    const back = await gh.authorize(await press(c));
    const r = await c.get(back.pathname + back.search);
    expect(r.status, r.text.slice(0, 300)).to.equal(303);
    const user = (await node.opened.store.accounts.byUsername("octocat"))!;
    expect(user.displayName).to.equal("The Octocat");
    expect(await node.opened.store.upstreamLinks.byIdentity(gh.url, "583231")).to.include({
      userId: user.id,
      email: "octocat@github.example",
      upstream: "gh",
    });
    expect(decodeHtml((await c.get("/account")).text)).to.include("GitHub: octocat@github.example");
    // Renamed at GitHub: still the same account (the id is the identity, not the login).
    gh.who = { ...gh.who, login: "octo-renamed" };
    const again = new PageClient(node.url);
    const back2 = await gh.authorize(await press(again));
    expect((await again.get(back2.pathname + back2.search)).status).to.equal(303);
    expect((await node.opened.store.accounts.list({ limit: 10 })).map((u) => u.username)).to.deep.equal(["octocat"]);
  });

  it("When an account made through GitHub confirms it's them through GitHub, then the proof holds: it may set a password", async () => {
    const c = new PageClient(node.url);
    const back = await gh.authorize(await press(c));
    expect((await c.get(back.pathname + back.search)).status).to.equal(303);
    const html = (await c.get("/account")).text;
    const start = await c.post("/upstream/gh?confirm=1&return_to=%2Faccount", { _csrf: csrfOf(html) });
    expect(start.status, start.text.slice(0, 300)).to.equal(303);
    const there = await gh.authorize(String(start.headers.location));
    const confirmed = await c.get(there.pathname + there.search);
    expect(confirmed.status).to.equal(303);
    expect(confirmed.headers.location).to.equal("/account");
    const set = await c.post("/account/password", { _csrf: csrfOf(html), new_password: "a brand new password" });
    expect(set.status, set.text.slice(0, 300)).to.equal(200);
    expect((await node.opened.store.accounts.byUsername("octocat"))!.passwordHash).to.not.equal("");
  });

  it("When the callback's state is forged or the code is traded with another verifier, then the page says it could not be trusted and nothing is made", async () => {
    const c = new PageClient(node.url);
    const back = await gh.authorize(await press(c));
    back.searchParams.set("state", "forged");
    const r = await c.get(back.pathname + back.search);
    expect(r.status).to.equal(400);
    expect(decodeHtml(r.text)).to.include("could not be trusted");
    // The verifier is Sigil's alone: a code GitHub issued for another flow's challenge fails the trade.
    const d = new PageClient(node.url);
    const other = await gh.authorize(await press(new PageClient(node.url)));
    const mine = await gh.authorize(await press(d));
    mine.searchParams.set("code", other.searchParams.get("code")!);
    const r2 = await d.get(mine.pathname + mine.search);
    expect(r2.status).to.equal(400);
    expect(await node.opened.store.accounts.list({ limit: 10 })).to.deep.equal([]);
  });

  it("When GitHub is down, then the page says it cannot be reached and nothing is made", async () => {
    const c = new PageClient(node.url);
    const back = await gh.authorize(await press(c));
    await gh.stop();
    const r = await c.get(back.pathname + back.search);
    expect(r.status).to.equal(502);
    expect(decodeHtml(r.text)).to.include("cannot be reached now");
    expect(await node.opened.store.accounts.list({ limit: 10 })).to.deep.equal([]);
  });
});
