// docs/http-api.md#developers (/developers): registering apps, secrets shown once, rotation, deletion.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { PageClient, authorize, csrfOf, registerApp, token, userInfo, type TestApp } from "./support/pages.js";

describeBackends("Apps on /developers", (backend) => {
  let base: string;
  let dev: PageClient;
  beforeEach(async () => {
    base = (await backend.startNode({ SECRET_GRACE_PERIOD: "3600" })).url;
    dev = new PageClient(base);
    await dev.signUp("devon");
  });

  /** A fresh code for the app (a user consents), traded with the given secret. */
  async function trade(app: TestApp, secret: string) {
    const user = new PageClient(base);
    await user.signUp(`u${Math.random().toString(36).slice(2, 10)}`);
    const u = await authorize(user, { client_id: app.clientId, redirect_uri: app.redirectUri });
    return token(base, {
      code: u.searchParams.get("code")!,
      redirect_uri: app.redirectUri,
      client_id: app.clientId,
      client_secret: secret,
    });
  }

  it("When a developer is signed out, then /developers sends them to sign in and back", async () => {
    const r = await new PageClient(base).get("/developers");
    expect(r.status).to.equal(303);
    expect(r.headers.location).to.equal("/signin?return_to=%2Fdevelopers");
  });

  it("When an app is registered, then its client id and secret are shown once, and the secret works", async () => {
    const app = await registerApp(dev, ["https://app.example/cb", "http://127.0.0.1/cb"], "My <App>");
    expect(app.clientId).to.match(/^[A-Za-z0-9_-]{16,}$/);
    expect(app.clientSecret).to.match(/^[A-Za-z0-9_-]{40,}$/);
    const list = await dev.get("/developers");
    expect(list.text).to.contain(app.clientId);
    expect(list.text).to.not.contain(app.clientSecret);
    expect(list.text).to.contain("My &lt;App>");
    expect((await trade(app, app.clientSecret)).status).to.equal(200);
  });

  for (const [what, uri] of [
    ["a plain http URL", "http://app.example/cb"],
    ["a URL with a fragment", "https://app.example/cb#x"],
    ["a relative URL", "/cb"],
    ["http on localhost (only 127.0.0.1 and [::1] are loopback)", "http://localhost/cb"],
    ["a javascript: URL", "javascript:alert(1)"],
  ]) {
    it(`When the redirect URL is ${what}, then registration is refused`, async () => {
      const r = await dev.submit("/developers", "/developers", { name: "Bad", redirect_uri: uri! });
      expect(r.status).to.equal(400);
      expect(r.text).to.not.contain("client-secret");
    });
  }

  it("When the secret is rotated, then the old one keeps working for the grace period", async () => {
    const app = await registerApp(dev);
    const r = await dev.submit("/developers", `/developers/${app.clientId}/rotate`, {});
    expect(r.status).to.equal(200);
    const fresh = /class="secret client-secret">([^<]+)</.exec(r.text)![1]!;
    expect(fresh).to.not.equal(app.clientSecret);
    expect((await trade(app, app.clientSecret)).status).to.equal(200);
    expect((await trade(app, fresh)).status).to.equal(200);
  });

  it("When the secret is rotated with the old one revoked at once, then the old one fails with invalid_client", async () => {
    const app = await registerApp(dev);
    const r = await dev.submit("/developers", `/developers/${app.clientId}/rotate`, { revoke_old: "1" });
    const fresh = /class="secret client-secret">([^<]+)</.exec(r.text)![1]!;
    const old = await trade(app, app.clientSecret);
    expect(old.status).to.equal(401);
    expect(old.json.error).to.equal("invalid_client");
    expect((await trade(app, fresh)).status).to.equal(200);
  });

  it("When an app is deleted, then its client id is unknown to /authorize and its tokens stop working", async () => {
    const app = await registerApp(dev);
    const t = (await trade(app, app.clientSecret)).json.access_token as string;
    expect((await userInfo(base, t, app.clientId)).status).to.equal(200);
    const page = await dev.get("/developers");
    expect((await dev.post(`/developers/${app.clientId}/delete`, { _csrf: csrfOf(page.text) })).status).to.equal(303);
    expect((await dev.get("/developers")).text).to.not.contain(app.clientId);
    const r = await dev.get(`/authorize?client_id=${app.clientId}`);
    expect(r.status).to.equal(400);
    expect((await userInfo(base, t, app.clientId)).status).to.equal(401);
  });

  it("When someone else tries to rotate or delete an app, then nothing changes", async () => {
    const app = await registerApp(dev);
    const other = new PageClient(base);
    await other.signUp("eve");
    const r = await other.submit("/developers", `/developers/${app.clientId}/rotate`, { revoke_old: "1" });
    expect(r.status).to.equal(404);
    await other.submit("/developers", `/developers/${app.clientId}/delete`, {});
    expect((await trade(app, app.clientSecret)).status).to.equal(200);
  });
});
