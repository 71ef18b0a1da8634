// Device authorization (RFC 8628; docs/http-api.md#device-authorization): a CLI or TV asks
// /device_authorization for codes, its person enters the user code on /device, signs in and
// allows; the device polls /token and gets the tokens once. openid-client plays the device; the
// page client plays the person. Both stores.
import { expect } from "chai";
import * as client from "openid-client";
import { describeBackends } from "./support/backends.js";
import {
  DEVICE_GRANT,
  decideDevice,
  deviceAuthorization,
  enterCode,
  pollDevice,
  startDevice,
} from "./support/device.js";
import { registerPublicApp } from "./support/grants.js";
import { PageClient, csrfOf, registerApp, type TestApp } from "./support/pages.js";
import { http } from "./support/http.js";
import { readyUserSocket } from "./support/user-sockets.js";
import { call } from "./support/channel.js";
import type { TestNode } from "./support/nodes.js";

describeBackends("Device authorization", function (this: Mocha.Suite, backend) {
  this.timeout(30_000);
  let node: TestNode;
  let base: string;
  let cli: { clientId: string };
  let app: TestApp;
  let alice: PageClient;
  beforeEach(async () => {
    node = await backend.startNode();
    base = node.url;
    const dev = new PageClient(base);
    await dev.signUp("devon");
    cli = await registerPublicApp(dev, ["http://127.0.0.1/cb"], "Sigil CLI");
    app = await registerApp(dev, ["https://tv.example/cb"], "Living Room TV");
    alice = new PageClient(base);
    await alice.signUp("alice", "password123", "Alice");
  });

  async function deviceConfig(clientId: string) {
    return client.discovery(new URL(base), clientId, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
  }

  it("When a CLI signs in with openid-client's device flow and its person allows on /device, then it gets an access, refresh and ID token once, and the token opens a user socket", async () => {
    const config = await deviceConfig(cli.clientId);
    const started = await client.initiateDeviceAuthorization(config, {
      scope: "openid profile offline_access realtime",
    });
    expect(started.user_code).to.match(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri).to.equal(`${base}/device`);
    expect(started.expires_in).to.equal(600);
    expect(started.interval).to.equal(5);
    // The link fills the code in and decides nothing by itself.
    const link = new URL(started.verification_uri_complete!);
    const filled = await alice.get(link.pathname + link.search);
    expect(filled.status).to.equal(200);
    expect(filled.text).to.contain(`value="${started.user_code}"`);
    // Typed in lower case, without the hyphen.
    const done = await decideDevice(alice, started.user_code.replace("-", "").toLowerCase(), "allow");
    expect(done.status, done.text.slice(0, 300)).to.equal(200);
    expect(done.text).to.contain("Device connected");
    // Polled at once (the person already allowed): no wait for the interval.
    const tokens = await client.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 });
    expect(tokens.refresh_token).to.be.a("string");
    expect(tokens.scope).to.equal("openid profile offline_access realtime");
    const claims = tokens.claims()!;
    expect(claims.aud).to.equal(cli.clientId);
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info.preferred_username).to.equal("alice");
    const again = await pollDevice(base, started.device_code, { client_id: cli.clientId });
    expect(again.status).to.equal(400);
    expect(again.json).to.include({ error: "invalid_grant" });
    const socket = await readyUserSocket(node, tokens.access_token);
    expect(await call(socket.c, "subscribe", { channel: `user:${claims.sub}` })).to.deep.equal({ recovered: false });
    socket.c.socket.disconnect();
  });

  it("When the device polls before its person decides, then authorization_pending, slow_down when too fast (the interval grows by 5 s), and access_denied after a deny", async () => {
    const creds = { client_id: app.clientId, client_secret: app.clientSecret };
    const s = await startDevice(base, { ...creds, scope: "openid profile" });
    const first = await pollDevice(base, s.device_code, creds);
    expect(first.status).to.equal(400);
    expect(first.json).to.include({ error: "authorization_pending" });
    const fast = await pollDevice(base, s.device_code, creds);
    expect(fast.status).to.equal(400);
    expect(fast.json).to.deep.equal({
      error: "slow_down",
      error_description: "Polling too fast: wait 10 seconds between polls.",
    });
    expect(fast.headers["cache-control"]).to.equal("no-store");
    const denied = await decideDevice(alice, s.user_code, "deny");
    expect(denied.text).to.contain("Device not connected");
    const after = await pollDevice(base, s.device_code, creds);
    expect(after.json).to.include({ error: "access_denied" });
    // The user code works no more once decided.
    const late = await enterCode(alice, s.user_code);
    expect(late.status).to.equal(400);
    expect(late.text).to.contain("unknown, expired or already used");
  });

  it("When the approved device code is polled 50 times at once, then exactly one poll gets tokens and the others invalid_grant", async () => {
    const creds = { client_id: app.clientId, client_secret: app.clientSecret };
    const s = await startDevice(base, { ...creds });
    await decideDevice(alice, s.user_code, "allow");
    const polls = await Promise.all(Array.from({ length: 50 }, () => pollDevice(base, s.device_code, creds)));
    const ok = polls.filter((r) => r.status === 200);
    expect(ok).to.have.length(1);
    expect(ok[0]!.json).to.include({ token_type: "Bearer", scope: "profile" });
    for (const r of polls.filter((p) => p.status !== 200)) expect(r.json).to.include({ error: "invalid_grant" });
    const user = await http(base, "/auth/user", {
      headers: {
        authorization: `Bearer ${(ok[0]!.json as { access_token: string }).access_token}`,
        client_id: app.clientId,
      },
    });
    expect(user.json).to.include({ username: "alice" });
  });

  it("When the person withdraws the consent on /account before the device polls, then access_denied; withdrawn after, the device's tokens stop", async () => {
    const creds = { client_id: app.clientId, client_secret: app.clientSecret };
    const withdraw = async () => {
      const page = await alice.get("/account");
      expect(page.text).to.contain("Living Room TV");
      return alice.post("/account/consents/withdraw", { _csrf: csrfOf(page.text), client_id: app.clientId });
    };
    const first = await startDevice(base, creds);
    await decideDevice(alice, first.user_code, "allow");
    expect((await withdraw()).status).to.equal(303);
    expect((await pollDevice(base, first.device_code, creds)).json).to.include({ error: "access_denied" });
    const second = await startDevice(base, creds);
    await decideDevice(alice, second.user_code, "allow");
    const tokens = (await pollDevice(base, second.device_code, creds)).json as { access_token: string };
    const read = () =>
      http(base, "/auth/user", {
        headers: { authorization: `Bearer ${tokens.access_token}`, client_id: app.clientId },
      });
    expect((await read()).status).to.equal(200);
    await withdraw();
    expect((await read()).status).to.equal(401);
  });

  it("When the app is restricted to groups the person is in none of, then /device says the device is not connected and the device hears access_denied", async () => {
    await node.opened.store.groups.create({ name: "ops", createdAt: 1 });
    await node.opened.store.apps.update(app.clientId, (a) => ({ ...a, groups: ["ops"] }));
    const creds = { client_id: app.clientId, client_secret: app.clientSecret };
    const s = await startDevice(base, creds);
    const page = await enterCode(alice, s.user_code);
    expect(page.status).to.equal(403);
    expect(page.text).to.contain("Device not connected");
    expect((await pollDevice(base, s.device_code, creds)).json).to.include({ error: "access_denied" });
  });

  it("When another app polls with the device code, then invalid_grant, and the request is still the app's", async () => {
    const s = await startDevice(base, { client_id: cli.clientId });
    const other = await pollDevice(base, s.device_code, { client_id: app.clientId, client_secret: app.clientSecret });
    expect(other.json).to.include({ error: "invalid_grant" });
    await decideDevice(alice, s.user_code, "allow");
    expect((await pollDevice(base, s.device_code, { client_id: cli.clientId })).status).to.equal(200);
  });

  it("When a confidential app starts without its secret, or with a wrong one, then it is refused; discovery names the endpoint and the grant", async () => {
    expect((await deviceAuthorization(base, { client_id: app.clientId })).json).to.include({
      error: "invalid_request",
    });
    const wrong = await deviceAuthorization(base, { client_id: app.clientId, client_secret: "nope" });
    expect(wrong.status).to.equal(401);
    expect((await deviceAuthorization(base, { client_id: "unknown" })).status).to.equal(401);
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const meta = (await http(base, path)).json as Record<string, unknown>;
      expect(meta.device_authorization_endpoint).to.equal(`${base}/device_authorization`);
      expect(meta.grant_types_supported).to.include(DEVICE_GRANT);
    }
  });

  it("When a signed-out person opens the link, then they sign in and come back to the filled-in form", async () => {
    const s = await startDevice(base, { client_id: cli.clientId });
    const bob = new PageClient(base);
    const link = new URL(s.verification_uri_complete);
    const r = await bob.get(link.pathname + link.search);
    expect(r.status).to.equal(303);
    const signin = new URL(String(r.headers.location), base);
    expect(signin.pathname).to.equal("/signin");
    expect(signin.searchParams.get("return_to")).to.equal(`/device?user_code=${s.user_code}`);
  });

  it("When bad input reaches the device endpoints, then the contract's errors, never a 5xx", async () => {
    const id = { client_id: cli.clientId };
    const cases = [
      await http(base, "/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `grant_type=${encodeURIComponent(DEVICE_GRANT)}&client_id=${cli.clientId}&device_code=a&device_code=b`,
      }),
      await http(base, "/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ grant_type: DEVICE_GRANT, client_id: cli.clientId, device_code: { x: 1 } }),
      }),
      await pollDevice(base, "x".repeat(5000), id),
      await pollDevice(base, "", id),
      await deviceAuthorization(base, { ...id, scope: "x".repeat(60_000) }),
      await http(base, "/device_authorization", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "[1]",
      }),
    ];
    for (const r of cases) {
      expect(r.status, r.text).to.be.within(400, 499);
      expect(Object.keys(r.json as object).sort()).to.deep.equal(["error", "error_description"]);
    }
    for (const typed of ["", "x".repeat(5000), "BCDF-GHJ", "AEIO-UAEI"]) {
      const page = await enterCode(alice, typed);
      expect(page.status).to.be.within(400, 499);
    }
    const arr = await alice.post("/device/decide", { _csrf: "nope", user_code: ["a", "b"] });
    expect(arr.status).to.equal(403);
  });
});
