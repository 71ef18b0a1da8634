// docs/http-api.md#get-auth_urlauthorize, GET /authorize: every rule, on both stores.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { PageClient, authorize, csrfOf, pkce, registerApp, userInfo, type TestApp } from "./support/pages.js";
import { signInWith, trade } from "./support/oidc.js";

describeBackends("Authorize", (backend) => {
  let base: string;
  let app: TestApp;
  let alice: PageClient;
  beforeEach(async () => {
    base = (await backend.startNode()).url;
    const dev = new PageClient(base);
    await dev.signUp("devon");
    app = await registerApp(
      dev,
      ["https://app.example/cb?tenant=7", "http://127.0.0.1:9999/loop", "https://other.example/cb"],
      "Photo <Printer>",
    );
    alice = new PageClient(base);
    await alice.signUp("alice", "password123", "Alice");
  });

  describe("When the client or redirect URL is wrong", () => {
    for (const [what, params] of [
      ["an unknown client_id", { client_id: "nope", redirect_uri: "https://app.example/cb?tenant=7" }],
      ["no client_id", { client_id: "", redirect_uri: "https://app.example/cb?tenant=7" }],
      ["an unregistered redirect_uri", { redirect_uri: "https://evil.example/cb" }],
      ["a redirect_uri differing only by a trailing slash", { redirect_uri: "https://app.example/cb/?tenant=7" }],
      ["a redirect_uri with extra query", { redirect_uri: "https://app.example/cb?tenant=7&x=1" }],
      ["no redirect_uri while several are registered", {}],
      ["a loopback URL on another host", { redirect_uri: "http://127.0.0.2:9999/loop" }],
      ["a loopback URL on another path", { redirect_uri: "http://127.0.0.1:9999/other" }],
    ] as const) {
      it(`then ${what} shows a 400 page and nothing redirects`, async () => {
        const q = new URLSearchParams({ client_id: app.clientId, state: "s" });
        for (const [k, v] of Object.entries(params)) q.set(k, v);
        for (const c of [alice, new PageClient(base)]) {
          const r = await c.get(`/authorize?${q}`);
          expect(r.status).to.equal(400);
          expect(r.headers.location).to.equal(undefined);
          expect(r.headers["content-type"]).to.match(/^text\/html/);
        }
      });
    }

    it("then an unregistered redirect_uri's 400 page names the app and shows the value sent, HTML-escaped, for the developer", async () => {
      const sent = "https://evil.example/cb?next=<script>alert(1)</script>&x=\"'";
      for (const c of [alice, new PageClient(base)]) {
        const r = await c.get(`/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: sent })}`);
        expect(r.status).to.equal(400);
        expect(r.headers.location).to.equal(undefined);
        expect(r.text).to.contain('<strong class="app-name">Photo &lt;Printer></strong>');
        expect(r.text).to.contain(
          '<code class="sent-redirect">https://evil.example/cb?next=&lt;script>alert(1)&lt;/script>&amp;x=&quot;\'</code>',
        );
        expect(r.text).to.not.contain("<script>");
        expect(r.text).to.not.contain("<Printer>");
        // Shown as text only: never a link to it.
        expect(r.text).to.not.contain('href="https://evil.example');
      }
      // The consent form's POST is refused the same way.
      const form = await alice.get(
        `/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: "https://other.example/cb" })}`,
      );
      const posted = await alice.post("/authorize", {
        _csrf: csrfOf(form.text),
        client_id: app.clientId,
        redirect_uri: "https://evil.example/posted",
        decision: "allow",
      });
      expect(posted.status).to.equal(400);
      expect(posted.text).to.contain('<code class="sent-redirect">https://evil.example/posted</code>');
    });

    it("then a long unregistered redirect_uri is shown cut, visibly, with its full length; none sent says so", async () => {
      const sent = `https://evil.example/${"a".repeat(2000)}`;
      const r = await alice.get(`/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: sent })}`);
      expect(r.status).to.equal(400);
      const shown = /<code class="sent-redirect">([^<]*)<\/code>/.exec(r.text)?.[1];
      expect(shown).to.equal(`${sent.slice(0, 300)}…`);
      expect(r.text).to.match(
        /<p class="muted redirect-shortened">Shortened: the first 300 of its 2,021 characters\.<\/p>/,
      );
      // Control characters are shown as they travel in a URL, not as raw bytes.
      const odd = await alice.get(
        `/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: "https://evil.example/\n\u0000x" })}`,
      );
      expect(odd.text).to.contain('<code class="sent-redirect">https://evil.example/%0A%00x</code>');
      const none = await alice.get(`/authorize?${new URLSearchParams({ client_id: app.clientId })}`);
      expect(none.status).to.equal(400);
      expect(none.text).to.contain("No redirect_uri was sent, and the app has registered more than one");
      expect(none.text).to.contain('<strong class="app-name">Photo &lt;Printer></strong>');
      expect(none.text).to.not.contain("sent-redirect");
    });

    it("then a loopback redirect URL matches with any port (RFC 8252)", async () => {
      const u = await authorize(alice, {
        client_id: app.clientId,
        redirect_uri: "http://127.0.0.1:51234/loop",
        state: "s",
      });
      expect(u.origin).to.equal("http://127.0.0.1:51234");
      expect(u.searchParams.get("code")).to.be.a("string");
    });
  });

  describe("When the request is otherwise bad", () => {
    const redirect_uri = "https://app.example/cb?tenant=7";
    for (const [what, params, error] of [
      ["response_type=token", { response_type: "token" }, "unsupported_response_type"],
      ["response_type=id_token", { response_type: "id_token" }, "unsupported_response_type"],
      [
        "code_challenge_method=plain",
        { code_challenge: "a".repeat(43), code_challenge_method: "plain" },
        "invalid_request",
      ],
      ["a code_challenge_method without challenge", { code_challenge_method: "S256" }, "invalid_request"],
      ["a malformed code_challenge", { code_challenge: "short", code_challenge_method: "S256" }, "invalid_request"],
    ] as const) {
      it(`then ${what} redirects with error=${error}, iss and state`, async () => {
        const r = await alice.get(
          `/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri, state: "st 1", ...params })}`,
        );
        expect(r.status).to.equal(303);
        const u = new URL(String(r.headers.location));
        expect(u.origin + u.pathname).to.equal("https://app.example/cb");
        expect(u.searchParams.get("tenant")).to.equal("7");
        expect(u.searchParams.get("error")).to.equal(error);
        expect(u.searchParams.get("error_description")).to.be.a("string");
        expect(u.searchParams.get("iss")).to.equal(base);
        expect(u.searchParams.get("state")).to.equal("st 1");
        expect(u.searchParams.get("code")).to.equal(null);
      });
    }

    // Found by test/fuzz-signin.test.ts: the error redirect for a state over 2,000 characters
    // echoed that state (after unsupported_response_type too), so a ~15 KB state made a Location
    // header that node's HTTP client (16 KB of headers) could not even parse.
    for (const extra of [{}, { response_type: "token" }] as Array<Record<string, string>>) {
      it(`then a state over 2,000 characters redirects with invalid_request and no state${"response_type" in extra ? " (before other errors)" : ""}`, async () => {
        const r = await alice.get(
          `/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri, state: "s".repeat(15_000), ...extra })}`,
        );
        expect(r.status).to.equal(303);
        const u = new URL(String(r.headers.location));
        expect(u.origin + u.pathname).to.equal("https://app.example/cb");
        expect(u.searchParams.get("error")).to.equal("invalid_request");
        expect(u.searchParams.get("iss")).to.equal(base);
        expect(u.searchParams.has("state")).to.equal(false);
        expect(String(r.headers.location).length).to.be.below(500);
      });
    }
    it("then a state of exactly 2,000 characters (code points) is echoed", async () => {
      const state = "é".repeat(2000);
      const r = await alice.get(
        `/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri, state, response_type: "token" })}`,
      );
      expect(new URL(String(r.headers.location)).searchParams.get("state")).to.equal(state);
    });
  });

  describe("When a person is not signed in", () => {
    it("then they sign in (with a link to sign up) and come back to the consent page", async () => {
      const c = new PageClient(base);
      const q = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: "https://other.example/cb",
        state: "abc",
      });
      const r = await c.get(`/authorize?${q}`);
      expect(r.status).to.equal(303);
      const signin = String(r.headers.location);
      expect(signin).to.match(/^\/signin\?return_to=/);
      const page = await c.get(signin);
      expect(page.text).to.contain("Sign up");
      const back = await c.post(signin, { _csrf: csrfOf(page.text), username: "alice", password: "password123" });
      expect(back.status).to.equal(303);
      const consent = await c.get(String(back.headers.location));
      expect(consent.status).to.equal(200);
      expect(consent.text).to.contain("Photo &lt;Printer>");
    });
  });

  describe("When a signed-in person sees the consent page", () => {
    it("then it names the app and the three fields, with allow and deny buttons, and the page headers", async () => {
      const r = await alice.get(
        `/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: "https://other.example/cb" })}`,
      );
      expect(r.status).to.equal(200);
      expect(r.text).to.contain("Photo &lt;Printer>");
      for (const f of ["display name", "username", "profile picture"]) expect(r.text).to.contain(f);
      expect(r.text).to.contain('name="decision" value="allow"');
      expect(r.text).to.contain('name="decision" value="deny"');
      expect(r.headers["content-security-policy"]).to.contain("frame-ancestors 'none'");
      expect(r.headers["referrer-policy"]).to.equal("no-referrer");
    });

    it("then allow sends 303 with code, iss and state, keeping the URL's own query", async () => {
      const p = pkce();
      const u = await authorize(alice, {
        client_id: app.clientId,
        redirect_uri: "https://app.example/cb?tenant=7",
        state: "xyz&=",
        response_type: "code",
        code_challenge: p.challenge,
        code_challenge_method: "S256",
      });
      expect(u.origin + u.pathname).to.equal("https://app.example/cb");
      expect(u.searchParams.get("tenant")).to.equal("7");
      expect(u.searchParams.get("state")).to.equal("xyz&=");
      expect(u.searchParams.get("iss")).to.equal(base);
      expect(Buffer.from(u.searchParams.get("code")!, "base64url").length).to.be.at.least(16);
    });

    it("then without state the redirect carries no state", async () => {
      const u = await authorize(alice, { client_id: app.clientId, redirect_uri: "https://other.example/cb" });
      expect(u.searchParams.has("state")).to.equal(false);
    });

    it("then deny sends 303 with error=access_denied, iss and state", async () => {
      const u = await authorize(
        alice,
        { client_id: app.clientId, redirect_uri: "https://other.example/cb", state: "s1" },
        "deny",
      );
      expect(u.searchParams.get("error")).to.equal("access_denied");
      expect(u.searchParams.get("iss")).to.equal(base);
      expect(u.searchParams.get("state")).to.equal("s1");
      expect(u.searchParams.get("code")).to.equal(null);
    });

    it("then a granted consent is remembered, and withdrawing it on /account asks again", async () => {
      const q = new URLSearchParams({ client_id: app.clientId, redirect_uri: "https://other.example/cb" });
      await authorize(alice, Object.fromEntries(q));
      const again = await alice.get(`/authorize?${q}`);
      expect(again.status).to.equal(303);
      expect(new URL(String(again.headers.location)).searchParams.get("code")).to.be.a("string");
      const acct = await alice.get("/account");
      expect(acct.text).to.contain("Photo &lt;Printer>");
      const w = await alice.post("/account/consents/withdraw", { _csrf: csrfOf(acct.text), client_id: app.clientId });
      expect(w.status).to.equal(303);
      expect((await alice.get(`/authorize?${q}`)).status).to.equal(200);
    });

    it("then a consent POST without the CSRF token is refused and redirects nowhere", async () => {
      const r = await alice.post("/authorize", {
        client_id: app.clientId,
        redirect_uri: "https://other.example/cb",
        decision: "allow",
      });
      expect(r.status).to.equal(403);
      expect(r.headers.location).to.equal(undefined);
    });
  });

  describe("When the person allowed the app only openid email (no profile)", () => {
    const plain = () => ({ client_id: app.clientId, redirect_uri: "https://other.example/cb", state: "p" });
    beforeEach(async () => {
      app = { ...app, redirectUri: "https://other.example/cb" };
      const t = await signInWith(base, alice, app, { scope: "openid email" });
      expect(t.status).to.equal(200);
      // Its token does not read the profile at /auth/user (RFC 6750 §3.1).
      const r = await userInfo(base, t.json.access_token, app.clientId);
      expect(r.status).to.equal(403);
      expect(r.json.error).to.equal("insufficient_scope");
      expect(r.headers["www-authenticate"]).to.equal('Bearer error="insufficient_scope", scope="profile"');
    });

    it("then a plain OAuth request (no openid) shows the consent page for the profile, and issues no code", async () => {
      const r = await alice.get(`/authorize?${new URLSearchParams(plain())}`);
      expect(r.status).to.equal(200);
      expect(r.headers.location).to.equal(undefined);
      expect(r.text).to.contain('name="decision" value="allow"');
      for (const f of ["display name", "username", "profile picture"]) expect(r.text).to.contain(f);
    });

    it("then allowing the profile gives a code whose token reads /auth/user, and the next request is silent", async () => {
      const u = await authorize(alice, plain());
      const t = await trade(base, app, u.searchParams.get("code")!);
      expect(t.status).to.equal(200);
      const r = await userInfo(base, t.json.access_token, app.clientId);
      expect(r.status).to.equal(200);
      expect(r.json.username).to.equal("alice");
      const again = await alice.get(`/authorize?${new URLSearchParams(plain())}`);
      expect(again.status).to.equal(303);
      expect(new URL(String(again.headers.location)).searchParams.get("code")).to.be.a("string");
    });

    it("then denying the profile sends access_denied and the consent stays as it was", async () => {
      const u = await authorize(alice, plain(), "deny");
      expect(u.searchParams.get("error")).to.equal("access_denied");
      expect((await alice.get(`/authorize?${new URLSearchParams(plain())}`)).status).to.equal(200);
    });
  });
});
