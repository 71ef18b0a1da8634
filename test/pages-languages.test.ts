// docs/pages.md and CONTRACT §12: every page in five languages (ui_locales, then the `lang` cookie
// from the language menu, then Accept-Language), with no English left; <html lang>; the app's
// homepage on consent; the stylesheet served cacheable under a strict Content-Security-Policy.
import { expect } from "chai";
import * as OTPAuth from "otpauth";
import { CATALOGS, LOCALES, type Locale, type MessageKey } from "../src/i18n/index.js";
import { DEMO_SCRIPT } from "../src/views/demo-script.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import { sigil as runSigil } from "./support/cli.js";
import { http } from "./support/http.js";
import { TEST_SECRET, startNode, type TestNode } from "./support/nodes.js";
import { TestRedis, requireRedis } from "./support/redis.js";
import { englishLeft, pageWords } from "./support/page-text.js";
import { PageClient, authorize, csrfOf, registerApp, type TestApp } from "./support/pages.js";
import { PASSKEY_ENV } from "./support/passkeys.js";
import { enterCode, startDevice } from "./support/device.js";

const PASSWORD = "correct horse battery";
const htmlLang = (html: string) => /^<!doctype html><html lang="([^"]+)"/.exec(html)?.[1];
const stylesheetOf = (html: string) => /<link rel="stylesheet" href="([^"]+)"/.exec(html)?.[1];

/** The words /demo's script shows (T.name in its source: demo.name in the catalogs), the Channels card's among them. */
const SCRIPT_WORDS = [...new Set([...DEMO_SCRIPT.matchAll(/\bT\.(\w+)/g)].map((m) => m[1]!))];

/** Registers an app with a homepage through the console; returns its credentials. */
async function registerWithHomepage(dev: PageClient, homepage: string): Promise<TestApp> {
  const page = await dev.get("/developers");
  const r = await dev.post("/developers", {
    _csrf: csrfOf(page.text),
    name: "Pixel Pets",
    redirect_uri: "https://pixelpets.example/cb",
    homepage,
  });
  expect(r.status, r.text.slice(0, 300)).to.equal(201);
  return {
    clientId: /class="client-id">([^<]+)</.exec(r.text)![1]!,
    clientSecret: /class="secret client-secret">([^<]+)</.exec(r.text)![1]!,
    redirectUri: "https://pixelpets.example/cb",
  };
}

