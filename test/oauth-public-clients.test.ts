// docs/http-api.md#public-clients: apps registered without a secret (the console and the CLI), PKCE
// required, client_id alone at /token, /revoke and /introspect, CORS on /token and /revoke from
// the origins of their redirect URLs only; on both stores.
import { expect } from "chai";
import * as oauth from "oauth4webapi";
import { describeBackends } from "./support/backends.js";
import { sigil } from "./support/cli.js";
import {
  creds,
  grant,
  offlinePair,
  people,
  postForm,
  refresh,
  registerPublicApp,
  type PublicApp,
} from "./support/grants.js";
import { http } from "./support/http.js";
import { TEST_SECRET } from "./support/nodes.js";
import { PageClient, authorize, csrfOf, pkce, token, userInfo, type TestApp } from "./support/pages.js";

const SPA = "https://spa.example";

describeBackends("Public clients", (backend) => {
  let base: string;
  let dev: PageClient;
  let alice: PageClient;
  let app: TestApp;
  let spa: PublicApp & { page: string };

  beforeEach(async () => {
    base = (await backend.startNode()).url;
    ({ dev, alice, app } = await people(base));
    spa = await registerPublicApp(dev, [`${SPA}/cb`, "http://127.0.0.1/native"]);
  });

  const preflight = (path: string, origin: string) =>
    http(base, path, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });

  describe("When a developer registers a browser or mobile app", () => {
    it("then the console shows its client_id and no secret, and offers no secret rotation", async () => {
      expect(spa.page).to.not.contain("client-secret");
      expect(spa.page).to.contain("no secret");
      const list = await dev.get("/developers");
      const section = list.text.slice(list.text.indexOf(`id="app-${spa.clientId}"`));
      expect(section.slice(0, section.indexOf("</section>"))).to.not.contain("/rotate");
      const rotate = await dev.post(`/developers/${encodeURIComponent(spa.clientId)}/rotate`, {
        _csrf: csrfOf(list.text),
      });
      expect(rotate.status).to.equal(400);
      expect(rotate.text).to.not.contain("client-secret");
    });
  });

  describe("When a public client sends a person to /authorize", () => {
    it("then without PKCE it is redirected back with invalid_request, state and iss", async () => {
      const r = await alice.get(
        `/authorize?${new URLSearchParams({ client_id: spa.clientId, redirect_uri: spa.redirectUri, state: "s1" })}`,
      );
      expect(r.status).to.equal(303);
      const u = new URL(String(r.headers.location));
      expect(u.origin + u.pathname).to.equal(spa.redirectUri);
      expect(u.searchParams.get("error")).to.equal("invalid_request");
      expect(u.searchParams.get("state")).to.equal("s1");
      expect(u.searchParams.get("iss")).to.equal(base);
      expect(u.searchParams.has("code")).to.equal(false);
    });

    it("then with PKCE the code is traded with client_id alone, refreshed, introspected and revoked the same way", async () => {
      const pair = await offlinePair(base, alice, spa);
      expect((await userInfo(base, pair.access, spa.clientId)).json.username).to.equal("alice");
      const next = await refresh(base, spa, pair.refresh);
      expect(next.status, next.text).to.equal(200);
      // HTTP Basic with an empty secret ("client_id:") is the same "none".
      const seen = await postForm(
        base,
        "/introspect",
        { token: next.json.access_token },
        { authorization: `Basic ${Buffer.from(`${spa.clientId}:`).toString("base64")}` },
      );
      expect(seen.json).to.include({ active: true, client_id: spa.clientId });
      const gone = await postForm(base, "/revoke", { token: next.json.refresh_token, ...creds(spa) });
      expect(gone.status).to.equal(200);
      expect((await userInfo(base, next.json.access_token, spa.clientId)).status).to.equal(401);
    });

    it("then the code needs its verifier (no client secret stands in for it)", async () => {
      const p = pkce();
      const landed = await authorize(alice, {
        client_id: spa.clientId,
        redirect_uri: spa.redirectUri,
        code_challenge: p.challenge,
        code_challenge_method: "S256",
      });
      const code = landed.searchParams.get("code")!;
      const r = await token(base, { code, redirect_uri: spa.redirectUri, client_id: spa.clientId });
      expect(r.json.error).to.equal("invalid_grant");
    });

    it("then oauth4webapi completes the flow with token_endpoint_auth_method none", async () => {
      const as: oauth.AuthorizationServer = { issuer: base, token_endpoint: `${base}/token` };
      const c: oauth.Client = { client_id: spa.clientId, token_endpoint_auth_method: "none" };
      const verifier = oauth.generateRandomCodeVerifier();
      const landed = await authorize(alice, {
        client_id: spa.clientId,
        redirect_uri: spa.redirectUri,
        response_type: "code",
        state: "xyz",
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
      });
      const params = oauth.validateAuthResponse(as, c, landed, "xyz");
      const res = await oauth.authorizationCodeGrantRequest(as, c, oauth.None(), params, spa.redirectUri, verifier, {
        [oauth.allowInsecureRequests]: true,
      });
      const out = await oauth.processAuthorizationCodeResponse(as, c, res);
      expect((await userInfo(base, out.access_token, spa.clientId)).status).to.equal(200);
    });
  });

  describe("When clients authenticate without a secret", () => {
    it("then a confidential client still needs its secret (invalid_request), a public one sending a secret is invalid_client, an unknown id is invalid_client", async () => {
      const noSecret = await token(base, { code: "x", client_id: app.clientId });
      expect(noSecret.status).to.equal(400);
      expect(noSecret.json.error).to.equal("invalid_request");
      const withSecret = await token(base, { code: "x", client_id: spa.clientId, client_secret: "anything" });
      expect(withSecret.status).to.equal(401);
      expect(withSecret.json.error).to.equal("invalid_client");
      const unknown = await token(base, { code: "x", client_id: "no-such-app" });
      expect(unknown.status).to.equal(401);
      expect(unknown.json.error).to.equal("invalid_client");
    });

    it("then failures throttle a secret sent for a public client, while client_id alone is never throttled", async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        statuses.push((await token(base, { code: "x", client_id: spa.clientId, client_secret: `s${i}` })).status);
      }
      expect(statuses.filter((s) => s === 401)).to.have.length(19);
      expect(statuses[19]).to.equal(429);
      // Bad codes with client_id alone: invalid_grant each time, never 429, and a real code still works.
      const bad = await Promise.all(
        Array.from({ length: 25 }, () => token(base, { code: "guess", client_id: spa.clientId })),
      );
      expect(bad.every((r) => r.status === 400 && r.json.error === "invalid_grant")).to.equal(true);
      expect((await grant(base, alice, spa)).status).to.equal(200);
    });
  });

  describe("When a browser page calls /token or /revoke from another origin", () => {
    it("then the preflight from a public client's redirect origin is allowed, from any other origin not", async () => {
      for (const path of ["/token", "/revoke"]) {
        const ok = await preflight(path, SPA);
        expect(ok.status).to.equal(204);
        expect(ok.headers["access-control-allow-origin"]).to.equal(SPA);
        expect(String(ok.headers["access-control-allow-methods"])).to.contain("POST");
        expect(String(ok.headers["access-control-allow-headers"]).toLowerCase()).to.contain("content-type");
        expect(String(ok.headers.vary)).to.contain("Origin");
        const no = await preflight(path, "https://evil.example");
        expect(no.headers).to.not.have.property("access-control-allow-origin");
        // A confidential app's redirect origin is not a public client's.
        const conf = await preflight(path, "https://app.example");
        expect(conf.headers).to.not.have.property("access-control-allow-origin");
      }
      // A loopback redirect URL lets its pages call from any port (as it matches any port).
      expect((await preflight("/token", "http://127.0.0.1:5173")).headers["access-control-allow-origin"]).to.equal(
        "http://127.0.0.1:5173",
      );
      expect((await preflight("/introspect", SPA)).headers).to.not.have.property("access-control-allow-origin");
      expect((await preflight("/token", "null")).headers).to.not.have.property("access-control-allow-origin");
    });

    it("then the request itself carries the header for that client only, errors included", async () => {
      const ok = await token(base, { code: "nope", client_id: spa.clientId }, { origin: SPA });
      expect(ok.json.error).to.equal("invalid_grant");
      expect(ok.headers["access-control-allow-origin"]).to.equal(SPA);
      const otherOrigin = await token(
        base,
        { code: "nope", client_id: spa.clientId },
        { origin: "https://evil.example" },
      );
      expect(otherOrigin.headers).to.not.have.property("access-control-allow-origin");
      const confidential = await token(
        base,
        { code: "nope", client_id: app.clientId, client_secret: app.clientSecret },
        { origin: SPA },
      );
      expect(confidential.headers).to.not.have.property("access-control-allow-origin");
      const rev = await postForm(base, "/revoke", { token: "t", client_id: spa.clientId }, { origin: SPA });
      expect(rev.headers["access-control-allow-origin"]).to.equal(SPA);
    });

    it("then deleting the app ends its origin's CORS", async () => {
      const list = await dev.get("/developers");
      await dev.post(`/developers/${encodeURIComponent(spa.clientId)}/delete`, { _csrf: csrfOf(list.text) });
      expect((await preflight("/token", SPA)).headers).to.not.have.property("access-control-allow-origin");
    });
  });
});

describeBackends(
  "CLI: public clients",
  (backend) => {
    it("When an operator runs apps create --public, then it prints no secret but public: true, and the app signs in with PKCE", async function () {
      this.timeout(30000);
      const node = await backend.startNode();
      await new PageClient(node.url).signUp("olga");
      const r = await sigil(
        { SECRET: TEST_SECRET, NODE_ENV: "test", REDIS_URL: backend.redis!.url },
        "apps",
        "create",
        "--owner",
        "olga",
        "--name",
        "Phone",
        "--redirect-uri",
        "http://127.0.0.1/cb",
        "--public",
      );
      expect(r.code, r.err).to.equal(0);
      const out = r.json;
      expect(Object.keys(out).sort()).to.deep.equal(["client_id", "name", "public", "redirect_uris"]);
      expect(out.public).to.equal(true);
      const alice = new PageClient(node.url);
      await alice.signUp("alice");
      const pair = await offlinePair(node.url, alice, {
        clientId: out.client_id,
        redirectUri: "http://127.0.0.1:4000/cb",
      });
      expect((await refresh(node.url, { clientId: out.client_id }, pair.refresh)).status).to.equal(200);
    });
  },
  ["redis"],
);
