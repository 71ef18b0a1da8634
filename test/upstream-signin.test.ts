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
import { decodeJwt } from "jose";
import { PageClient, authorize, basic, csrfOf, decodeHtml, person, pkce, registerApp, token } from "./support/pages.js";
import { TestUpstream, confirmThroughUpstream, continueWith, pressContinue, usersOf } from "./support/upstream-op.js";
import { englishLeft } from "./support/page-text.js";
import { LOCALES } from "../src/i18n/locales.js";

/** The audit log's failed sign-ins: [reason, method, user id]. */
async function failures(node: TestNode): Promise<Array<[unknown, unknown, unknown]>> {
  await node.server.services.audit.settled();
  const { records } = await node.server.services.audit.list({ limit: 50, order: "oldest" });
  return records.filter((r) => r.type === "signin.failed").map((r) => [r.reason, r.method, r.user_id]);
}
import { CATALOGS } from "../src/i18n/index.js";

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
    const exported = (await c.get("/account/export")).json as {
      account: { password_set: boolean };
      upstream_links: Array<Record<string, unknown>>;
    };
    expect(exported.account.password_set).to.equal(false);
    expect(exported.upstream_links).to.deep.equal([
      {
        upstream: "corp",
        issuer: up.issuer,
        subject: "u-alice",
        email: "alice@corp.example",
        linked_at: exported.upstream_links[0]!.linked_at,
      },
    ]);
    expect(await node.opened.store.upstreamLinks.byIdentity(up.issuer, "u-alice")).to.include({ userId: user.id });

    // No password was set: none signs in to it (the same "wrong" as a wrong one).
    const guess = await new PageClient(node.url).submit("/signin", "/signin", { username: "alice", password: "" });
    expect(guess.status).to.equal(401);
    const again = new PageClient(node.url);
    expect((await continueWith(again, up)).status).to.equal(303);
    expect(await usersOf(node)).to.deep.equal(["alice"]);
    await node.server.services.audit.settled();
    const audit = (await node.server.services.audit.list({ limit: 10 })).records;
    expect(audit.map((e) => `${e.type} ${e.method ?? ""}`.trim())).to.have.members([
      "signup upstream:corp",
      "signin.succeeded upstream:corp",
      "signin.failed password",
      "signin.succeeded upstream:corp",
    ]);
  });

  it("When the account made through the upstream is deleted, then its link goes with it and the identity makes a new account", async () => {
    const c = new PageClient(node.url);
    expect((await continueWith(c, up)).status).to.equal(303);
    const first = (await node.opened.store.accounts.byUsername("alice"))!;
    await node.server.services.accountLife.deleteAccount(first, "operator");
    expect(await node.opened.store.upstreamLinks.listForUser(first.id)).to.deep.equal([]);
    expect(await node.opened.store.upstreamLinks.byIdentity(up.issuer, "u-alice")).to.equal(null);
    expect((await continueWith(new PageClient(node.url), up)).status).to.equal(303);
    expect((await node.opened.store.accounts.byUsername("alice"))?.id)
      .to.be.a("string")
      .and.not.equal(first.id);
  });

  it("When a person picks each language, then the buttons, the linked identities and a failed sign-in's page are in it", async () => {
    for (const lang of LOCALES) {
      up.who = { ...up.who, sub: `u-${lang}`, preferred_username: `alice-${lang}` };
      const c = new PageClient(node.url);
      expect((await c.get(`/lang?lang=${lang}&return_to=%2Fsignin`)).status).to.equal(303);
      const pages: Array<[string, string]> = [["sign-in", (await c.get("/signin")).text]];
      pages.push(["sign-up", (await c.get("/signup")).text]);
      const back = await up.signInThere(await pressContinue(c, "/signin", "/upstream/corp", false));
      expect((await c.get(back.pathname + back.search)).status).to.equal(303);
      pages.push(["account", (await c.get("/account")).text]);
      pages.push(["replayed", (await c.get(back.pathname + back.search)).text]);
      for (const [what, html] of pages) {
        expect(html, `${lang} ${what}`).to.include(`lang="${lang}"`);
        if (lang !== "en") expect(englishLeft(html, lang), `${lang} ${what}`).to.deep.equal([]);
      }
      expect(decodeHtml(pages[3]![1])).to.include(CATALOGS[lang]["err.upstreamExpired"]);
      expect(decodeHtml(pages[0]![1])).to.include(
        CATALOGS[lang]["upstream.continueWith"].replace("{name}", "Corp SSO"),
      );
    }
  });

  it("When an app asks for an ID token of someone who came through the upstream, then its amr is fed", async () => {
    const { c: dev } = await person(node, "dev");
    const app = await registerApp(dev);
    const c = new PageClient(node.url);
    expect((await continueWith(c, up)).status).to.equal(303);
    const { verifier, challenge } = pkce();
    const back = await authorize(c, {
      response_type: "code",
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      scope: "openid",
      code_challenge: challenge,
      code_challenge_method: "S256",
      nonce: "n-1",
    });
    const t = await token(
      node.url,
      {
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: app.redirectUri,
        code_verifier: verifier,
      },
      { authorization: basic(app.clientId, app.clientSecret) },
    );
    expect(t.status, t.text).to.equal(200);
    expect(decodeJwt((t.json as { id_token: string }).id_token).amr).to.deep.equal(["fed"]);
  });

  it("When the same callback arrives 50 times at once (replayed), then one signs in, the others get a page saying to start again, and one account is made", async () => {
    const c = new PageClient(node.url);
    const back = await up.signInThere(await pressContinue(c));
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => new PageClient(node.url).get(back.pathname + back.search, { cookie })),
    );
    expect(answers.filter((r) => r.status === 303)).to.have.length(1);
    for (const r of answers.filter((a) => a.status !== 303)) {
      expect(r.status).to.equal(400);
      expect(decodeHtml(r.text)).to.include("Sign-in did not work").and.include("Start again from the sign-in page");
    }
    expect(await usersOf(node)).to.deep.equal(["alice"]);
    // Neither the code, the state nor the client secret is in a log line.
    const logs = node.logs.join("\n");
    const secrets = [
      back.searchParams.get("code")!,
      back.searchParams.get("state")!,
      up.env().UPSTREAM_CORP_CLIENT_SECRET!,
    ];
    expect(logs).to.include("/upstream/corp/callback"); // the requests are logged, by path
    for (const secret of secrets) expect(logs).to.not.include(secret);
  });

  it("When 50 browsers come back from their first sign-in through one identity at once, then one account is made, linked once, and each browser is signed in to it (or, past /signup's limit per address, told to wait)", async () => {
    const browsers = Array.from({ length: 50 }, () => new PageClient(node.url));
    const backs: URL[] = [];
    for (const b of browsers) backs.push(await up.signInThere(await pressContinue(b)));
    const answers = await Promise.all(browsers.map((b, i) => b.get(backs[i]!.pathname + backs[i]!.search)));
    // Each that found no link yet was a sign-up, counted (30 an hour per address): the rest wait.
    const signedIn = browsers.filter((_, i) => answers[i]!.status === 303);
    expect(signedIn.length).to.be.at.least(30);
    for (const r of answers.filter((a) => a.status !== 303)) expect(r.status).to.equal(429);
    expect(await usersOf(node)).to.deep.equal(["alice"]);
    const id = (await node.opened.store.accounts.byUsername("alice"))!.id;
    expect((await node.opened.store.upstreamLinks.byIdentity(up.issuer, "u-alice"))?.userId).to.equal(id);
    expect(await node.opened.store.upstreamLinks.listForUser(id)).to.have.length(1);
    for (const b of signedIn) expect(decodeHtml((await b.get("/account")).text)).to.include("alice");
    await node.server.services.audit.settled();
    const signups = (await node.server.services.audit.list({ limit: 200, types: ["signup"] })).records;
    expect(signups.map((r) => r.user_id)).to.deep.equal([id]);
  });

  it("When one address begins 60 upstream sign-ins in 5 minutes, then the 61st is a 429 page with Retry-After that keeps no flow, while another address still begins one", async () => {
    const proxied = await backend.startNode({ ...up.env(), TRUST_PROXY: "true" });
    const flows: string[] = [];
    const passkeys = proxied.opened.store.passkeys;
    const save = passkeys.saveChallenge.bind(passkeys);
    passkeys.saveChallenge = (key, state, ttl) => {
      if (key.startsWith("upstream:")) flows.push(key);
      return save(key, state, ttl);
    };
    const c = new PageClient(proxied.url);
    const csrf = csrfOf((await c.get("/signin")).text);
    const begin = (address: string) =>
      c.post("/upstream/corp?return_to=%2Faccount", { _csrf: csrf }, { "x-forwarded-for": address });
    const first = await Promise.all(Array.from({ length: 60 }, () => begin("203.0.113.7")));
    expect(first.map((r) => r.status)).to.deep.equal(Array(60).fill(303));
    expect(flows).to.have.length(60);
    const refused = await begin("203.0.113.7");
    expect(refused.status, refused.text.slice(0, 300)).to.equal(429);
    expect(refused.headers["content-type"]).to.match(/^text\/html/);
    expect(Number(refused.headers["retry-after"])).to.be.within(1, 300);
    expect(decodeHtml(refused.text)).to.include("Too many sign-ins through another service begun from this address");
    expect(refused.headers["set-cookie"] ?? []).to.deep.equal([]);
    expect(flows).to.have.length(60);
    const other = await begin("203.0.113.8");
    expect(other.status).to.equal(303);
    expect(String(other.headers.location)).to.match(new RegExp(`^${up.issuer}`));
    expect(flows).to.have.length(61);
  });

  it("When sign-up is closed, then a first sign-in through the upstream makes nothing and says to link it from an account", async () => {
    const closed = await backend.startNode({ ...up.env(), SIGNUP: "closed" });
    up.redirectUri = `${closed.url}/upstream/corp/callback`;
    const c = new PageClient(closed.url);
    const r = await continueWith(c, up);
    expect(r.status).to.equal(403);
    expect(decodeHtml(r.text)).to.include("new accounts cannot be made here now");
    expect(await usersOf(closed)).to.deep.equal([]);
    // A failed sign-in, and why, as an unknown user's password is (no account: none named).
    expect(await failures(closed)).to.deep.equal([["signup_closed", "upstream:corp", undefined]]);
  });

  it("When sign-up is limited to some email domains, then only an address the upstream says is verified, in one of them, makes an account", async () => {
    const limited = await backend.startNode({
      ...up.env(),
      SIGNUP_EMAIL_DOMAINS: "corp.example",
      SMTP_URL: "smtp://127.0.0.1:9",
      MAIL_FROM: "no-reply@sigil.example",
    });
    up.redirectUri = `${limited.url}/upstream/corp/callback`;
    for (const who of [
      { ...up.who, sub: "u-outside", email: "mallory@elsewhere.example", email_verified: true },
      { ...up.who, sub: "u-unverified", email: "mallory@corp.example", email_verified: false },
      { ...up.who, sub: "u-none", email: undefined, email_verified: undefined },
    ]) {
      up.who = who;
      const r = await continueWith(new PageClient(limited.url), up);
      expect(r.status, `${who.sub}: ${r.text.slice(0, 200)}`).to.be.within(400, 499);
      expect(decodeHtml(r.text)).to.include("corp.example");
    }
    expect(await usersOf(limited)).to.deep.equal([]);
    expect(await failures(limited)).to.deep.equal(
      Array.from({ length: 3 }, () => ["signup_domain", "upstream:corp", undefined]),
    );
    up.who = { ...up.who, sub: "u-alice", email: "alice@corp.example", email_verified: true };
    expect((await continueWith(new PageClient(limited.url), up)).status).to.equal(303);
    expect(await usersOf(limited)).to.deep.equal(["alice"]);
  });

  it("When the callback comes to a browser that did not start it, then nothing is made", async () => {
    const back = await up.signInThere(await pressContinue(new PageClient(node.url)));
    const other = await new PageClient(node.url).get(back.pathname + back.search);
    expect(other.status).to.equal(400);
    expect(decodeHtml(other.text)).to.include("Start again from the sign-in page");
    expect(await usersOf(node)).to.deep.equal([]);
  });

  for (const tamper of ["signature", "nonce"] as const) {
    it(`When the upstream's ID token is forged (${tamper === "signature" ? "signed with a key it does not publish" : "with another nonce"}), then the page says it could not be trusted and nothing is made`, async () => {
      const c = new PageClient(node.url);
      up.tamper = tamper;
      const r = await continueWith(c, up);
      expect(r.status).to.equal(400);
      expect(decodeHtml(r.text)).to.include("could not be trusted, so nothing was done");
      expect(await usersOf(node)).to.deep.equal([]);
      expect(await node.opened.store.upstreamLinks.byIdentity(up.issuer, "u-alice")).to.equal(null);
      expect((await c.get("/account")).status).to.equal(303);
    });
  }

  it("When the upstream is down (before the sign-in, or before the code is traded), then the page says it cannot be reached and nothing is made", async () => {
    const c = new PageClient(node.url);
    const location = await pressContinue(c);
    const back = await up.signInThere(location);
    await up.stop();
    const r = await c.get(back.pathname + back.search);
    expect(r.status).to.equal(502);
    expect(decodeHtml(r.text)).to.include("cannot be reached now");
    // A node that never discovered it: pressing the button says so.
    const fresh = await backend.startNode(up.env());
    const d = new PageClient(fresh.url);
    const r2 = await d.post("/upstream/corp", { _csrf: csrfOf((await d.get("/signin")).text) });
    expect(r2.status).to.equal(502);
    expect(decodeHtml(r2.text)).to.include("cannot be reached now");
    expect(await usersOf(node)).to.deep.equal([]);
  });

  it("When someone with a local account links the upstream from /account, then it signs them in to that account; an identity linked already is refused for another", async () => {
    const { c, id } = await person(node, "bob");
    let html = (await c.get("/account")).text;
    expect(html).to.include("Add Corp SSO");
    // A link adds a way in: a session alone is sent to confirm it's them first, and nothing starts.
    const unconfirmed = await c.post("/upstream/corp?link=1", { _csrf: csrfOf(html) });
    expect(unconfirmed.status).to.equal(303);
    expect(String(unconfirmed.headers.location)).to.match(/^\/confirm\?/);
    await c.confirm();
    html = (await c.get("/account")).text;
    const start = await c.post("/upstream/corp?link=1", { _csrf: csrfOf(html) });
    expect(start.status).to.equal(303);
    const back = await up.signInThere(String(start.headers.location));
    const r = await c.get(back.pathname + back.search);
    expect(r.status).to.equal(303);
    expect(r.headers.location).to.equal("/account");
    expect((await node.opened.store.upstreamLinks.byIdentity(up.issuer, "u-alice"))?.userId).to.equal(id);
    // Signing in through it now reaches bob's account: no new one.
    const later = new PageClient(node.url);
    expect((await continueWith(later, up)).status).to.equal(303);
    expect(decodeHtml((await later.get("/account")).text)).to.include("bob");
    expect(await usersOf(node)).to.deep.equal(["bob"]);
    // Carol cannot take the identity bob linked.
    const { c: carol } = await person(node, "carol");
    await carol.confirm();
    const r2 = await continueWith(carol, up, "/account", "/upstream/corp?link=1");
    expect(r2.status).to.equal(409);
    expect(decodeHtml(r2.text)).to.include("linked to another account already");
  });

  it("When the last way to sign in is unlinked, then it is refused; with a password it is unlinked", async () => {
    const c = new PageClient(node.url);
    expect((await continueWith(c, up)).status).to.equal(303);
    const html = (await c.get("/account")).text;
    const fields = { _csrf: csrfOf(html), issuer: up.issuer, subject: "u-alice" };
    // An unlink takes a way in away: a session alone is sent to confirm it's them first.
    const unconfirmed = await c.post("/account/upstreams/unlink", fields);
    expect(unconfirmed.status).to.equal(303);
    expect(String(unconfirmed.headers.location)).to.match(/^\/confirm\?/);
    await confirmThroughUpstream(c, up);
    const refused = await c.post("/account/upstreams/unlink", fields);
    expect(refused.status).to.equal(409);
    expect(decodeHtml(refused.text)).to.include("This is the last way to sign in to your account");
    expect(await node.opened.store.upstreamLinks.byIdentity(up.issuer, "u-alice")).to.not.equal(null);
    const bob = await person(node, "bob");
    await node.opened.store.upstreamLinks.link({
      upstream: "corp",
      issuer: up.issuer,
      subject: "u-bob",
      userId: bob.id,
      linkedAt: 1,
    });
    await bob.c.confirm();
    const ok = await bob.c.post("/account/upstreams/unlink", {
      _csrf: csrfOf((await bob.c.get("/account")).text),
      issuer: up.issuer,
      subject: "u-bob",
    });
    expect(ok.status).to.equal(303);
    expect(await node.opened.store.upstreamLinks.listForUser(bob.id)).to.deep.equal([]);
  });

  it("When an account without a password must confirm it's them, then signing in again through its upstream confirms; another person's identity does not", async () => {
    const c = new PageClient(node.url);
    expect((await continueWith(c, up)).status).to.equal(303);
    const html = (await c.get("/account")).text;
    const asked = await c.post("/account/password", { _csrf: csrfOf(html), new_password: "a brand new password" });
    expect(asked.status).to.equal(303);
    const confirmPath = String(asked.headers.location);
    expect(confirmPath).to.match(/^\/confirm\?/);
    const confirmHtml = (await c.get(confirmPath)).text;
    expect(confirmHtml).to.include("Continue with Corp SSO");
    const action = decodeHtml(/action="(\/upstream\/corp\?confirm=1[^"]*)"/.exec(confirmHtml)![1]!);
    // Someone else at the upstream (not linked to this account) confirms nothing.
    up.who = { ...up.who, sub: "u-mallory" };
    const other = await continueWith(c, up, confirmPath, action);
    expect(other.status).to.equal(400);
    const still = await c.post("/account/password", { _csrf: csrfOf(html), new_password: "a brand new password" });
    expect(String(still.headers.location)).to.match(/^\/confirm\?/);
    // The owner, signed in again there: confirmed, and the password is set.
    up.who = { ...up.who, sub: "u-alice" };
    const back = await continueWith(c, up, confirmPath, action);
    expect(back.status).to.equal(303);
    const done = await c.post("/account/password", { _csrf: csrfOf(html), new_password: "a brand new password" });
    expect(done.status, done.text.slice(0, 300)).to.equal(200);
    expect((await node.opened.store.accounts.byUsername("alice"))!.passwordHash).to.not.equal("");
    expect(await usersOf(node)).to.deep.equal(["alice"]);
  });
});

