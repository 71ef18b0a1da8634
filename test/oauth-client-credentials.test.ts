// CONTRACT §17 "Client credentials", docs/http-api.md#client-credentials: a confidential app an
// admin allowed machine scopes (`sigil apps update --m2m-scope`) gets a token of its own from /token
// (RFC 6749 §4.4) through openid-client and oauth4webapi; /introspect names the app as its subject,
// /auth/user and /userinfo refuse it, /revoke ends it, disabling or deleting the app ends it; on both
// stores, across two nodes, 50 requests at once.
import { expect } from "chai";
import * as client from "openid-client";
import * as oauth from "oauth4webapi";
import { describeBackends } from "./support/backends.js";
import { refusal } from "./support/channel.js";
import { sigil as runSigil, type CliResult } from "./support/cli.js";
import { postForm, registerPublicApp } from "./support/grants.js";
import { http } from "./support/http.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { PageClient, basic, registerApp, token, userInfo, type TestApp } from "./support/pages.js";

describeBackends("Client credentials (a service's own token)", function (this: Mocha.Suite, backend) {
  this.timeout(60_000);
  let node: TestNode;
  let dev: PageClient;
  let app: TestApp;
  let other: TestApp;
  const sigil = (...args: string[]): Promise<CliResult> =>
    runSigil({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() }, ...args);
  const allow = async (a: TestApp | { clientId: string }, scopes: string) => {
    const r = await sigil("apps", "update", "--client-id", a.clientId, "--m2m-scope", scopes);
    expect(r.code, r.err).to.equal(0);
    return r;
  };
  const cc = (a: TestApp, fields: Record<string, string> = {}, base = node.url) =>
    token(base, { grant_type: "client_credentials", ...fields }, { authorization: basic(a.clientId, a.clientSecret) });
  const introspect = (t: string, a: TestApp = app, base = node.url) =>
    postForm(base, "/introspect", { token: t }, { authorization: basic(a.clientId, a.clientSecret) });

  beforeEach(async () => {
    node = await backend.startNode();
    dev = new PageClient(node.url);
    await dev.signUp("devon");
    app = await registerApp(dev, ["https://billing.example/cb"], "Billing");
    other = await registerApp(dev, ["https://reports.example/cb"], "Reports");
  });

  it("When an admin allows an app scopes and the app uses openid-client's clientCredentialsGrant, then it gets a Bearer token of those scopes without refresh or ID token, and discovery lists the grant", async () => {
    const set = await allow(app, "invoices:read invoices:write");
    expect(set.json).to.include({ client_id: app.clientId });
    expect(set.json.m2m_scopes).to.deep.equal(["invoices:read", "invoices:write"]);
    const config = await client.discovery(
      new URL(node.url),
      app.clientId,
      undefined,
      client.ClientSecretBasic(app.clientSecret),
      { execute: [client.allowInsecureRequests] },
    );
    expect(config.serverMetadata().grant_types_supported).to.include("client_credentials");
    const all = await client.clientCredentialsGrant(config);
    expect(all).to.include({ token_type: "bearer", expires_in: 3600, scope: "invoices:read invoices:write" });
    expect(all.refresh_token).to.equal(undefined);
    expect(all.id_token).to.equal(undefined);
    const narrow = await client.clientCredentialsGrant(config, { scope: "invoices:read" });
    expect(narrow.scope).to.equal("invoices:read");
  });

  it("When the app uses oauth4webapi with client_secret_post, then the token introspects as the app's own (sub and client_id its client id, no username) for itself and for another confidential app", async () => {
    await allow(app, "invoices:read");
    const as: oauth.AuthorizationServer = { issuer: node.url, token_endpoint: `${node.url}/token` };
    const c: oauth.Client = { client_id: app.clientId };
    const res = await oauth.clientCredentialsGrantRequest(
      as,
      c,
      oauth.ClientSecretPost(app.clientSecret),
      {},
      {
        [oauth.allowInsecureRequests]: true,
      },
    );
    const t = await oauth.processClientCredentialsResponse(as, c, res);
    const before = Math.floor(Date.now() / 1000);
    for (const asker of [app, other]) {
      const r = await introspect(t.access_token, asker);
      expect(r.status).to.equal(200);
      expect(r.json).to.include({
        active: true,
        client_id: app.clientId,
        sub: app.clientId,
        scope: "invoices:read",
        token_type: "Bearer",
        iss: node.url,
      });
      expect(r.json).to.not.have.property("username");
      expect(r.json.exp).to.be.within(before + 3595, before + 3605);
    }
    // A public client (client_id alone, which anyone can send) learns nothing of it.
    const spa = await registerPublicApp(dev);
    const r = await postForm(node.url, "/introspect", { token: t.access_token, client_id: spa.clientId });
    expect(r.json).to.deep.equal({ active: false });
  });

  it("When the token is sent to /auth/user, /userinfo or the realtime gateway as a user's, then it is refused with invalid_token: there is no user", async () => {
    await allow(app, "invoices:read");
    const t = (await cc(app)).json.access_token as string;
    const u = await userInfo(node.url, t, app.clientId);
    expect(u.status).to.equal(401);
    expect(u.json.error).to.equal("invalid_token");
    const oidc = await http(node.url, "/userinfo", { headers: { authorization: `Bearer ${t}` } });
    expect(oidc.status).to.equal(401);
    expect(oidc.json.error).to.equal("invalid_token");
    expect(oidc.headers["www-authenticate"]).to.match(/^Bearer /);
    // Nor does it open a user's socket on the realtime gateway.
    const err = await refusal(node.url, { auth: (cb) => cb({ access_token: t }) });
    expect(err.message).to.equal("invalid_token");
  });

  it("When apps without the right ask, then a public client and an app with no scopes get unauthorized_client, a scope not allowed invalid_scope, a user scope cannot be allowed; clearing the scopes refuses the grant again", async () => {
    expect((await cc(app)).json.error).to.equal("unauthorized_client");
    const spa = await registerPublicApp(dev);
    const pub = await token(node.url, { grant_type: "client_credentials", client_id: spa.clientId });
    expect([pub.status, pub.json.error]).to.deep.equal([400, "unauthorized_client"]);
    for (const bad of ["openid", "a offline_access", "realtime", "profile", "email", "a\tb\u00e9", "x".repeat(65)]) {
      const r = await sigil("apps", "update", "--client-id", app.clientId, "--m2m-scope", bad);
      expect(r.code, bad).to.not.equal(0);
    }
    const tooMany = Array.from({ length: 21 }, (_, i) => `s${i}`).join(" ");
    expect((await sigil("apps", "update", "--client-id", app.clientId, "--m2m-scope", tooMany)).code).to.not.equal(0);
    await allow(app, "invoices:read");
    const wider = await cc(app, { scope: "invoices:read invoices:write" });
    expect([wider.status, wider.json.error]).to.deep.equal([400, "invalid_scope"]);
    const cleared = await allow(app, "");
    expect(cleared.json).to.not.have.property("m2m_scopes");
    expect((await cc(app)).json.error).to.equal("unauthorized_client");
  });

  it("When the app revokes its token, or an operator disables or deletes the app, then its tokens are inactive at once", async () => {
    await allow(app, "jobs");
    await allow(other, "jobs");
    const first = (await cc(app)).json.access_token as string;
    const second = (await cc(app)).json.access_token as string;
    expect(
      (await postForm(node.url, "/revoke", { token: first }, { authorization: basic(app.clientId, app.clientSecret) }))
        .status,
    ).to.equal(200);
    expect((await introspect(first)).json).to.deep.equal({ active: false });
    expect((await introspect(second, other)).json.active).to.equal(true);
    await sigil("apps", "update", "--client-id", app.clientId, "--disabled", "on");
    expect((await introspect(second, other)).json).to.deep.equal({ active: false });
    expect((await cc(app)).json.error).to.equal("invalid_client");
    await sigil("apps", "update", "--client-id", app.clientId, "--disabled", "off");
    expect((await introspect(second, other)).json.active).to.equal(true);
    const del = await dev.submit("/developers", `/developers/${app.clientId}/delete`, {});
    expect(del.status).to.equal(303);
    expect((await introspect(second, other)).json).to.deep.equal({ active: false });
  });

  it("When 50 token requests arrive at once on one node, then each gets its own token and each introspects active on a second node", async () => {
    await allow(app, "jobs");
    const twin = backend.redis ? await backend.startNode() : await backend.startTwin(node, {});
    const answers = await Promise.all(Array.from({ length: 50 }, () => cc(app)));
    expect(answers.map((a) => a.status)).to.deep.equal(Array(50).fill(200));
    const tokens = answers.map((a) => a.json.access_token as string);
    expect(new Set(tokens).size).to.equal(50);
    const seen = await Promise.all(tokens.map((t) => introspect(t, other, twin.url)));
    expect(seen.map((s) => s.json.sub)).to.deep.equal(Array(50).fill(app.clientId));
    // No token and no secret in a log line of either node.
    const logs = [...node.logs, ...twin.logs].join("\n");
    for (const secret of [app.clientSecret, ...tokens]) expect(logs).to.not.contain(secret);
  });

  it("When a caller guesses the secret, then failures at client_credentials count with the other grants': the 20th is 429, the right secret too, at every grant", async () => {
    await allow(app, "jobs");
    const guess = () =>
      token(node.url, { grant_type: "client_credentials" }, { authorization: basic(app.clientId, "wrong") });
    for (let i = 1; i < 19; i++) expect((await guess()).status).to.equal(401);
    // One failure at the refresh grant counts as well (one counter for /token, /revoke, /introspect).
    const refreshTry = await token(
      node.url,
      { grant_type: "refresh_token", refresh_token: "x" },
      { authorization: basic(app.clientId, "wrong") },
    );
    expect(refreshTry.status).to.equal(401);
    const twentieth = await guess();
    expect([twentieth.status, twentieth.json.error]).to.deep.equal([429, "rate_limited"]);
    expect((await cc(app)).status).to.equal(429);
  });

  it("When the request is malformed, then the answer is a 4xx in the error format, never a 5xx", async () => {
    await allow(app, "jobs");
    // An empty scope is no scope (as at the other grants): every allowed one.
    expect((await cc(app, { scope: "" })).json.scope).to.equal("jobs");
    const cases: Array<Record<string, string>> = [
      { scope: " jobs" },
      { scope: "jobs  jobs" },
      { scope: "x".repeat(3000) },
      { scope: "jobs\u0000" },
      { scope: '"jobs"' },
      { client_id: app.clientId, client_secret: app.clientSecret }, // Basic and body both
    ];
    for (const fields of cases) {
      const r = await cc(app, fields);
      expect(r.status, JSON.stringify(fields)).to.be.within(400, 499);
      expect(r.json.error).to.be.a("string");
      expect(r.json.error_description).to.be.a("string");
    }
    const json = await http(node.url, "/token", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: basic(app.clientId, app.clientSecret) },
      body: JSON.stringify({ grant_type: "client_credentials", scope: ["jobs"] }),
    });
    expect(json.status).to.equal(400);
    const wrong = await token(
      node.url,
      { grant_type: "client_credentials" },
      { authorization: basic(app.clientId, "nope") },
    );
    expect([wrong.status, wrong.json.error]).to.deep.equal([401, "invalid_client"]);
  });
});
