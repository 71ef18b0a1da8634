// docs/http-api.md#account: withdrawing a consent on /account revokes at once every access token the app holds
// for that user, and its unredeemed codes — on every node. Both stores, then two nodes on Redis.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { PageClient, authorize, csrfOf, registerApp, token, userInfo, type TestApp } from "./support/pages.js";

/** A signed-up user, a registered app, and the shorthands the tests below use. */
async function setup(base: string) {
  const dev = new PageClient(base);
  await dev.signUp("devon");
  const app = await registerApp(dev);
  const other = await registerApp(dev, ["https://other.example/cb"], "Other");
  const alice = new PageClient(base);
  await alice.signUp("alice", "password123", "Alice");
  const code = async (user: PageClient = alice, a: TestApp = app) =>
    (await authorize(user, { client_id: a.clientId, redirect_uri: a.redirectUri })).searchParams.get("code")!;
  const trade = (c: string, a: TestApp = app, at = base) =>
    token(at, { code: c, client_id: a.clientId, client_secret: a.clientSecret, redirect_uri: a.redirectUri });
  const accessToken = async (user: PageClient = alice, a: TestApp = app) => {
    const r = await trade(await code(user, a), a);
    expect(r.status, r.text).to.equal(200);
    return r.json.access_token as string;
  };
  /** Withdraws `a` on /account, as the form there does. */
  const withdraw = async (user: PageClient = alice, a: TestApp = app, via?: PageClient) => {
    const page = await (via ?? user).get("/account");
    return (via ?? user).post("/account/consents/withdraw", { _csrf: csrfOf(page.text), client_id: a.clientId });
  };
  return { app, other, alice, code, trade, accessToken, withdraw };
}

describeBackends("Withdrawing a consent", (backend) => {
  let base: string;
  beforeEach(async () => {
    base = (await backend.startNode()).url;
  });

  it("When a user withdraws an app's consent, then its access token is refused at once with 401 invalid_token", async () => {
    const s = await setup(base);
    const t = await s.accessToken();
    expect((await userInfo(base, t, s.app.clientId)).status).to.equal(200);
    const w = await s.withdraw();
    expect(w.status).to.equal(303);
    const r = await userInfo(base, t, s.app.clientId);
    expect(r.status).to.equal(401);
    expect(r.json.error).to.equal("invalid_token");
    expect(r.headers["www-authenticate"]).to.match(/^Bearer error="invalid_token"/);
  });

  it("When a code was issued before the withdrawal and not traded yet, then trading it is invalid_grant", async () => {
    const s = await setup(base);
    const c = await s.code();
    await s.withdraw();
    const r = await s.trade(c);
    expect(r.status).to.equal(400);
    expect(r.json.error).to.equal("invalid_grant");
    expect(r.json).to.not.have.property("access_token");
  });

  it("When the user consents again, then new codes and tokens work and the old token stays refused", async () => {
    const s = await setup(base);
    const old = await s.accessToken();
    const oldCode = await s.code();
    await s.withdraw();
    // Consent is asked again (the page is shown, no code is issued without it), then allowed.
    const again = await s.alice.get(
      `/authorize?${new URLSearchParams({ client_id: s.app.clientId, redirect_uri: s.app.redirectUri })}`,
    );
    expect(again.status).to.equal(200);
    const fresh = await s.accessToken();
    expect((await userInfo(base, fresh, s.app.clientId)).json.username).to.equal("alice");
    expect((await userInfo(base, old, s.app.clientId)).status).to.equal(401);
    expect((await s.trade(oldCode)).json.error).to.equal("invalid_grant");
    // A code of the new consent, traded after all that, works too.
    const later = await s.trade(await s.code());
    expect(later.status).to.equal(200);
  });

  it("When one consent is withdrawn, then the user's other apps and other users of the app keep working", async () => {
    const s = await setup(base);
    const bob = new PageClient(base);
    await bob.signUp("bob", "password123");
    const mine = await s.accessToken();
    const otherApp = await s.accessToken(s.alice, s.other);
    const bobs = await s.accessToken(bob);
    await s.withdraw();
    expect((await userInfo(base, mine, s.app.clientId)).status).to.equal(401);
    expect((await userInfo(base, otherApp, s.other.clientId)).status).to.equal(200);
    expect((await userInfo(base, bobs, s.app.clientId)).status).to.equal(200);
    expect((await s.alice.get("/account")).text).to.contain("Other");
  });

  it("When a withdrawal is sent 50 times at once, then every one succeeds and the tokens are revoked", async function () {
    this.timeout(30000);
    const s = await setup(base);
    const tokens = [await s.accessToken(), await s.accessToken()];
    const pending = await s.code();
    const csrf = csrfOf((await s.alice.get("/account")).text);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        s.alice.post("/account/consents/withdraw", { _csrf: csrf, client_id: s.app.clientId }),
      ),
    );
    expect(results.map((r) => r.status)).to.deep.equal(Array(50).fill(303));
    for (const t of tokens) expect((await userInfo(base, t, s.app.clientId)).status).to.equal(401);
    expect((await s.trade(pending)).json.error).to.equal("invalid_grant");
    expect((await userInfo(base, await s.accessToken(), s.app.clientId)).status).to.equal(200);
  });

  it("When a client_id that the user never allowed (or that is malformed) is withdrawn, then nothing breaks", async () => {
    const s = await setup(base);
    const t = await s.accessToken();
    const csrf = csrfOf((await s.alice.get("/account")).text);
    for (const id of [s.other.clientId, "no-such-app", "{weird}:*"]) {
      expect((await s.alice.post("/account/consents/withdraw", { _csrf: csrf, client_id: id })).status).to.equal(303);
    }
    expect((await userInfo(base, t, s.app.clientId)).status).to.equal(200);
  });
});

describeBackends(
  "Withdrawing a consent across nodes",
  (backend) => {
    it("When a user withdraws on node A, then node B refuses the old token and the old code at once", async () => {
      const a = await backend.startNode();
      const b = await backend.startNode();
      const s = await setup(a.url);
      const t = await s.accessToken();
      const pending = await s.code();
      expect((await userInfo(b.url, t, s.app.clientId)).status).to.equal(200);
      const w = await s.withdraw();
      expect(w.status).to.equal(303);
      const r = await userInfo(b.url, t, s.app.clientId);
      expect(r.status).to.equal(401);
      expect(r.json.error).to.equal("invalid_token");
      expect((await s.trade(pending, s.app, b.url)).json.error).to.equal("invalid_grant");
      // Consent again on node B: its new token works on node A; the old one stays refused there.
      const onB = new PageClient(b.url);
      for (const [k, v] of s.alice.cookies) onB.cookies.set(k, v);
      const fresh = await s.accessToken(onB);
      expect((await userInfo(a.url, fresh, s.app.clientId)).status).to.equal(200);
      expect((await userInfo(a.url, t, s.app.clientId)).status).to.equal(401);
    });
  },
  ["redis"],
);