describeBackends("Upstream providers: linking by a verified email address", function (backend) {
  this.timeout(20_000);
  let up: TestUpstream;
  afterEach(() => up.stop().catch(() => undefined));

  async function withAccount(env: Record<string, string>) {
    up = await TestUpstream.start();
    const node = await backend.startNode({ ...up.env(), ...env });
    up.redirectUri = `${node.url}/upstream/corp/callback`;
    const { id } = await person(node, "alice-local");
    // Her address, confirmed (as the emailed link does).
    await node.opened.store.accounts.update(id, (u) => ({ ...u, email: "alice@corp.example", emailVerified: true }));
    await node.opened.store.email.indexEmail("alice@corp.example", id);
    return { node, id };
  }

  it("When UPSTREAM_LINK_BY_EMAIL=true and the upstream says the address is verified, then the account that confirmed it is linked; unverified, a new account is made", async () => {
    const { node, id } = await withAccount({ UPSTREAM_LINK_BY_EMAIL: "true" });
    up.who = { ...up.who, email_verified: false };
    expect((await continueWith(new PageClient(node.url), up)).status).to.equal(303);
    expect((await node.opened.store.upstreamLinks.byIdentity(up.issuer, "u-alice"))?.userId).to.not.equal(id);
    up.who = { ...up.who, sub: "u-alice-2", email_verified: true };
    expect((await continueWith(new PageClient(node.url), up)).status).to.equal(303);
    expect((await node.opened.store.upstreamLinks.byIdentity(up.issuer, "u-alice-2"))?.userId).to.equal(id);
  });

  it("When UPSTREAM_LINK_BY_EMAIL is not set, then a verified address at the upstream links nothing: a new account is made", async () => {
    const { node, id } = await withAccount({});
    expect((await continueWith(new PageClient(node.url), up)).status).to.equal(303);
    const link = await node.opened.store.upstreamLinks.byIdentity(up.issuer, "u-alice");
    expect(link?.userId).to.be.a("string").and.not.equal(id);
    expect(await usersOf(node)).to.have.members(["alice", "alice-local"]);
  });
});
