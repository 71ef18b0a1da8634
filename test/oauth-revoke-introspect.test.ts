// docs/http-api.md#post-base_urlrevoke and #post-base_urlintrospect: RFC 7009 revocation and RFC 7662
// introspection, through oauth4webapi unmodified where it fits and raw requests elsewhere, on both stores.
import { expect } from "chai";
import * as oauth from "oauth4webapi";
import { describeBackends } from "./support/backends.js";
import { http } from "./support/http.js";
import { OFFLINE, creds, grant, offlinePair, people, postForm, refresh } from "./support/grants.js";
import { basic, userInfo, type PageClient, type TestApp } from "./support/pages.js";

describeBackends("Revocation and introspection", (backend) => {
  let base: string;
  let app: TestApp;
  let other: TestApp;
  let alice: PageClient;
  let as: oauth.AuthorizationServer;
  const opts = { [oauth.allowInsecureRequests]: true } as const;

  beforeEach(async () => {
    base = (await backend.startNode()).url;
    ({ app, other, alice } = await people(base));
    as = {
      issuer: base,
      token_endpoint: `${base}/token`,
      revocation_endpoint: `${base}/revoke`,
      introspection_endpoint: `${base}/introspect`,
    };
  });

  const works = async (access: string) => (await userInfo(base, access, app.clientId)).status === 200;
  const introspect = async (t: string, a: TestApp = app) => {
    const c: oauth.Client = { client_id: a.clientId };
    const res = await oauth.introspectionRequest(as, c, oauth.ClientSecretPost(a.clientSecret), t, opts);
    return oauth.processIntrospectionResponse(as, c, res);
  };
  const revoke = async (t: string, a: TestApp = app, hint?: string) => {
    const c: oauth.Client = { client_id: a.clientId };
    const res = await oauth.revocationRequest(as, c, oauth.ClientSecretBasic(a.clientSecret), t, {
      ...opts,
      ...(hint ? { additionalParameters: { token_type_hint: hint } } : {}),
    });
    await oauth.processRevocationResponse(res);
    return res;
  };

  describe("When a client introspects its own tokens", () => {
    it("then a live access token is active with scope, client_id, sub, username, exp, iat, token_type and iss", async () => {
      const pair = await offlinePair(base, alice, app);
      const before = Math.floor(Date.now() / 1000);
      const r = await introspect(pair.access);
      const me = (await userInfo(base, pair.access, app.clientId)).json;
      expect(r).to.deep.include({
        active: true,
        scope: OFFLINE,
        client_id: app.clientId,
        sub: me.id,
        username: "alice",
        token_type: "Bearer",
        iss: base,
      });
      expect(r.iat).to.be.within(before - 5, before + 5);
      expect(r.exp).to.equal(r.iat! + 3600);
    });

    it("then a live refresh token is active too (token_type refresh_token, exp the grant's end)", async () => {
      const pair = await offlinePair(base, alice, app);
      const r = await introspect(pair.refresh);
      expect(r).to.deep.include({
        active: true,
        client_id: app.clientId,
        username: "alice",
        token_type: "refresh_token",
      });
      expect(r.exp! - r.iat!).to.be.within(30 * 86400 - 5, 30 * 86400);
    });

    it("then a rotated refresh token, a revoked or unknown token, and another client's token are {active: false} only", async () => {
      const pair = await offlinePair(base, alice, app);
      const next = await refresh(base, app, pair.refresh);
      const raw = await postForm(base, "/introspect", { token: pair.refresh, ...creds(app) });
      expect(raw.status).to.equal(200);
      expect(raw.headers["cache-control"]).to.equal("no-store");
      expect(raw.json).to.deep.equal({ active: false });
      expect((await introspect(next.json.refresh_token, other)).active).to.equal(false);
      expect((await introspect(next.json.access_token, other)).active).to.equal(false);
      expect(await introspect(next.json.access_token)).to.include({ active: true });
      expect((await postForm(base, "/introspect", { token: "nope", ...creds(app) })).json).to.deep.equal({
        active: false,
      });
    });

    it("then a JSON body works as a form does, at /introspect and /revoke", async () => {
      const pair = await offlinePair(base, alice, app);
      const json = (path: string) =>
        http(base, path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ token: pair.access, ...creds(app) }),
        });
      expect((await json("/introspect")).json).to.include({ active: true, client_id: app.clientId });
      expect((await json("/revoke")).status).to.equal(200);
      expect((await json("/introspect")).json).to.deep.equal({ active: false });
    });

    it("then bad bodies are clear 4xx errors, never 5xx, and change nothing", async () => {
      const pair = await offlinePair(base, alice, app);
      const c = new URLSearchParams(creds(app)).toString();
      const bodies: Array<[string, string]> = [
        ["application/json", JSON.stringify({ token: [pair.access], ...creds(app) })],
        ["application/json", JSON.stringify({ token: { a: 1 }, ...creds(app) })],
        ["application/json", JSON.stringify({ token: pair.access, client_id: 5, client_secret: app.clientSecret })],
        ["application/json", "[1,2]"],
        ["application/json", '{"token":'],
        ["application/x-www-form-urlencoded", `token=${"x".repeat(60000)}&${c}`],
        ["application/x-www-form-urlencoded", `token=%E2%28%A1&${c}`],
        ["application/x-www-form-urlencoded", `token=${pair.access}&token_type_hint=a&token_type_hint=b&${c}`],
        ["text/plain", `token=${pair.access}&${c}`],
      ];
      for (const path of ["/revoke", "/introspect"]) {
        for (const [ct, body] of bodies) {
          const r = await http(base, path, { method: "POST", headers: { "content-type": ct }, body });
          expect(r.status, `${path} ${ct} ${body.slice(0, 60)}`).to.be.within(200, 499);
          expect(r.headers["content-type"]).to.match(/^application\/json/);
          if (r.status >= 400) expect(r.json.error).to.be.a("string");
        }
      }
      expect(await works(pair.access)).to.equal(true);
      expect((await refresh(base, app, pair.refresh)).status).to.equal(200);
    });

    it("then introspection needs client authentication and a token", async () => {
      const pair = await offlinePair(base, alice, app);
      const wrong = await postForm(base, "/introspect", {
        token: pair.access,
        client_id: app.clientId,
        client_secret: "x",
      });
      expect(wrong.status).to.equal(401);
      expect(wrong.json.error).to.equal("invalid_client");
      const none = await postForm(base, "/introspect", { ...creds(app) });
      expect(none.status).to.equal(400);
      expect(none.json.error).to.equal("invalid_request");
      const twice = await http(base, "/introspect", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `token=a&token=b&${new URLSearchParams(creds(app))}`,
      });
      expect(twice.status).to.equal(400);
      expect(twice.json.error).to.equal("invalid_request");
    });
  });

  describe("When a client revokes a token", () => {
    it("then revoking a refresh token revokes its grant: the refresh token, the access tokens, the rotated ones", async () => {
      const pair = await offlinePair(base, alice, app);
      const next = (await refresh(base, app, pair.refresh)).json;
      const res = await revoke(next.refresh_token, app, "refresh_token");
      expect(res.status).to.equal(200);
      expect((await refresh(base, app, next.refresh_token)).json.error).to.equal("invalid_grant");
      expect(await works(next.access_token)).to.equal(false);
      expect(await works(pair.access)).to.equal(false);
      expect((await introspect(next.refresh_token)).active).to.equal(false);
    });

    it("then revoking an access token revokes that token alone", async () => {
      const pair = await offlinePair(base, alice, app);
      const second = (await refresh(base, app, pair.refresh)).json;
      await revoke(pair.access, app, "access_token");
      expect(await works(pair.access)).to.equal(false);
      expect((await introspect(pair.access)).active).to.equal(false);
      expect(await works(second.access_token)).to.equal(true);
      expect((await refresh(base, app, second.refresh_token)).status).to.equal(200);
      // A wrong hint changes nothing: every kind is looked up.
      const third = await grant(base, alice, app, "profile");
      await revoke(third.json.access_token, app, "refresh_token");
      expect(await works(third.json.access_token)).to.equal(false);
    });

    it("then an unknown token, or another client's, is 200 and changes nothing", async () => {
      const pair = await offlinePair(base, alice, app);
      const unknown = await postForm(base, "/revoke", { token: "not-a-token", ...creds(app) });
      expect(unknown.status).to.equal(200);
      expect(unknown.headers["cache-control"]).to.equal("no-store");
      const foreign = await postForm(base, "/revoke", { token: pair.refresh, ...creds(other) });
      expect(foreign.status).to.equal(200);
      await postForm(base, "/revoke", { token: pair.access, ...creds(other) });
      expect(await works(pair.access)).to.equal(true);
      expect((await refresh(base, app, pair.refresh)).status).to.equal(200);
    });

    it("then client authentication is as /token: Basic or body, never both; failures throttled by the 20th", async () => {
      const pair = await offlinePair(base, alice, app);
      const both = await postForm(
        base,
        "/revoke",
        { token: pair.access, client_secret: app.clientSecret },
        { authorization: basic(app.clientId, app.clientSecret) },
      );
      expect(both.json.error).to.equal("invalid_request");
      const missing = await postForm(base, "/revoke", { ...creds(app) });
      expect(missing.json.error).to.equal("invalid_request");
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const path = i % 2 ? "/revoke" : "/introspect";
        statuses.push(
          (await postForm(base, path, { token: pair.access, client_id: app.clientId, client_secret: `w${i}` })).status,
        );
      }
      expect(statuses.slice(0, 19).every((s) => s === 401)).to.equal(true);
      expect(statuses[19]).to.equal(429);
      // The count is the one of /token too.
      const t = await refresh(base, { clientId: app.clientId, clientSecret: app.clientSecret }, pair.refresh);
      expect(t.status).to.equal(429);
      expect(t.headers["retry-after"]).to.match(/^\d+$/);
      expect(await works(pair.access)).to.equal(true);
    });
  });

  it("When /openapi.json is read, then it documents /revoke, /introspect and the refresh grant of /token", async () => {
    const doc = (await http(base, "/openapi.json")).json;
    const form = "application/x-www-form-urlencoded";
    const revokeBody = doc.paths["/revoke"].post.requestBody.content[form].schema;
    expect(revokeBody.required).to.deep.equal(["token"]);
    expect(revokeBody.properties).to.have.keys("token", "token_type_hint", "client_id", "client_secret");
    const intro = doc.paths["/introspect"].post;
    expect(intro.responses["200"].content["application/json"].schema.properties).to.include.keys(
      "active",
      "scope",
      "client_id",
      "sub",
      "username",
      "exp",
      "iat",
      "token_type",
      "iss",
    );
    const tokenBody = doc.paths["/token"].post.requestBody.content[form].schema;
    expect(tokenBody.properties).to.include.keys("refresh_token", "scope");
    expect(doc.paths["/token"].post.responses["200"].content["application/json"].schema.properties).to.include.keys(
      "refresh_token",
    );
  });
});