describeBackends(
  "Pages in five languages",
  (backend) => {
    let node: TestNode;
    let base: string;
    let dev: PageClient;
    let app: TestApp;
    beforeEach(async () => {
      node = await backend.startNode();
      base = node.url;
      dev = new PageClient(base);
      await dev.signUp("devon", PASSWORD, "Devon");
      app = await registerWithHomepage(dev, "https://pixelpets.example/about?x=1");
    });

    const authorizePath = (extra: Record<string, string> = {}) =>
      `/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: app.redirectUri, state: "s", ...extra })}`;

    /** Sets the language with the menu's link; checks the answer. */
    async function choose(c: PageClient, lang: Locale, returnTo = "/signin"): Promise<void> {
      const r = await c.get(`/lang?${new URLSearchParams({ lang, return_to: returnTo })}`);
      expect(r.status).to.equal(303);
      expect(r.headers.location).to.equal(returnTo);
      expect(String(r.headers["set-cookie"])).to.match(
        new RegExp(`^lang=${lang}; Max-Age=31536000; Path=/;.*HttpOnly; SameSite=Lax`),
      );
    }

    it("When a person picks each language, then every page and every message is in it, with nothing left in English", async function () {
      this.timeout(30_000);
      for (const lang of LOCALES) {
        const user = new PageClient(base);
        await choose(user, lang);
        const pages: Array<[string, string]> = [];
        const keep = (what: string, html: string) => pages.push([what, html]);
        keep("sign-in", (await user.get("/signin")).text);
        keep("sign-up", (await user.get("/signup")).text);
        const form = await user.get("/signup");
        const refused = await user.post("/signup", { _csrf: csrfOf(form.text), username: "x", password: PASSWORD });
        expect(refused.status).to.equal(400);
        keep("sign-up refused", refused.text);
        keep("form expired", (await user.post("/signin", { username: "a", password: "b" })).text);
        const wrong = await user.post("/signin", { _csrf: csrfOf(form.text), username: "nobody", password: PASSWORD });
        expect(wrong.status).to.equal(401);
        keep("sign-in refused", wrong.text);
        expect((await user.signUp(`user_${lang}`, PASSWORD, "Ada")).status).to.equal(303);
        keep("consent", (await user.get(authorizePath())).text);
        await authorize(user, { client_id: app.clientId, redirect_uri: app.redirectUri });
        const account = await user.get("/account");
        keep("account", account.text);
        keep("account activity", (await user.get("/account/activity")).text);
        keep("account activity, a bad cursor", (await user.get("/account/activity?cursor=nope")).text);
        const notDeleted = await user.post("/account/delete", {
          _csrf: csrfOf(account.text),
          password: "not it at all",
        });
        expect(notDeleted.status).to.equal(401);
        keep("account, deletion refused", notDeleted.text);
        // "Confirm it's you": its page, a wrong password, then the right one (the email forms need it).
        const confirmPath = "/confirm?return_to=%2Faccount";
        const confirmPage = await user.get(confirmPath);
        keep("confirm it's you", confirmPage.text);
        const notConfirmed = await user.post(confirmPath, {
          _csrf: csrfOf(confirmPage.text),
          password: "not it at all",
        });
        expect(notConfirmed.status).to.equal(401);
        keep("confirm it's you, refused", notConfirmed.text);
        await user.confirm(PASSWORD);
        const badPassword = await user.submit("/account", "/account/password", { new_password: "short" });
        expect(badPassword.status).to.equal(400);
        keep("account, new password refused", badPassword.text);
        const badEmail = await user.submit("/account", "/account/email", { email: "not an address" });
        expect(badEmail.status).to.equal(400);
        keep("account, email refused", badEmail.text);
        keep(
          "account, email saved",
          (await user.submit("/account", "/account/email", { email: "ada@example.org" })).text,
        );
        keep("forgot, no mail set up", (await user.get("/forgot")).text);
        keep("broken confirmation link", (await user.get("/email/confirm?token=nope")).text);
        keep("broken reset link", (await user.get("/reset?token=nope")).text);
        const confirm = await user.get(`/logout?${new URLSearchParams({ client_id: app.clientId })}`);
        expect(confirm.status).to.equal(200);
        keep("logout, asked", confirm.text);
        keep("signed out", (await new PageClient(base).get("/logout", { cookie: `lang=${lang}` })).text);
        const back = await new PageClient(base).get(`/logout?${new URLSearchParams({ client_id: app.clientId })}`, {
          cookie: `lang=${lang}`,
        });
        expect(back.text).to.contain('class="back-to-app"');
        keep("signed out, with a link back to the app", back.text);
        keep("broken sign-out link", (await user.get("/logout?post_logout_redirect_uri=https://x.example/")).text);
        // The console with an app (registered just now: its secret shown), a token, and a refusal.
        const console1 = await user.get("/developers");
        const made = await user.post("/developers", {
          _csrf: csrfOf(console1.text),
          name: "Zine",
          redirect_uri: "https://zine.example/cb",
        });
        keep("developers, app registered", made.text);
        const id = /class="client-id">([^<]+)</.exec(made.text)![1]!;
        const tok = await user.post(`/developers/${id}/tokens`, {
          _csrf: csrfOf(made.text),
          name: "w",
          expires_in: "3600",
        });
        expect(tok.status).to.equal(201);
        keep("developers, token created", tok.text);
        const bad = await user.post("/developers", { _csrf: csrfOf(made.text), name: "", redirect_uri: "ftp://x" });
        keep("developers refused", bad.text);
        keep("broken sign-in link", (await user.get("/authorize?client_id=nope")).text);
        const unregistered = new URLSearchParams({ client_id: app.clientId, redirect_uri: "https://evil.example/cb" });
        keep("unregistered redirect URL", (await user.get(`/authorize?${unregistered}`)).text);
        unregistered.set("redirect_uri", `https://evil.example/${"a".repeat(400)}`);
        keep("unregistered redirect URL, shortened", (await user.get(`/authorize?${unregistered}`)).text);
        keep("landing page, signed in", (await user.get("/")).text);
        keep("landing page, signed out", (await new PageClient(base).get("/", { cookie: `lang=${lang}` })).text);
        const demo = (await new PageClient(base).get("/demo", { cookie: `lang=${lang}` })).text;
        keep("demo", demo);
        // Its Channels card, and every word its script shows (a JSON block, which the check of the
        // visible text below leaves out), in the language.
        expect(pageWords(demo), `${lang} demo`).to.contain(CATALOGS[lang]["demo.channelsTitle"]);
        const scriptWords = JSON.parse(
          /<script type="application\/json" id="demo-text">([^<]*)<\/script>/.exec(demo)![1]!,
        );
        expect(SCRIPT_WORDS).to.include.members(["subscribed", "channelResumed", "published"]);
        for (const w of SCRIPT_WORDS)
          expect(scriptWords[w], `${lang} demo.${w}`).to.equal(CATALOGS[lang][`demo.${w}` as MessageKey]);
        keep("not found", (await user.post(`/developers/${id}/tokens/nope/revoke`, { _csrf: csrfOf(made.text) })).text);
        // Two-factor: its setup, a wrong first code, the recovery codes, /account with it on, a wrong
        // code to turn it off, and the second sign-in step with its refusal.
        const setup = await user.post("/account/2fa/setup", { _csrf: csrfOf(made.text) });
        keep("two-factor setup", setup.text);
        const secret = /class="secret totp-secret">([^<]+)</.exec(setup.text)![1]!.replace(/\s/g, "");
        const pending = /name="pending" value="([^"]+)"/.exec(setup.text)![1]!;
        const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
        const wrongCode = totp.generate({ timestamp: Date.now() + 3600_000 });
        const setupRefused = await user.post("/account/2fa/confirm", {
          _csrf: csrfOf(setup.text),
          pending,
          code: wrongCode,
        });
        expect(setupRefused.status).to.equal(401);
        keep("two-factor setup refused", setupRefused.text);
        const shown = await user.post("/account/2fa/confirm", {
          _csrf: csrfOf(setup.text),
          pending,
          code: totp.generate(),
        });
        keep("recovery codes", shown.text);
        const on = await user.get("/account");
        keep("account, two-factor on", on.text);
        const withCode = await user.get(confirmPath);
        keep("confirm it's you, with a code", withCode.text);
        const codeNotConfirmed = await user.post(confirmPath, {
          _csrf: csrfOf(withCode.text),
          method: "code",
          code: "x",
        });
        expect(codeNotConfirmed.status).to.equal(401);
        keep("confirm it's you, code refused", codeNotConfirmed.text);
        keep(
          "two-factor off refused",
          (await user.post("/account/2fa/disable", { _csrf: csrfOf(on.text), code: "x" })).text,
        );
        await user.post("/signout", { _csrf: csrfOf(on.text) });
        const second = await user.submit("/signin", "/signin", { username: `user_${lang}`, password: PASSWORD });
        const codePage = await user.get(second.headers.location as string);
        keep("two-factor code", codePage.text);
        const codeRefused = await user.post(second.headers.location as string, {
          _csrf: csrfOf(codePage.text),
          code: "x",
        });
        expect(codeRefused.status).to.equal(401);
        keep("two-factor code refused", codeRefused.text);

        for (const [what, html] of pages) {
          expect(htmlLang(html), `${lang} ${what}`).to.equal(lang);
          if (lang !== "en") expect(englishLeft(html, lang), `${lang} ${what}`).to.deep.equal([]);
        }
      }
    });

    it("When passkeys are offered, then the sign-in page's passkey button and the account's passkeys (listed, renamed, refused) are in each language", async function () {
      this.timeout(30_000);
      const pk = await backend.startNode(PASSKEY_ENV);
      for (const lang of LOCALES) {
        const user = new PageClient(pk.url);
        await choose(user, lang);
        const pages: Array<[string, string]> = [];
        const keep = (what: string, html: string) => pages.push([what, html]);
        const signin = (await user.get("/signin")).text;
        expect(signin).to.contain('id="passkey-button"');
        keep("sign-in with passkeys", signin);
        expect((await user.signUp(`pk_${lang}`, PASSWORD, "Ada")).status).to.equal(303);
        keep("account, no passkey", (await user.get("/account")).text);
        // A passkey as a registration leaves it (the browser suites make real ones), used once.
        const me = (await pk.opened.store.accounts.byUsername(`pk_${lang}`))!;
        const now = Date.now();
        const record = { userId: me.id, publicKey: "AA", counter: 0, deviceType: "multiDevice", backedUp: true };
        await pk.opened.store.passkeys.add({ ...record, id: `k1${lang}`, name: "Laptop", createdAt: now - 1000 });
        await pk.opened.store.passkeys.add({
          ...record,
          id: `k2${lang}`,
          name: "Phone",
          createdAt: now,
          lastUsedAt: now,
        });
        const account = await user.get("/account");
        expect(account.text).to.contain("Laptop").and.contain("Phone");
        expect(account.text).to.contain('id="passkey-delete-button"'); // deleting with a passkey, offered
        keep("account, passkeys", account.text);
        const refused = await user.post(`/account/passkeys/k1${lang}/rename`, {
          _csrf: csrfOf(account.text),
          name: " ",
        });
        expect(refused.status).to.equal(400);
        keep("account, passkey rename refused", refused.text);
        for (const [what, html] of pages) {
          expect(htmlLang(html), `${lang} ${what}`).to.equal(lang);
          if (lang !== "en") expect(englishLeft(html, lang), `${lang} ${what}`).to.deep.equal([]);
        }
      }
    });

    it("When a person connects a device, then /device's form, its error, the consent and the result are in each language", async () => {
      for (const [i, lang] of LOCALES.entries()) {
        // An address each: the wrong codes typed count against it (device-code-addr).
        const user = new PageClient(base, `127.0.0.${20 + i}`);
        await choose(user, lang);
        await user.signUp(`dv_${lang}`, PASSWORD, "Ada");
        const pages: Array<[string, string]> = [];
        for (const decision of ["allow", "deny"] as const) {
          const s = await startDevice(base, { client_id: app.clientId, client_secret: app.clientSecret });
          const form = await user.get(`/device?user_code=${s.user_code}`);
          pages.push(["device form", form.text]);
          const wrong = await user.post("/device", { _csrf: csrfOf(form.text), user_code: "BBBB-BBBB" });
          expect(wrong.status).to.equal(400);
          pages.push(["device form, wrong code", wrong.text]);
          const consent = await enterCode(user, s.user_code);
          pages.push(["device consent", consent.text]);
          const done = await user.post("/device/decide", {
            _csrf: csrfOf(consent.text),
            user_code: s.user_code,
            decision,
          });
          expect(done.status).to.equal(200);
          pages.push([`device ${decision}`, done.text]);
        }
        for (const [what, html] of pages) {
          expect(htmlLang(html), `${lang} ${what}`).to.equal(lang);
          if (lang !== "en") expect(englishLeft(html, lang), `${lang} ${what}`).to.deep.equal([]);
        }
      }
    });

    it("When ui_locales, the cookie and Accept-Language disagree, then ui_locales wins, then the cookie, then Accept-Language", async () => {
      const c = new PageClient(base);
      expect(htmlLang((await c.get("/signin", { "accept-language": "de-CH, en;q=0.5" })).text)).to.equal("de");
      expect(htmlLang((await c.get("/signin", { "accept-language": "pt, *" })).text)).to.equal("en");
      await choose(c, "fr");
      expect(htmlLang((await c.get("/signin", { "accept-language": "de" })).text)).to.equal("fr");
      // The app asks for Japanese: the sign-in page it leads to, the sign-up link, and consent follow it.
      const start = await c.get(authorizePath({ ui_locales: "ja-JP es" }), { "accept-language": "de" });
      expect(start.status).to.equal(303);
      const signin = await c.get(start.headers.location as string);
      expect(htmlLang(signin.text)).to.equal("ja");
      const signupHref = /href="(\/signup\?[^"]+)"/.exec(signin.text)![1]!.replace(/&amp;/g, "&");
      expect(htmlLang((await c.get(signupHref)).text)).to.equal("ja");
      const after = await c.post(start.headers.location as string, {
        _csrf: csrfOf(signin.text),
        username: "devon",
        password: PASSWORD,
      });
      expect(after.status).to.equal(303);
      const consent = await c.get(after.headers.location as string);
      expect(htmlLang(consent.text)).to.equal("ja");
      expect(consent.text).to.contain('name="ui_locales" value="ja-JP es"');
      // Without ui_locales the cookie speaks again; a language the service lacks falls through.
      expect(htmlLang((await c.get(authorizePath())).text)).to.equal("fr");
      expect(htmlLang((await c.get(authorizePath({ ui_locales: "pt-BR" }))).text)).to.equal("fr");
    });

    it("When the language menu is used, then it returns to the same page on this site only, without the app's ui_locales", async () => {
      const c = new PageClient(base);
      const page = await c.get("/signup?return_to=%2Fdevelopers");
      const links = [...page.text.matchAll(/<a href="(\/lang\?[^"]+)" lang="([a-z]+)" hreflang="\2"/g)];
      expect(links.map((m) => m[2])).to.deep.equal(["en", "fr", "de", "es", "ja"]);
      const de = await c.get(links[2]![1]!.replace(/&amp;/g, "&"));
      expect(de.headers.location).to.equal("/signup?return_to=%2Fdevelopers");
      expect(htmlLang((await c.get(de.headers.location as string)).text)).to.equal("de");
      for (const evil of ["//evil.example", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"]) {
        const r = await c.get(`/lang?${new URLSearchParams({ lang: "es", return_to: evil })}`);
        expect(r.headers.location, evil).to.equal("/account");
      }
      const back = `/signin?return_to=${encodeURIComponent(authorizePath({ ui_locales: "ja" }))}`;
      const r = await c.get(`/lang?${new URLSearchParams({ lang: "es", return_to: back })}`);
      expect(r.headers.location).to.equal(`/signin?return_to=${encodeURIComponent(authorizePath())}`);
      const unknown = await c.get("/lang?lang=xx&return_to=/signin");
      expect(unknown.status).to.equal(400);
      expect(unknown.headers["set-cookie"] ?? "").to.not.match(/lang=/);
      expect(htmlLang(unknown.text)).to.equal("es");
    });

    it("When an app is registered with a homepage, then consent shows its host, its kind and what it will read", async () => {
      const c = new PageClient(base);
      await c.signUp("alice", PASSWORD, "Alice");
      const consent = await c.get(authorizePath());
      expect(consent.status).to.equal(200);
      expect(consent.text).to.contain('<span class="app-host mono">pixelpets.example</span>');
      expect(consent.text).to.contain("Confidential app");
      for (const f of ["see your display name", "see your username", "see your profile picture"])
        expect(consent.text).to.contain(f);
      expect((await dev.get("/developers")).text).to.contain("pixelpets.example");
      // Each scope asked for, in plain words (in the page's language).
      const oidc = await c.get(
        authorizePath({ response_type: "code", scope: "openid profile offline_access", ui_locales: "de" }),
      );
      expect([...oidc.text.matchAll(/<li data-scope="([a-z_]+)">/g)].map((m) => m[1])).to.deep.equal([
        "openid",
        "profile",
        "profile",
        "profile",
        "offline_access",
      ]);
      expect(oidc.text).to.contain("angemeldet bleiben, während Sie nicht da sind");
      // Without a homepage, consent says so.
      const plain = await registerApp(dev, ["https://plain.example/cb"], "Plain");
      const q = new URLSearchParams({ client_id: plain.clientId, redirect_uri: plain.redirectUri });
      expect((await c.get(`/authorize?${q}`)).text).to.contain("No homepage given");
    });

    it("When the homepage is not an http(s) URL, then the form is refused with the error tied to the field, and nothing is registered", async () => {
      for (const homepage of [
        "javascript:alert(1)",
        "pixelpets.example",
        "https://user:pw@pixelpets.example/",
        `https://a.example/${"x".repeat(2000)}`,
      ]) {
        const page = await dev.get("/developers");
        const r = await dev.post("/developers", {
          _csrf: csrfOf(page.text),
          name: "Bad Home",
          redirect_uri: "https://bad.example/cb",
          homepage,
        });
        expect(r.status, homepage).to.equal(400);
        expect(r.text).to.match(
          /<input id="homepage" aria-describedby="homepage-hint homepage-error" aria-invalid="true"/,
        );
        expect(r.text).to.contain(
          '<p class="field-error" id="homepage-error">The homepage must be an absolute http or https URL',
        );
        expect(r.text).to.contain('<a href="#homepage">');
        expect(r.text).to.not.contain("Bad Home</h3>");
      }
      expect((await dev.get("/developers")).text).to.not.contain("Bad Home</h3>");
    });

    it("When pages are served, then their CSP allows no inline code and only this service's stylesheet, which is cached for a year", async () => {
      const page = await http(base, "/signin");
      const csp = String(page.headers["content-security-policy"]);
      expect(csp)
        .to.contain("default-src 'none'")
        .and.contain("style-src 'self'")
        .and.contain("frame-ancestors 'none'");
      expect(csp).to.not.contain("unsafe-inline");
      expect(page.text).to.not.match(/<style|<script| style="/);
      const href = stylesheetOf(page.text)!;
      expect(href).to.match(/^\/assets\/sigil\.[A-Za-z0-9_-]{16}\.css$/);
      const css = await http(base, href);
      expect(css.status).to.equal(200);
      expect(css.headers["content-type"]).to.equal("text/css; charset=utf-8");
      expect(css.headers["cache-control"]).to.equal("public, max-age=31536000, immutable");
      expect(css.text).to.contain("prefers-color-scheme: dark");
      const again = await http(base, href, { headers: { "if-none-match": String(css.headers.etag) } });
      expect(again.status).to.equal(304);
      expect((await http(base, "/assets/sigil.0000000000000000.css")).status).to.equal(404);
      expect((await http(base, "/assets/..%2fpackage.json")).status).to.equal(404);
    });

    it("When SERVICE_NAME and SERVICE_LOGO_URL are set, then every page shows them and the CSP allows the logo", async () => {
      const named = await backend.startNode({
        SERVICE_NAME: "Acme ID",
        SERVICE_LOGO_URL: "https://cdn.acme.example/logo.svg",
      });
      const r = await http(named.url, "/signin");
      expect(r.text).to.contain("<title>Sign in · Acme ID</title>");
      // An empty alt (preact writes it bare): the logo is decorative, the name stands beside it.
      expect(r.text).to.match(
        /<img src="https:\/\/cdn\.acme\.example\/logo\.svg" alt(="")?\/><span class="service-name">Acme ID<\/span>/,
      );
      expect(String(r.headers["content-security-policy"])).to.match(/img-src 'self' [^;]*https:\/\/cdn\.acme\.example/);
      const broken = await http(named.url, "/authorize?client_id=nope");
      expect(broken.text).to.contain("not registered with Acme ID");
    });
  },
  oneBackend("lmdb"),
);

