// docs/http-api.md#sign-in-with-sigil: POST /token, GET /auth/user and the RFC 8414 document, on both stores.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { http } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, authorize, basic, pkce, registerApp, token, userInfo, type TestApp } from "./support/pages.js";

describeBackends("Token and user endpoints", (backend) => {
  let node: TestNode;
  let base: string;
  let app: TestApp;
  let other: TestApp;
  let alice: PageClient;

  async function setup(env: Record<string, string> = {}) {
    node = await backend.startNode(env);
    base = node.url;
    const dev = new PageClient(base);
    await dev.signUp("devon");
    app = await registerApp(dev, ["https://app.example/cb", "https://app.example/other"]);
    other = await registerApp(dev, ["https://other.example/cb"], "Other");
    alice = new PageClient(base);
    await alice.signUp("alice", "password123", "Alice Liddell");
  }

  /** A fresh code for `app` (with PKCE unless told otherwise). */
  async function code(opts: { pkce?: boolean; redirectUri?: string } = {}) {
    const p = pkce();
    const u = await authorize(alice, {
      client_id: app.clientId,
      redirect_uri: opts.redirectUri ?? app.redirectUri,
      state: "st",
      ...(opts.pkce === false ? {} : { code_challenge: p.challenge, code_challenge_method: "S256" }),
    });
    return { code: u.searchParams.get("code")!, verifier: p.verifier };
  }

  const fields = (c: { code: string; verifier: string }, extra: Record<string, string> = {}) => ({
    grant_type: "authorization_code",
    code: c.code,
    redirect_uri: app.redirectUri,
    client_id: app.clientId,
    client_secret: app.clientSecret,
    code_verifier: c.verifier,
    ...extra,
  });

  describe("When an app trades a good code", () => {
    beforeEach(() => setup());

    it("then a form body (client_secret_post) gets 200, no-store, and exactly the documented fields", async () => {
      const r = await token(base, fields(await code()));
      expect(r.status).to.equal(200);
      expect(r.headers["cache-control"]).to.equal("no-store");
      expect(Object.keys(r.json).sort()).to.deep.equal(["access_token", "expires_in", "scope", "token_type"]);
      expect(r.json).to.include({ token_type: "Bearer", expires_in: 3600, scope: "profile" });
    });

    it("then a JSON body works too", async () => {
      const r = await http(base, "/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(fields(await code())),
      });
      expect(r.status).to.equal(200);
    });

    it("then HTTP Basic (client_secret_basic) works, grant_type may be left out", async () => {
      const c = await code();
      const r = await token(
        base,
        { code: c.code, redirect_uri: app.redirectUri, code_verifier: c.verifier },
        { authorization: basic(app.clientId, app.clientSecret) },
      );
      expect(r.status).to.equal(200);
    });

    it("then without PKCE (confidential client) it works as well", async () => {
      const c = await code({ pkce: false });
      const { code_verifier: _v, ...f } = fields(c);
      expect((await token(base, f)).status).to.equal(200);
    });

    it("then an app with one redirect URL may leave redirect_uri out of both requests", async () => {
      const u = await authorize(alice, { client_id: other.clientId, state: "one" });
      expect(u.origin + u.pathname).to.equal(other.redirectUri);
      const r = await token(base, {
        code: u.searchParams.get("code")!,
        client_id: other.clientId,
        client_secret: other.clientSecret,
      });
      expect(r.status).to.equal(200);
    });

    it("then /auth/user returns the four fields, with an absolute picture URL that serves", async () => {
      const t = (await token(base, fields(await code()))).json.access_token as string;
      const r = await userInfo(base, t, app.clientId);
      expect(r.status).to.equal(200);
      expect(Object.keys(r.json).sort()).to.deep.equal(["display_name", "id", "profile_picture", "username"]);
      expect(r.json).to.include({ username: "alice", display_name: "Alice Liddell" });
      const pic = new URL(r.json.profile_picture);
      expect(pic.origin).to.equal(base);
      expect((await http(base, pic.pathname)).status).to.equal(200);
      const bare = await http(base, "/auth/user", { headers: { authorization: t, client_id: app.clientId } });
      expect(bare.json).to.deep.equal(r.json);
    });

    it("then nothing secret appears in the logs", async () => {
      const c = await code();
      const t = (await token(base, fields(c))).json.access_token as string;
      await userInfo(base, t, app.clientId);
      const logs = node.logs.join("\n");
      for (const s of [c.code, c.verifier, t, app.clientSecret, "password123"]) expect(logs).to.not.contain(s);
    });
  });

  describe("When the code is not good", () => {
    beforeEach(() => setup());

    it("then a code used twice fails with invalid_grant and the first token stops working", async () => {
      const c = await code();
      const first = await token(base, fields(c));
      expect((await userInfo(base, first.json.access_token, app.clientId)).status).to.equal(200);
      const second = await token(base, fields(c));
      expect(second.status).to.equal(400);
      expect(second.json.error).to.equal("invalid_grant");
      const after = await userInfo(base, first.json.access_token, app.clientId);
      expect(after.status).to.equal(401);
      expect(after.json.error).to.equal("invalid_token");
    });

    it("then another client's code fails with invalid_grant", async () => {
      const c = await code();
      const r = await token(
        base,
        fields(c, { client_id: other.clientId, client_secret: other.clientSecret, redirect_uri: other.redirectUri }),
      );
      expect(r.json.error).to.equal("invalid_grant");
    });

    it("then another redirect URL fails with invalid_grant", async () => {
      const r = await token(base, fields(await code(), { redirect_uri: "https://app.example/other" }));
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("invalid_grant");
    });

    it("then a missing code_verifier fails with invalid_grant", async () => {
      const { code_verifier: _v, ...f } = fields(await code());
      expect((await token(base, f)).json.error).to.equal("invalid_grant");
    });

    it("then a wrong code_verifier fails with invalid_grant", async () => {
      expect((await token(base, fields(await code(), { code_verifier: pkce().verifier }))).json.error).to.equal(
        "invalid_grant",
      );
    });

    it("then a code_verifier without an earlier challenge fails with invalid_grant", async () => {
      expect(
        (await token(base, fields(await code({ pkce: false }), { code_verifier: pkce().verifier }))).json.error,
      ).to.equal("invalid_grant");
    });

    it("then an unknown code fails with invalid_grant and a missing one with invalid_request", async () => {
      expect((await token(base, fields({ code: "made-up", verifier: pkce().verifier }))).json.error).to.equal(
        "invalid_grant",
      );
      const { code: _c, ...f } = fields({ code: "x", verifier: pkce().verifier });
      expect((await token(base, f)).json.error).to.equal("invalid_request");
    });

    it("then another grant_type is unsupported_grant_type", async () => {
      const r = await token(base, fields(await code(), { grant_type: "password" }));
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("unsupported_grant_type");
    });
  });

  describe("When the code is older than CODE_TTL", () => {
    beforeEach(() => setup({ CODE_TTL: "1" }));
    it("then it fails with invalid_grant", async () => {
      const c = await code();
      await new Promise((r) => setTimeout(r, 1100));
      const r = await token(base, fields(c));
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("invalid_grant");
    });
  });

  describe("When client authentication fails", () => {
    beforeEach(() => setup());

    it("then a wrong secret in the body is 401 invalid_client", async () => {
      const r = await token(base, fields(await code(), { client_secret: "wrong" }));
      expect(r.status).to.equal(401);
      expect(r.json.error).to.equal("invalid_client");
      expect(r.headers["cache-control"]).to.equal("no-store");
    });

    it("then a wrong secret as Basic is 401 invalid_client with WWW-Authenticate: Basic", async () => {
      const c = await code();
      const r = await token(
        base,
        { code: c.code, redirect_uri: app.redirectUri, code_verifier: c.verifier },
        { authorization: basic(app.clientId, "wrong") },
      );
      expect(r.status).to.equal(401);
      expect(r.json.error).to.equal("invalid_client");
      expect(r.headers["www-authenticate"]).to.match(/^Basic/);
    });

    it("then an unknown client is 401 invalid_client", async () => {
      const r = await token(base, fields(await code(), { client_id: "unknown-client" }));
      expect(r.status).to.equal(401);
      expect(r.json.error).to.equal("invalid_client");
    });

    it("then credentials both as Basic and in the body are invalid_request", async () => {
      const r = await token(base, fields(await code()), { authorization: basic(app.clientId, app.clientSecret) });
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("invalid_request");
    });

    it("then many concurrent successful trades from one address are never throttled", async function () {
      this.timeout(30000);
      const codes = [];
      for (let i = 0; i < 25; i++) codes.push(await code());
      const results = await Promise.all(codes.map((c) => token(base, fields(c))));
      expect(results.map((r) => r.status)).to.deep.equal(codes.map(() => 200));
    });

    it("then the 20th failure for one client_id from one address is 429, and so is the right secret after it", async () => {
      const c = await code();
      for (let i = 1; i <= 19; i++)
        expect((await token(base, fields(c, { client_secret: `wrong-${i}` }))).status).to.equal(401);
      const r20 = await token(base, fields(c, { client_secret: "wrong-20" }));
      expect(r20.status).to.equal(429);
      expect(r20.json.error).to.equal("rate_limited");
      expect(r20.headers["retry-after"]).to.match(/^\d+$/);
      expect((await token(base, fields(c))).status).to.equal(429);
      const o = await token(base, { code: "x", client_id: other.clientId, client_secret: "wrong" });
      expect(o.status).to.equal(401);
    });
  });

  describe("When /auth/user is called badly", () => {
    let t: string;
    beforeEach(async () => {
      await setup();
      t = (await token(base, fields(await code()))).json.access_token;
    });

    it("then a token used with another app's client_id is 401 invalid_token", async () => {
      const r = await userInfo(base, t, other.clientId);
      expect(r.status).to.equal(401);
      expect(r.json.error).to.equal("invalid_token");
      expect(r.headers["www-authenticate"]).to.contain('error="invalid_token"');
    });

    it("then ?access_token= is refused with 400 invalid_request, even with a good header", async () => {
      const r = await http(base, `/auth/user?access_token=${t}`, { headers: { client_id: app.clientId } });
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("invalid_request");
      const r2 = await http(base, `/auth/user?access_token=${t}`, {
        headers: { client_id: app.clientId, authorization: `Bearer ${t}` },
      });
      expect(r2.status).to.equal(400);
    });

    it("then a missing client_id is 400 invalid_request", async () => {
      const r = await http(base, "/auth/user", { headers: { authorization: `Bearer ${t}` } });
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("invalid_request");
    });

    it("then a missing or unknown token is 401 invalid_token", async () => {
      expect((await http(base, "/auth/user", { headers: { client_id: app.clientId } })).status).to.equal(401);
      expect((await userInfo(base, "not-a-token", app.clientId)).json.error).to.equal("invalid_token");
    });

    it("then a browser may call it cross-origin (preflight allows authorization and client_id)", async () => {
      const r = await http(base, "/auth/user", {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example",
          "access-control-request-method": "GET",
          "access-control-request-headers": "authorization,client_id",
        },
      });
      expect(r.status).to.be.oneOf([200, 204]);
      expect(String(r.headers["access-control-allow-headers"])).to.contain("client_id");
    });
  });

  describe("When a client reads the RFC 8414 document", () => {
    beforeEach(() => setup());
    it("then it names the endpoints, S256 only, and the iss parameter", async () => {
      const r = await http(base, "/.well-known/oauth-authorization-server");
      expect(r.status).to.equal(200);
      expect(r.json).to.include({
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        authorization_response_iss_parameter_supported: true,
      });
      expect(r.json.code_challenge_methods_supported).to.deep.equal(["S256"]);
      expect(r.json.token_endpoint_auth_methods_supported).to.include.members([
        "client_secret_basic",
        "client_secret_post",
      ]);
    });

    it("then /openapi.json documents /token and /auth/user", async () => {
      const r = await http(base, "/openapi.json");
      expect(r.json.paths).to.have.keys(...Object.keys(r.json.paths));
      expect(r.json.paths["/token"].post).to.be.an("object");
      expect(r.json.paths["/auth/user"].get).to.be.an("object");
    });
  });
});
