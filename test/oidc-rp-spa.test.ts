// A single-page app on its own origin signs a person in with oidc-client-ts, unmodified, as a
// PUBLIC client in real headless Chromium: UserManager with Sigil's issuer as its authority
// (discovery, CORS), the authorization code flow with PKCE S256, state and nonce kept in the
// page's sessionStorage; the person allows on Sigil's consent page; back on the app's page the
// library trades the code cross-origin, reads /userinfo, renews with the refresh token
// (signinSilent) and revokes it (revokeTokens). The library is bundled for the page with esbuild
// at test time and served by a small node server beside Sigil.
import { expect } from "chai";
import { build } from "esbuild";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type * as OidcModule from "oidc-client-ts";
import { describeBackends, oneBackend } from "./support/backends.js";
import { launchChromium } from "./support/browser.js";
import { people, postForm } from "./support/grants.js";
import { verifyIdToken } from "./support/oidc.js";
import { serveApp, type RpServer } from "./support/rp.js";

declare const oidc: typeof OidcModule;

const PAGE = `<!doctype html><meta charset="utf-8"><title>spa</title><link rel="icon" href="data:,"><script src="/oidc.js"></script>`;

/** oidc-client-ts as the page's global `oidc` (an IIFE), bundled from node_modules. */
async function bundleOidcClient(): Promise<string> {
  const out = await build({
    stdin: { contents: `export * from "oidc-client-ts";`, resolveDir: process.cwd(), loader: "js" },
    bundle: true,
    format: "iife",
    globalName: "oidc",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0]!.text;
}

/** The app's origin: its page (at / and at the callback /cb) and the bundle. */
function serveSpa(bundle: string): Promise<RpServer> {
  return serveApp((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/oidc.js") res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
    else if (path === "/" || path === "/cb") res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
    else res.writeHead(404).end();
  });
}

interface Settings {
  authority: string;
  client_id: string;
  redirect_uri: string;
  scope: string;
}

describeBackends(
  "oidc-client-ts in a browser app (public client)",
  (backend) => {
    let browser: Browser;
    let bundle: string;
    let context: BrowserContext | undefined;
    let spa: RpServer | undefined;
    let problems: string[];

    before(async function () {
      this.timeout(60000);
      browser = await launchChromium(this);
      bundle = await bundleOidcClient();
    });
    afterEach(async () => {
      await context?.close();
      await spa?.close();
      context = undefined;
      spa = undefined;
    });
    after(() => browser?.close());

    /** Sigil, a public client for the app, and Alice signed in to Sigil in a fresh browser on the app's page. */
    async function setUp(): Promise<{ base: string; page: Page; settings: Settings }> {
      const base = (await backend.startNode()).url;
      const { dev, alice } = await people(base);
      spa = await serveSpa(bundle);
      // A public client for the app's /cb, which may come back to the app's / after signing out.
      const r = await dev.submit("/developers", "/developers", {
        name: "SPA",
        redirect_uri: `${spa.url}/cb`,
        post_logout_redirect_uri: `${spa.url}/`,
        client_type: "public",
      });
      if (r.status !== 201) throw new Error(`register failed: ${r.status}`);
      const app = { clientId: /class="client-id">([^<]+)</.exec(r.text)![1]! };
      context = await browser.newContext();
      await context.addCookies([...alice.cookies].map(([name, value]) => ({ name, value, url: base })));
      const page = await context.newPage();
      problems = [];
      page.on("pageerror", (e) => problems.push(e.message));
      page.on("console", (m) => {
        // Any error, a 404 of an icon too.
        if (m.type() === "error") problems.push(`${m.text()} ${m.location().url}`);
      });
      await page.goto(`${spa.url}/`);
      const settings = {
        authority: base,
        client_id: app.clientId,
        redirect_uri: `${spa.url}/cb`,
        scope: "openid profile offline_access",
      };
      return { base, page, settings };
    }

    /** The app calls signinRedirect(); Sigil's consent page shows; the person clicks `decision`. */
    async function signInRedirect(page: Page, base: string, settings: Settings, decision: string) {
      await Promise.all([
        page.waitForURL(`${base}/authorize?**`),
        // signinRedirect() navigates away (its promise outlives the page), so it is not awaited here.
        page.evaluate((s) => {
          void new oidc.UserManager(s).signinRedirect();
        }, settings),
      ]);
      const asked = new URL(page.url()).searchParams;
      await Promise.all([
        page.waitForURL(`${settings.redirect_uri}?**`),
        page.click(`button[name="decision"][value="${decision}"]`),
      ]);
      return asked;
    }

    it("When the person allows, then the app holds a user, reads userinfo, renews with the refresh token and revokes it", async function () {
      this.timeout(30000);
      const { base, page, settings } = await setUp();
      const asked = await signInRedirect(page, base, settings, "allow");
      expect(asked.get("code_challenge_method")).to.equal("S256");
      expect(asked.get("response_type")).to.equal("code");

      const out = await page.evaluate(async (s) => {
        const um = new oidc.UserManager({ ...s, loadUserInfo: true });
        const user = await um.signinCallback();
        const renewed = await um.signinSilent();
        const stored = await um.getUser();
        await um.revokeTokens(["refresh_token"]);
        return {
          user: { profile: user!.profile, id_token: user!.id_token, refresh_token: user!.refresh_token },
          renewed: {
            profile: renewed!.profile,
            access_token: renewed!.access_token,
            refresh_token: renewed!.refresh_token,
            id_token: renewed!.id_token,
            scopes: renewed!.scopes,
          },
          stored: stored!.access_token,
          first: user!.access_token,
          query: location.search,
        };
      }, settings);
      expect(problems).to.deep.equal([]);
      // The library's own checks passed; the signature is checked here against the JWKS too.
      const { claims } = await verifyIdToken(base, out.user.id_token!, settings.client_id);
      expect(out.user.profile).to.include({ sub: claims.sub, name: "Alice", preferred_username: "alice" });
      // loadUserInfo: the profile merges /userinfo's picture.
      expect(out.user.profile.picture).to.equal(`${base}/pictures/${claims.sub}`);
      expect(out.user.refresh_token).to.be.a("string");
      // signinSilent used the refresh token (no iframe, no redirect): new tokens, the same person.
      expect(out.renewed.access_token).to.not.equal(out.first);
      expect(out.stored).to.equal(out.renewed.access_token);
      expect(out.renewed.refresh_token).to.be.a("string").and.not.equal(out.user.refresh_token);
      expect(out.renewed.profile.sub).to.equal(claims.sub);
      // The refresh answer carried a new ID token, which the library held to the first (same sub,
      // auth_time, azp); it verifies against the JWKS too.
      const renewed = await verifyIdToken(base, out.renewed.id_token!, settings.client_id);
      expect(out.renewed.id_token).to.not.equal(out.user.id_token);
      expect(renewed.claims).to.include({ sub: claims.sub, auth_time: claims.auth_time });
      expect(out.renewed.scopes).to.deep.equal(["openid", "profile", "offline_access"]);
      // revokeTokens revoked the renewed refresh token at Sigil: it no longer refreshes.
      const again = await postForm(base, "/token", {
        grant_type: "refresh_token",
        refresh_token: out.renewed.refresh_token!,
        client_id: settings.client_id,
      });
      expect(again.status).to.equal(400);
      expect(again.json.error).to.equal("invalid_grant");
    });

    it("When the app signs out with signoutRedirect, then Sigil ends the session at once and sends the browser back to the app", async function () {
      this.timeout(30000);
      const { base, page, settings } = await setUp();
      await signInRedirect(page, base, settings, "allow");
      await page.evaluate((s) => new oidc.UserManager(s).signinCallback(), settings);
      const home = `${new URL(settings.redirect_uri).origin}/`;
      // The ID token as id_token_hint and a registered post_logout_redirect_uri: no question asked.
      await Promise.all([
        page.waitForURL(`${home}?state=**`),
        page.evaluate((s) => {
          // With state data (the library adds `state` to the logout URL only then).
          void new oidc.UserManager(s).signoutRedirect({
            post_logout_redirect_uri: `${location.origin}/`,
            state: "bye",
          });
        }, settings),
      ]);
      const out = await page.evaluate(async (s) => {
        const um = new oidc.UserManager(s);
        const response = await um.signoutCallback();
        return { error: response?.error ?? null, userState: response?.userState, user: await um.getUser() };
      }, settings);
      expect(out).to.deep.equal({ error: null, userState: "bye", user: null });
      // Signed out of Sigil in this browser: a new sign-in asks for the password again.
      const again = await page.context().request.get(
        `${base}/authorize?${new URLSearchParams({
          client_id: settings.client_id,
          redirect_uri: settings.redirect_uri,
          response_type: "code",
          scope: "openid",
          code_challenge: "x".repeat(43),
          code_challenge_method: "S256",
        })}`,
        { maxRedirects: 0 },
      );
      expect(again.status()).to.equal(303);
      expect(new URL(again.headers().location!, base).pathname).to.equal("/signin");
      expect(problems).to.deep.equal([]);
    });

    it("When the person denies, then signinCallback rejects with access_denied and the app holds no user", async function () {
      this.timeout(30000);
      const { base, page, settings } = await setUp();
      await signInRedirect(page, base, settings, "deny");
      const out = await page.evaluate(async (s) => {
        const um = new oidc.UserManager(s);
        let error = "";
        try {
          await um.signinCallback();
        } catch (e) {
          error = (e as OidcModule.ErrorResponse).error ?? String(e);
        }
        return { error, user: await um.getUser() };
      }, settings);
      expect(out).to.deep.equal({ error: "access_denied", user: null });
    });
  },
  oneBackend("lmdb"),
);