describe("CLI: sigil apps create --homepage", function () {
  this.timeout(60_000);
  let redis: TestRedis;
  const nodes: TestNode[] = [];
  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await redis?.destroy();
  });
  const sigil = (args: string[]) => runSigil({ SECRET: TEST_SECRET, NODE_ENV: "test", REDIS_URL: redis.url }, ...args);
  const create = (homepage: string) =>
    sigil([
      "apps",
      "create",
      "--owner",
      "olga",
      "--name",
      "Shop",
      "--redirect-uri",
      "https://shop.example/cb",
      "--homepage",
      homepage,
    ]);

  it("When an operator gives a homepage, then it is stored with the app and consent shows its host; a bad one is refused", async () => {
    expect((await sigil(["users", "create", "--username", "olga", "--password", PASSWORD])).code).to.equal(0);
    const bad = await create("javascript:alert(1)");
    expect(bad.code).to.not.equal(0);
    expect(bad.err).to.contain("The homepage must be an absolute http or https URL");
    const a = await create("https://shop.example/");
    expect(a.code, a.err).to.equal(0);
    expect(a.json.homepage).to.equal("https://shop.example/");
    const node = await startNode({ redisUrl: redis.url });
    nodes.push(node);
    const c = new PageClient(node.url);
    await c.signUp("buyer", PASSWORD);
    const consent = await c.get(`/authorize?${new URLSearchParams({ client_id: a.json.client_id })}`);
    expect(consent.text).to.contain('<span class="app-host mono">shop.example</span>');
  });
});
