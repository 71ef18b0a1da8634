// Bad input on the OpenID Connect endpoints (docs/http-api.md#openid-connect), on both stores:
// random OpenID parameters at /authorize (signed in and out), random tokens at /userinfo (GET and
// POST, header and body), random /logout requests. Never a 5xx; API errors in the documented form;
// no redirect to a URL the app has not registered, nor any without a valid id_token_hint; afterwards the whole flow still works.
import { expect } from "chai";
import fc from "fast-check";
import { describeBackends } from "./support/backends.js";
import { expectContractError, fcOptsWithin, fuzzRuns } from "./support/fuzz.js";
import { http } from "./support/http.js";
import { PageClient, type TestApp } from "./support/pages.js";
import { signInWith, verifyIdToken } from "./support/oidc.js";

const REDIRECT = "https://rp.example/cb";
const AFTER = "https://rp.example/bye";

const junk = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom("none", "login", "consent", "none login", "select_account", "0", "-1", "1e3", "99999999999", ""),
  fc.constantFrom("eyJhbGciOiJub25lIn0.e30.", "a.b.c", "x".repeat(9000), "form_post", "fragment", "query"),
);
const OIDC_PARAMS = [
  "scope",
  "response_type",
  "nonce",
  "prompt",
  "max_age",
  "login_hint",
  "id_token_hint",
  "ui_locales",
  "claims_locales",
  "acr_values",
  "response_mode",
  "request",
  "request_uri",
  "registration",
  "claims",
  "display",
  "state",
];
const params = fc.dictionary(fc.constantFrom(...OIDC_PARAMS), junk, { maxKeys: 8 });

describeBackends("Fuzz: OpenID Connect", (backend) => {
  let base: string;
  let app: TestApp;
  let alice: PageClient;
  let idToken: string;
  beforeEach(async () => {
    base = (await backend.startNode()).url;
    const dev = new PageClient(base);
    await dev.signUp("devon");
    const r = await dev.submit("/developers", "/developers", {
      name: "Fuzz RP",
      redirect_uri: REDIRECT,
      post_logout_redirect_uri: AFTER,
    });
    app = {
      clientId: /class="client-id">([^<]+)</.exec(r.text)![1]!,
      clientSecret: /class="secret client-secret">([^<]+)</.exec(r.text)![1]!,
      redirectUri: REDIRECT,
    };
    alice = new PageClient(base);
    await alice.signUp("alice");
    idToken = (await signInWith(base, alice, app, { scope: "openid profile" })).json.id_token;
  });

  it("When /authorize gets random OpenID parameters, then no 5xx and no redirect off the registered URL or the service", async function () {
    this.timeout(60_000);
    const stranger = new PageClient(base);
    await fc.assert(
      fc.asyncProperty(params, fc.boolean(), fc.boolean(), async (p, openid, signedIn) => {
        const q = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, ...p });
        if (openid) q.set("scope", `openid ${p.scope ?? ""}`);
        const r = await (signedIn ? alice : stranger).get(`/authorize?${q}`);
        expect(r.status, r.text.slice(0, 200)).to.be.below(500);
        if (r.status >= 300 && r.status < 400) {
          const loc = String(r.headers.location);
          expect(loc.startsWith(`${REDIRECT}?`) || loc.startsWith("/signin?"), loc).to.equal(true);
        }
      }),
      fcOptsWithin(fuzzRuns(120), 50_000),
    );
  });

  it("When /userinfo gets random tokens, headers and bodies, then every refusal is a documented error", async function () {
    this.timeout(60_000);
    const token = fc.oneof(fc.string({ maxLength: 60 }), fc.constant(`${"x".repeat(30)}.${"y".repeat(600)}`));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST"),
        fc.option(
          fc.oneof(
            token.map((t) => `Bearer ${t}`),
            token,
          ),
        ),
        fc.option(
          fc.oneof(
            token.map((t) => `access_token=${encodeURIComponent(t)}`),
            fc.string({ maxLength: 60 }),
          ),
        ),
        fc.constantFrom("application/x-www-form-urlencoded", "application/json", "text/plain"),
        async (method, auth, body, type) => {
          const headers: Record<string, string> = {};
          if (auth !== null) headers.authorization = auth.replace(/[\r\n]/g, "");
          if (method === "POST" && body !== null) headers["content-type"] = type;
          const r = await http(base, "/userinfo", {
            method,
            headers,
            ...(method === "POST" && body !== null ? { body } : {}),
          });
          expect(r.status).to.be.oneOf([400, 401, 413]);
          expectContractError(r, "userinfo");
        },
      ),
      fcOptsWithin(fuzzRuns(120), 50_000),
    );
  });

  it("When /logout gets random requests, then no 5xx, and it redirects only to the registered URL", async function () {
    this.timeout(60_000);
    const logoutParams = fc.record(
      {
        id_token_hint: fc.oneof(junk, fc.constant(idToken)),
        post_logout_redirect_uri: fc.oneof(
          junk,
          fc.constantFrom(AFTER, `${AFTER}/`, REDIRECT, "https://evil.example/"),
        ),
        state: junk,
        client_id: fc.oneof(junk, fc.constant(app.clientId)),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(logoutParams, fc.boolean(), async (p, post) => {
        const viewer = new PageClient(base);
        const r = post
          ? await viewer.post("/logout", p as Record<string, string>)
          : await viewer.get(`/logout?${new URLSearchParams(p as Record<string, string>)}`);
        expect(r.status, r.text.slice(0, 200)).to.be.below(500);
        if (r.status >= 300 && r.status < 400) {
          expect(String(r.headers.location).startsWith(AFTER)).to.equal(true);
          // Only a valid hint lets the end be a redirect (docs/http-api.md#logout).
          expect(p.id_token_hint).to.equal(idToken);
        }
      }),
      fcOptsWithin(fuzzRuns(80), 50_000),
    );
    // Afterwards the flow still works.
    const t = await signInWith(base, alice, app, { scope: "openid", nonce: "after" });
    expect((await verifyIdToken(base, t.json.id_token, app.clientId)).claims.nonce).to.equal("after");
  });
});
