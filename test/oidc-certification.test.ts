// The OpenID Foundation's Basic OP certification plan (the "Basic" profile: code flow), line by
// line, through the real server on both stores (docs/http-api.md#openid-connect). Each `it` names
// the plan's test module. What does not apply is said in docs/choices.md ("OpenID Connect").
//
// OP-Refresh-Tokens: rotation, reuse and lifetimes are tested in test/oidc-refresh*.test.ts; the
// ID token a refresh answers is tested here.
import { expect } from "chai";
import { decodeJwt } from "jose";
import { createHash } from "node:crypto";
import { requireRedis, TestRedis } from "./support/redis.js";
import { startNode, type TestNode } from "./support/nodes.js";
import { http } from "./support/http.js";
import {
  PageClient,
  authorize,
  basic,
  csrfOf,
  token,
  decodeHtml,
  pkce,
  registerApp,
  type TestApp,
} from "./support/pages.js";
import { ageSignIn, jwksOf, signInWith, trade, verifyIdToken } from "./support/oidc.js";

const REDIRECT = "https://rp.example/cb";

for (const backend of ["memory", "redis"] as const) {
  describe(`OpenID Connect Basic OP certification plan [${backend}]`, function () {
    let redis: TestRedis | undefined;
    let node: TestNode;
    let base: string;
    let dev: PageClient;
    let alice: PageClient;
    let aliceId: string;
    let bob: PageClient;

    before(async function () {
      if (backend === "redis") {
        requireRedis(this);
        redis = await TestRedis.start();
      }
      node = await startNode(redis ? { redisUrl: redis.url } : {});
      base = node.url;
      dev = new PageClient(base);
      await dev.signUp("rp.dev");
      alice = new PageClient(base);
      await alice.signUp("alice", "password123", "Alice Liddell");
      bob = new PageClient(base);
      await bob.signUp("bob", "password456", "Bob");
      aliceId = (await node.opened.store.accounts.byUsername("alice"))!.id;
    });
    after(async () => {
      await node?.close();
      await redis?.destroy();
    });

    /** A fresh app (so consent starts afresh), registered on /developers. */
    const newApp = (uris = [REDIRECT]) => registerApp(dev, uris, "Certification RP");
    const authz = (app: TestApp, params: Record<string, string>) =>
      `/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: app.redirectUri, ...params })}`;
    /** The redirect back to the app, parsed. */
    const landing = (location: unknown) => new URL(String(location));
    /** Signs in again on the sign-in page a redirect led to, and follows the way back. */
    async function signInAgain(person: PageClient, signinLocation: string, username: string, password: string) {
      const page = await person.get(signinLocation);
      expect(page.status).to.equal(200);
      const r = await person.post(new URL(signinLocation, base).pathname + new URL(signinLocation, base).search, {
        _csrf: csrfOf(page.text),
        username,
        password,
      });
      expect(r.status).to.equal(303);
      return person.get(String(r.headers.location));
    }

    describe("Discovery and keys", () => {
      it("OP-Discovery-Config: the openid-configuration names every endpoint and what they take", async () => {
        const r = await http(base, "/.well-known/openid-configuration");
        expect(r.status).to.equal(200);
        expect(r.headers["content-type"]).to.match(/^application\/json/);
        expect(r.headers["cache-control"]).to.equal("public, max-age=300");
        const d = r.json;
        expect(d).to.include({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          userinfo_endpoint: `${base}/userinfo`,
          jwks_uri: `${base}/jwks`,
          revocation_endpoint: `${base}/revoke`,
          introspection_endpoint: `${base}/introspect`,
          device_authorization_endpoint: `${base}/device_authorization`,
          end_session_endpoint: `${base}/logout`,
          authorization_response_iss_parameter_supported: true,
        });
        expect(d.scopes_supported).to.include.members(["openid", "profile", "email", "offline_access"]);
        expect(d.response_types_supported).to.deep.equal(["code"]);
        expect(d.grant_types_supported).to.deep.equal([
          "authorization_code",
          "refresh_token",
          "client_credentials",
          "urn:ietf:params:oauth:grant-type:device_code",
        ]);
        expect(d.subject_types_supported).to.deep.equal(["public"]);
        expect(d.id_token_signing_alg_values_supported).to.include("RS256");
        expect(d.token_endpoint_auth_methods_supported).to.deep.equal([
          "client_secret_basic",
          "client_secret_post",
          "none",
        ]);
        expect(d.code_challenge_methods_supported).to.deep.equal(["S256"]);
        expect(d.prompt_values_supported).to.include.members(["none", "login", "consent"]);
        expect(d.claims_supported).to.include.members([
          "sub",
          "iss",
          "aud",
          "exp",
          "iat",
          "auth_time",
          "nonce",
          "amr",
          "at_hash",
          "name",
          "preferred_username",
          "picture",
          "email",
          "email_verified",
        ]);
        expect(d.request_parameter_supported).to.equal(false);
        expect(d.request_uri_parameter_supported).to.equal(false);
      });

      it("OP-Discovery-Config (RFC 8414): the OAuth metadata names the same endpoints", async () => {
        const oidc = (await http(base, "/.well-known/openid-configuration")).json;
        const oauth = (await http(base, "/.well-known/oauth-authorization-server")).json;
        for (const k of [
          "issuer",
          "authorization_endpoint",
          "token_endpoint",
          "userinfo_endpoint",
          "jwks_uri",
          "revocation_endpoint",
          "introspection_endpoint",
          "end_session_endpoint",
          "code_challenge_methods_supported",
          "token_endpoint_auth_methods_supported",
        ]) {
          expect(oauth[k], k).to.deep.equal(oidc[k]);
        }
      });

      it("with AUTH_URL apart from BASE_URL, the pages' endpoints are on AUTH_URL and the rest on BASE_URL", async () => {
        const split = await startNode({
          ...(redis ? { redisUrl: redis.url } : {}),
          env: { AUTH_URL: "https://login.example", BASE_URL: "https://api.example" },
        });
        try {
          const d = (await http(split.url, "/.well-known/openid-configuration")).json;
          expect(d).to.include({
            issuer: "https://api.example",
            authorization_endpoint: "https://login.example/authorize",
            end_session_endpoint: "https://login.example/logout",
            token_endpoint: "https://api.example/token",
            userinfo_endpoint: "https://api.example/userinfo",
            jwks_uri: "https://api.example/jwks",
          });
        } finally {
          await split.close();
        }
      });

      it("/openapi.json describes the OpenID Connect JSON endpoints", async () => {
        const paths = (await http(base, "/openapi.json")).json.paths;
        expect(paths["/userinfo"]).to.have.keys(["get", "post"]);
        expect(paths["/jwks"]).to.have.keys(["get"]);
        expect(paths["/.well-known/openid-configuration"]).to.have.keys(["get"]);
        expect(paths["/token"].post.responses["200"].content["application/json"].schema.properties).to.have.property(
          "id_token",
        );
      });

      it("OP-Discovery-JWKs: jwks_uri serves RSA public keys with kid, alg and use, and nothing private", async () => {
        const r = await http(base, "/jwks");
        expect(r.status).to.equal(200);
        expect(r.headers["content-type"]).to.match(/^application\/jwk-set\+json/);
        expect(r.headers["cache-control"]).to.match(/^public, max-age=\d+$/);
        expect(r.json.keys).to.have.length.greaterThan(0);
        for (const k of r.json.keys) {
          expect(Object.keys(k).sort()).to.deep.equal(["alg", "e", "kid", "kty", "n", "use"]);
          expect(k).to.include({ kty: "RSA", alg: "RS256", use: "sig" });
        }
      });
    });

    describe("The authorization request", () => {
      it("OP-Response-code: the code flow gives an ID token with every claim §9 names, signed by a key of the JWKS", async () => {
        const app = await newApp();
        const r = await signInWith(base, alice, app, { scope: "openid profile", nonce: "n-0S6_WzA2Mj" });
        expect(r.status).to.equal(200);
        expect(r.headers["cache-control"]).to.equal("no-store");
        expect(Object.keys(r.json).sort()).to.deep.equal([
          "access_token",
          "expires_in",
          "id_token",
          "scope",
          "token_type",
        ]);
        expect(r.json.scope).to.equal("openid profile");
        const { claims, kid } = await verifyIdToken(base, r.json.id_token, app.clientId);
        const { set } = await jwksOf(base);
        expect(set.keys.map((k) => k.kid)).to.include(kid);
        expect(claims).to.include({
          iss: base,
          sub: aliceId,
          aud: app.clientId,
          nonce: "n-0S6_WzA2Mj",
          name: "Alice Liddell",
          preferred_username: "alice",
          picture: `${base}/pictures/${aliceId}`,
        });
        expect(claims.amr).to.deep.equal(["pwd"]);
        const now = Math.floor(Date.now() / 1000);
        expect(claims.iat).to.be.within(now - 60, now + 5);
        expect(claims.exp).to.equal(claims.iat! + node.config.accessTokenTtl);
        expect(claims.auth_time).to.be.within(now - 600, now);
        const digest = createHash("sha256").update(r.json.access_token).digest();
        expect(claims.at_hash).to.equal(digest.subarray(0, 16).toString("base64url"));
        // sub is the id /auth/user gives for the same access token.
        const me = await http(base, "/auth/user", {
          headers: { authorization: `Bearer ${r.json.access_token}`, client_id: app.clientId },
        });
        expect(me.json.id).to.equal(claims.sub);
      });

      it("OP-Response-Missing: an OpenID request without response_type is refused with invalid_request", async () => {
        const app = await newApp();
        const r = await alice.get(authz(app, { scope: "openid", state: "st" }));
        expect(r.status).to.equal(303);
        const u = landing(r.headers.location);
        expect(u.origin + u.pathname).to.equal(REDIRECT);
        expect(u.searchParams.get("error")).to.equal("invalid_request");
        expect(u.searchParams.get("state")).to.equal("st");
        expect(u.searchParams.get("code")).to.equal(null);
      });

      it("OP-nonce-noncode: the code flow without a nonce works, and the ID token has no nonce", async () => {
        const app = await newApp();
        const r = await signInWith(base, alice, app, { scope: "openid" });
        const { claims } = await verifyIdToken(base, r.json.id_token, app.clientId);
        expect(claims).to.not.have.property("nonce");
        expect(r.json.scope).to.equal("openid");
        expect(claims).to.not.have.property("name");
      });

      it("OP-scope-All / scopes in any order: the granted scope is the same set, unknown values ignored", async () => {
        const app = await newApp();
        const a = await signInWith(base, alice, app, { scope: "email profile openid" });
        const b = await signInWith(base, alice, app, { scope: "profile openid weird:scope email" });
        expect(a.json.scope).to.equal("openid profile email");
        expect(b.json.scope).to.equal("openid profile email");
      });

      it("OP-Req-NotUnderstood: unknown parameters are ignored", async () => {
        const app = await newApp();
        const r = await signInWith(base, alice, app, { scope: "openid", extra: "foobar", display: "page" });
        expect(r.status).to.equal(200);
        expect(r.json.id_token).to.be.a("string");
      });

      it("OP-redirect_uri-NotReg / exact match: an unregistered or altered redirect URI never redirects", async () => {
        const app = await newApp();
        for (const uri of [`${REDIRECT}/`, `${REDIRECT}?x=1`, "https://rp.example/other", "https://evil.example/cb"]) {
          const r = await alice.get(
            `/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: uri, response_type: "code", scope: "openid" })}`,
          );
          expect(r.status, uri).to.equal(400);
          expect(r.headers.location).to.equal(undefined);
        }
        // …and the token request must name the very same URI.
        const landed = await authorize(alice, {
          client_id: app.clientId,
          redirect_uri: REDIRECT,
          response_type: "code",
          scope: "openid",
        });
        const t = await trade(base, app, landed.searchParams.get("code")!, { redirect_uri: `${REDIRECT}/` });
        expect(t.status).to.equal(400);
        expect(t.json.error).to.equal("invalid_grant");
      });

      it("OP-request-Unsigned / OP-request_uri-Unsigned: request objects are refused", async () => {
        const app = await newApp();
        for (const [param, error] of [
          ["request", "request_not_supported"],
          ["request_uri", "request_uri_not_supported"],
        ] as const) {
          const r = await alice.get(
            authz(app, { scope: "openid", response_type: "code", [param]: "eyJhbGciOiJub25lIn0.e30.", state: "s" }),
          );
          expect(r.status).to.equal(303);
          const u = landing(r.headers.location);
          expect(u.searchParams.get("error")).to.equal(error);
          expect(u.searchParams.get("state")).to.equal("s");
        }
      });

      it("OP-Req-login_hint: the sign-in page comes with the username filled in", async () => {
        const app = await newApp();
        const stranger = new PageClient(base);
        const r = await stranger.get(authz(app, { scope: "openid", response_type: "code", login_hint: "alice" }));
        expect(r.status).to.equal(303);
        const signin = await stranger.get(String(r.headers.location));
        expect(signin.status).to.equal(200);
        expect(signin.text).to.match(/name="username"[^>]*value="alice"/);
      });

      it("OP-Req-ui_locales, OP-Req-claims_locales, OP-Req-acr_values: accepted, and ui_locales is carried through sign-in and consent", async () => {
        const app = await newApp();
        const params = {
          scope: "openid",
          response_type: "code",
          ui_locales: "fr-CA fr",
          claims_locales: "fr",
          acr_values: "1 2",
        };
        const stranger = new PageClient(base);
        const r = await stranger.get(authz(app, params));
        const returnTo = new URL(String(r.headers.location), base).searchParams.get("return_to")!;
        expect(new URL(returnTo, base).searchParams.get("ui_locales")).to.equal("fr-CA fr");
        const consent = await alice.get(authz(app, params));
        expect(consent.status).to.equal(200);
        expect(decodeHtml(consent.text)).to.include('name="ui_locales" value="fr-CA fr"');
        const t = await signInWith(base, alice, app, params);
        expect(t.json.id_token).to.be.a("string");
      });

      it("OP-PKCE: with code_challenge the verifier is required and must match", async () => {
        const app = await newApp();
        const { verifier, challenge } = pkce();
        const go = async () =>
          (
            await authorize(alice, {
              client_id: app.clientId,
              redirect_uri: REDIRECT,
              response_type: "code",
              scope: "openid",
              code_challenge: challenge,
              code_challenge_method: "S256",
            })
          ).searchParams.get("code")!;
        expect((await trade(base, app, await go())).json.error).to.equal("invalid_grant");
        expect((await trade(base, app, await go(), { code_verifier: pkce().verifier })).json.error).to.equal(
          "invalid_grant",
        );
        const ok = await trade(base, app, await go(), { code_verifier: verifier });
        expect(ok.status).to.equal(200);
        expect(ok.json.id_token).to.be.a("string");
      });
    });

    describe("prompt, max_age and id_token_hint", () => {
      it("OP-prompt-login: a signed-in person is asked to sign in again, and auth_time moves on", async () => {
        const app = await newApp();
        const first = await signInWith(base, alice, app, { scope: "openid" });
        const before = decodeJwt(first.json.id_token).auth_time as number;
        await ageSignIn(node.opened.store, alice, 5); // the first sign-in was 5 s ago
        const r = await alice.get(authz(app, { scope: "openid", response_type: "code", prompt: "login" }));
        expect(r.status).to.equal(303);
        expect(String(r.headers.location)).to.match(/^\/signin\?/);
        const back = await signInAgain(alice, String(r.headers.location), "alice", "password123");
        expect(back.status).to.equal(303);
        const code = landing(back.headers.location).searchParams.get("code")!;
        const t = await trade(base, app, code);
        expect(decodeJwt(t.json.id_token).auth_time as number).to.be.at.least(before);
      });

      it("OP-prompt-none-LoggedIn: a signed-in person who allowed the app gets a code with no page", async () => {
        const app = await newApp();
        await signInWith(base, alice, app, { scope: "openid profile" });
        const r = await alice.get(
          authz(app, { scope: "openid profile", response_type: "code", prompt: "none", state: "q" }),
        );
        expect(r.status).to.equal(303);
        const u = landing(r.headers.location);
        expect(u.searchParams.get("code")).to.be.a("string");
        expect(u.searchParams.get("state")).to.equal("q");
      });

      it("OP-prompt-none-NotLoggedIn: nobody signed in gets login_required; no consent gets consent_required", async () => {
        const app = await newApp();
        const r = await new PageClient(base).get(
          authz(app, { scope: "openid", response_type: "code", prompt: "none", state: "z" }),
        );
        expect(r.status).to.equal(303);
        let u = landing(r.headers.location);
        expect(u.searchParams.get("error")).to.equal("login_required");
        expect(u.searchParams.get("state")).to.equal("z");
        expect(u.searchParams.get("iss")).to.equal(base);
        const c = await bob.get(authz(app, { scope: "openid", response_type: "code", prompt: "none" }));
        u = landing(c.headers.location);
        expect(u.searchParams.get("error")).to.equal("consent_required");
      });

      it("prompt=consent: the consent page is shown again though the app was allowed", async () => {
        const app = await newApp();
        await signInWith(base, alice, app, { scope: "openid" });
        const again = await alice.get(authz(app, { scope: "openid", response_type: "code" }));
        expect(again.status).to.equal(303);
        const asked = await alice.get(authz(app, { scope: "openid", response_type: "code", prompt: "consent" }));
        expect(asked.status).to.equal(200);
        expect(asked.text).to.include('value="allow"');
      });

      it("a scope the person has not allowed yet (offline_access, email) asks for consent again, in plain words", async () => {
        const app = await newApp();
        await signInWith(base, alice, app, { scope: "openid profile" });
        const r = await alice.get(authz(app, { scope: "openid profile offline_access email", response_type: "code" }));
        expect(r.status).to.equal(200);
        expect(r.text).to.include("stay signed in while you are away");
        expect(r.text).to.include("your email address");
        expect(r.text).to.include("your display name");
      });

      it("a withdrawn consent forgets its scopes: allowing again asks afresh for each scope", async () => {
        const app = await newApp();
        await signInWith(base, alice, app, { scope: "openid profile offline_access" });
        const account = await alice.get("/account");
        const w = await alice.post("/account/consents/withdraw", {
          _csrf: csrfOf(account.text),
          client_id: app.clientId,
        });
        expect(w.status).to.equal(303);
        const silent = await alice.get(authz(app, { scope: "openid", response_type: "code", prompt: "none" }));
        expect(landing(silent.headers.location).searchParams.get("error")).to.equal("consent_required");
        await signInWith(base, alice, app, { scope: "openid profile" });
        const r = await alice.get(authz(app, { scope: "openid offline_access", response_type: "code" }));
        expect(r.status).to.equal(200);
        expect(r.text).to.include("stay signed in while you are away");
      });

      it("OP-max_age=1: a sign-in older than max_age asks for the password again", async () => {
        const app = await newApp();
        await signInWith(base, alice, app, { scope: "openid" });
        await ageSignIn(node.opened.store, alice, 2);
        const r = await alice.get(authz(app, { scope: "openid", response_type: "code", max_age: "1" }));
        expect(r.status).to.equal(303);
        expect(String(r.headers.location)).to.match(/^\/signin\?/);
        const silent = await alice.get(
          authz(app, { scope: "openid", response_type: "code", max_age: "1", prompt: "none" }),
        );
        expect(landing(silent.headers.location).searchParams.get("error")).to.equal("login_required");
        const back = await signInAgain(alice, String(r.headers.location), "alice", "password123");
        const t = await trade(base, app, landing(back.headers.location).searchParams.get("code")!);
        const authTime = decodeJwt(t.json.id_token).auth_time as number;
        expect(Math.floor(Date.now() / 1000) - authTime).to.be.at.most(30);
      });

      it("OP-max_age=10000: a recent sign-in is enough, and auth_time tells when it was", async () => {
        const app = await newApp();
        await signInWith(base, alice, app, { scope: "openid" });
        await ageSignIn(node.opened.store, alice, 100);
        const r = await alice.get(authz(app, { scope: "openid", response_type: "code", max_age: "10000" }));
        expect(r.status).to.equal(303);
        const t = await trade(base, app, landing(r.headers.location).searchParams.get("code")!);
        const authTime = decodeJwt(t.json.id_token).auth_time as number;
        expect(Math.floor(Date.now() / 1000) - authTime).to.be.at.least(100);
      });

      it("OP-Req-id_token_hint: with prompt=none and a hint for the signed-in person, a code; for someone else, login_required", async () => {
        const app = await newApp();
        const first = await signInWith(base, alice, app, { scope: "openid" });
        const hint = first.json.id_token as string;
        const r = await alice.get(
          authz(app, { scope: "openid", response_type: "code", prompt: "none", id_token_hint: hint }),
        );
        const t = await trade(base, app, landing(r.headers.location).searchParams.get("code")!);
        expect(decodeJwt(t.json.id_token).sub).to.equal(decodeJwt(hint).sub);
        await signInWith(base, bob, app, { scope: "openid" });
        const other = await bob.get(
          authz(app, { scope: "openid", response_type: "code", prompt: "none", id_token_hint: hint }),
        );
        expect(landing(other.headers.location).searchParams.get("error")).to.equal("login_required");
        const forged = await alice.get(
          authz(app, { scope: "openid", response_type: "code", id_token_hint: `${hint.slice(0, -4)}AAAA` }),
        );
        expect(landing(forged.headers.location).searchParams.get("error")).to.equal("invalid_request");
      });
    });

    describe("The token and userinfo endpoints", () => {
      let app: TestApp;
      let accessToken: string;
      before(async () => {
        app = await newApp();
        accessToken = (await signInWith(base, alice, app, { scope: "openid profile email" })).json.access_token;
      });
      const expected = () => ({
        sub: aliceId,
        name: "Alice Liddell",
        preferred_username: "alice",
        picture: `${base}/pictures/${aliceId}`,
      });

      it("OP-UserInfo-Endpoint: GET with a Bearer header gives the claims of the scopes (no email: users have none yet)", async () => {
        const r = await http(base, "/userinfo", { headers: { authorization: `Bearer ${accessToken}` } });
        expect(r.status).to.equal(200);
        expect(r.headers["cache-control"]).to.equal("no-store");
        expect(r.json).to.deep.equal(expected());
      });

      it("OP-UserInfo-Header: POST with a Bearer header", async () => {
        const r = await http(base, "/userinfo", {
          method: "POST",
          headers: { authorization: `Bearer ${accessToken}` },
        });
        expect(r.status).to.equal(200);
        expect(r.json).to.deep.equal(expected());
      });

      it("OP-UserInfo-Body: POST with access_token in a form body", async () => {
        const r = await http(base, "/userinfo", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ access_token: accessToken }).toString(),
        });
        expect(r.status).to.equal(200);
        expect(r.json).to.deep.equal(expected());
      });

      it("userinfo errors are RFC 6750's: 401 invalid_token with WWW-Authenticate; a token in the URL or sent twice is 400", async () => {
        const tries: Array<Record<string, string>> = [
          {},
          { authorization: "Bearer nope" },
          { authorization: `Bearer ${accessToken}x` },
          { authorization: `Basic ${accessToken}` },
        ];
        for (const headers of tries) {
          const r = await http(base, "/userinfo", { headers });
          expect(r.status).to.equal(401);
          expect(r.json.error).to.equal("invalid_token");
          expect(r.headers["www-authenticate"]).to.equal('Bearer error="invalid_token"');
        }
        const inUrl = await http(base, `/userinfo?access_token=${accessToken}`);
        expect(inUrl.status).to.equal(400);
        const twice = await http(base, "/userinfo", {
          method: "POST",
          headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/x-www-form-urlencoded" },
          body: `access_token=${accessToken}`,
        });
        expect(twice.status).to.equal(400);
        expect(twice.json.error).to.equal("invalid_request");
      });

      it("userinfo answers browsers from any origin (CORS like /auth/user)", async () => {
        const r = await http(base, "/userinfo", {
          method: "OPTIONS",
          headers: {
            origin: "https://spa.example",
            "access-control-request-method": "GET",
            "access-control-request-headers": "authorization",
          },
        });
        expect(r.status).to.equal(204);
        expect(r.headers["access-control-allow-origin"]).to.equal("*");
        expect(String(r.headers["access-control-allow-headers"])).to.include("authorization");
      });

      it("a plain OAuth token (no openid) gets exactly §3's answer, and userinfo does not take it", async () => {
        const plain = await newApp();
        const r = await signInWith(base, alice, plain, { scope: "profile" });
        expect(Object.keys(r.json).sort()).to.deep.equal(["access_token", "expires_in", "scope", "token_type"]);
        expect(r.json.scope).to.equal("profile");
        const u = await http(base, "/userinfo", { headers: { authorization: `Bearer ${r.json.access_token}` } });
        expect(u.status).to.equal(401);
      });

      it("an openid grant without profile reads sub alone, and /auth/user refuses it with insufficient_scope", async () => {
        const narrow = await newApp();
        const r = await signInWith(base, alice, narrow, { scope: "openid" });
        const u = await http(base, "/userinfo", { headers: { authorization: `Bearer ${r.json.access_token}` } });
        expect(u.json).to.deep.equal({ sub: aliceId });
        const me = await http(base, "/auth/user", {
          headers: { authorization: `Bearer ${r.json.access_token}`, client_id: narrow.clientId },
        });
        expect(me.status).to.equal(403);
        expect(me.json.error).to.equal("insufficient_scope");
      });

      it("OP-OAuth-2nd: a code used twice fails, and the access token issued from it stops working", async () => {
        const fresh = await newApp();
        const landed = await authorize(alice, {
          client_id: fresh.clientId,
          redirect_uri: REDIRECT,
          response_type: "code",
          scope: "openid",
        });
        const code = landed.searchParams.get("code")!;
        const first = await trade(base, fresh, code);
        expect(first.status).to.equal(200);
        const second = await trade(base, fresh, code);
        expect(second.status).to.equal(400);
        expect(second.json.error).to.equal("invalid_grant");
        const u = await http(base, "/userinfo", { headers: { authorization: `Bearer ${first.json.access_token}` } });
        expect(u.status).to.equal(401);
      });

      it("OP-OAuth-2nd-30s: a code used again after its lifetime (CODE_TTL=1 here) still fails and still revokes", async () => {
        const short = await startNode({ ...(redis ? { redisUrl: redis.url } : {}), env: { CODE_TTL: "1" } });
        try {
          const d = new PageClient(short.url);
          await d.signUp("short.dev");
          const a = await registerApp(d, [REDIRECT]);
          const landed = await authorize(d, {
            client_id: a.clientId,
            redirect_uri: REDIRECT,
            response_type: "code",
            scope: "openid",
          });
          const code = landed.searchParams.get("code")!;
          const first = await trade(short.url, a, code);
          expect(first.status).to.equal(200);
          await new Promise((r) => setTimeout(r, 1200)); // past CODE_TTL
          const second = await trade(short.url, a, code);
          expect(second.json.error).to.equal("invalid_grant");
          const u = await http(short.url, "/userinfo", {
            headers: { authorization: `Bearer ${first.json.access_token}` },
          });
          expect(u.status).to.equal(401);
        } finally {
          await short.close();
        }
      });

      it("OP-Refresh-Tokens (the ID token part): a refresh of an OpenID grant answers a new ID token for the same sign-in", async () => {
        const rp = await newApp();
        const first = await signInWith(base, alice, rp, { scope: "openid profile offline_access", nonce: "n1" });
        expect(first.json.refresh_token).to.be.a("string");
        const r = await http(base, "/token", {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            authorization: basic(rp.clientId, rp.clientSecret),
          },
          body: new URLSearchParams({
            grant_type: "refresh_token",
            refresh_token: first.json.refresh_token,
          }).toString(),
        });
        expect(r.status, r.text).to.equal(200);
        const before = (await verifyIdToken(base, first.json.id_token, rp.clientId)).claims;
        const { claims } = await verifyIdToken(base, r.json.id_token, rp.clientId);
        expect(claims.sub).to.equal(before.sub);
        expect(claims.auth_time).to.equal(before.auth_time);
        expect(claims).to.not.have.property("nonce"); // OpenID Connect Core §12.2
        const digest = createHash("sha256").update(r.json.access_token).digest();
        expect(claims.at_hash).to.equal(digest.subarray(0, 16).toString("base64url"));
      });

      it("a public client (PKCE, no secret) gets an ID token too", async () => {
        const reg = await dev.submit("/developers", "/developers", {
          name: "SPA RP",
          redirect_uri: "http://127.0.0.1:5173/cb",
          client_type: "public",
        });
        expect(reg.status).to.equal(201);
        const clientId = /class="client-id">([^<]+)</.exec(reg.text)![1]!;
        const { verifier, challenge } = pkce();
        const landed = await authorize(alice, {
          client_id: clientId,
          redirect_uri: "http://127.0.0.1:5173/cb",
          response_type: "code",
          scope: "openid",
          code_challenge: challenge,
          code_challenge_method: "S256",
        });
        const t = await token(base, {
          grant_type: "authorization_code",
          code: landed.searchParams.get("code")!,
          redirect_uri: "http://127.0.0.1:5173/cb",
          client_id: clientId,
          code_verifier: verifier,
        });
        expect(t.status, t.text).to.equal(200);
        expect((await verifyIdToken(base, t.json.id_token, clientId)).claims.sub).to.equal(aliceId);
      });

      it("client_secret_basic and client_secret_post both get an ID token", async () => {
        const other = await newApp();
        const landed = await authorize(alice, {
          client_id: other.clientId,
          redirect_uri: REDIRECT,
          response_type: "code",
          scope: "openid",
        });
        const r = await http(base, "/token", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code: landed.searchParams.get("code")!,
            redirect_uri: REDIRECT,
            client_id: other.clientId,
            client_secret: other.clientSecret,
          }).toString(),
        });
        expect(r.status).to.equal(200);
        await verifyIdToken(base, r.json.id_token, other.clientId);
      });
    });
  });
}
