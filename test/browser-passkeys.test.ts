// Passkeys as a person uses them, in headless Chromium with a virtual authenticator (DevTools
// Protocol WebAuthn domain): add one on /account, sign out, sign in with it, continue an OpenID
// Connect sign-in (amr), rename and remove it (then it no longer signs in); a ceremony's answer
// is good once (50 at once → one success); on both stores.
import { expect } from "chai";
import type { Browser, BrowserContext } from "playwright-core";
import { describeBackends, oneBackend } from "./support/backends.js";
import { launchChromium, servePage, type ServedPage } from "./support/browser.js";
import { ensurePagesScript } from "./support/client-bundle.js";
import { verifyIdToken, trade } from "./support/oidc.js";
import { PageClient, registerApp } from "./support/pages.js";
import {
  addPasskey,
  addVirtualAuthenticator,
  catchCeremony,
  PASSKEY_ENV,
  replay,
  signOut,
  signUpIn,
  withoutAutofill,
} from "./support/passkeys.js";

describeBackends(
  "Passkeys in a browser",
  (backend) => {
    let browser: Browser;
    let appPage: ServedPage;
    let context: BrowserContext | undefined;

    before(async function () {
      this.timeout(60_000);
      browser = await launchChromium(this);
      ensurePagesScript();
      appPage = await servePage(`<!doctype html><title>Back at the app</title><h1>Back at the app</h1>`);
    });
    after(async () => {
      await browser?.close();
      await appPage?.close();
    });
    afterEach(() => context?.close());

    it("A person adds a passkey, signs out, signs in with it, continues an OpenID Connect sign-in (amr hwk+user), renames and removes it; removed, it no longer signs in", async function () {
      this.timeout(60_000);
      const node = await backend.startNode(PASSKEY_ENV);
      const base = node.config.authUrl;
      expect(base).to.match(/^http:\/\/localhost:\d+$/);
      const dev = new PageClient(node.url);
      await dev.signUp("devon");
      const app = await registerApp(dev, [`${appPage.url}/callback`], "Pixel Pets");

      context = await browser.newContext();
      const page = await context.newPage();
      await withoutAutofill(page);
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(e.message));
      page.on(
        "console",
        (m) => m.type() === "error" && !/Failed to load resource/.test(m.text()) && problems.push(m.text()),
      );
      const authenticator = await addVirtualAuthenticator(context, page);

      await signUpIn(page, base, "winnie");
      expect(await page.isVisible("#passkey-needs-js")).to.equal(false);
      expect(await page.textContent("#passkeys-none")).to.contain("no passkey");
      await addPasskey(page, "Laptop");
      const creds = await authenticator.credentials();
      expect(creds).to.have.length(1);
      expect(creds[0]!.rpId).to.equal("localhost");
      expect(await page.textContent(".passkey")).to.contain("Not used yet");

      // Sign out; the sign-in page offers the passkey; the button signs in.
      await signOut(page, base);
      await page.waitForSelector("#passkey-signin:not([hidden])");
      expect(await page.getAttribute("#username", "autocomplete")).to.equal("username webauthn");
      await Promise.all([page.waitForURL(`${base}/account`), page.click("#passkey-button")]);
      expect(await page.textContent(".display-name")).to.equal("winnie");
      expect(await page.textContent(".passkey")).to.match(/Last used .*UTC/);

      // An OpenID Connect app: /authorize → consent → the code → the ID token says how.
      const q = new URLSearchParams({
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        scope: "openid profile",
        nonce: "n-1",
        state: "s-1",
      });
      await page.goto(`${base}/authorize?${q}`);
      await Promise.all([
        page.waitForURL(`${appPage.url}/callback?**`),
        page.click('button[name="decision"][value="allow"]'),
      ]);
      const code = new URL(page.url()).searchParams.get("code")!;
      const t = await trade(node.url, app, code);
      expect(t.status, t.text).to.equal(200);
      const { claims } = await verifyIdToken(base, t.json.id_token, app.clientId);
      expect(claims.amr).to.deep.equal(["hwk", "user"]);
      expect(claims.sub).to.be.a("string");

      // Rename (a plain form), then remove.
      await page.goto(`${base}/account`);
      await page.fill("#passkey-name-0", "Work laptop");
      await Promise.all([page.waitForURL(`${base}/account#passkeys`), page.click('form[action$="/rename"] button')]);
      expect(await page.textContent(".passkey-name")).to.equal("Work laptop");
      // Removing needs "Confirm it's you" (a sign-in is no proof): the form goes to /confirm, where
      // the passkey confirms (the pages' script), and back to /account, where removing works.
      await Promise.all([page.waitForURL(`${base}/confirm?**`), page.click('form[action$="/remove"] button')]);
      expect(await page.$(".passkey")).to.equal(null);
      await page.waitForSelector("#passkey-confirm:not([hidden])");
      await Promise.all([page.waitForURL(`${base}/account`), page.click("#passkey-confirm-button")]);
      expect(await page.$$(".passkey")).to.have.length(1);
      await Promise.all([page.waitForEvent("load"), page.click('form[action$="/remove"] button')]);
      expect(new URL(page.url()).pathname).to.equal("/account");
      expect(await page.$(".passkey")).to.equal(null);

      // The authenticator still holds it, but the server no longer knows it.
      await signOut(page, base);
      await page.waitForSelector("#passkey-signin:not([hidden])");
      await page.click("#passkey-button");
      await page.waitForSelector("#passkey-error:not([hidden])");
      expect(await page.textContent("#passkey-error")).to.contain("could not be used");
      expect(new URL(page.url()).pathname).to.equal("/signin");
      expect(problems).to.deep.equal([]);
    });

    it("A sign-in started at /authorize with a passkey comes back to the consent page (return_to kept), and a synced passkey gives amr swk+user", async function () {
      this.timeout(60_000);
      const node = await backend.startNode(PASSKEY_ENV);
      const base = node.config.authUrl;
      const dev = new PageClient(node.url);
      await dev.signUp("devon");
      const app = await registerApp(dev, [`${appPage.url}/callback`], "Pixel Pets");
      context = await browser.newContext();
      const page = await context.newPage();
      await withoutAutofill(page);
      await addVirtualAuthenticator(context, page, { backupEligible: true });
      await signUpIn(page, base, "tigger");
      await addPasskey(page, "Phone");
      expect(await page.textContent(".passkey")).to.contain("Synced");
      await signOut(page, base);

      const q = new URLSearchParams({
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        scope: "openid",
        nonce: "n",
      });
      await page.goto(`${base}/authorize?${q}`);
      await page.waitForURL(`${base}/signin?**`);
      await page.waitForSelector("#passkey-signin:not([hidden])");
      await Promise.all([page.waitForURL(`${base}/authorize?**`), page.click("#passkey-button")]);
      await Promise.all([
        page.waitForURL(`${appPage.url}/callback?**`),
        page.click('button[name="decision"][value="allow"]'),
      ]);
      const t = await trade(node.url, app, new URL(page.url()).searchParams.get("code")!);
      const { claims } = await verifyIdToken(base, t.json.id_token, app.clientId);
      expect(claims.amr).to.deep.equal(["swk", "user"]);
    });

    it("Passkey autofill: on /signin the browser offers the passkey on the username field (conditional mediation) and signs in", async function () {
      this.timeout(60_000);
      const node = await backend.startNode(PASSKEY_ENV);
      const base = node.config.authUrl;
      context = await browser.newContext();
      const page = await context.newPage();
      await addVirtualAuthenticator(context, page);
      await signUpIn(page, base, "roo");
      await addPasskey(page, "Tablet");
      // Signing out lands on /signin, whose script starts a conditional request at once; Chromium's
      // virtual authenticator picks the one passkey, as a person picking it in the username field.
      await Promise.all([page.waitForURL(`${base}/account`), page.click('form[action="/signout"] button')]);
      expect(await page.textContent(".display-name")).to.equal("roo");
      expect(await page.textContent(".passkey")).to.match(/Last used .*UTC/);
    });

    it("A ceremony's answer is good once: the same registration or sign-in sent 50 times at once succeeds once", async function () {
      this.timeout(60_000);
      const node = await backend.startNode(PASSKEY_ENV);
      const base = node.config.authUrl;
      context = await browser.newContext();
      const page = await context.newPage();
      await withoutAutofill(page);
      await addVirtualAuthenticator(context, page);
      await signUpIn(page, base, "piglet");
      // Without a fresh proof the script's first call is answered 401 reauth_required: the page goes
      // to /confirm, and after the password back to /account.
      await page.waitForSelector("#passkey-add:not([hidden])");
      await page.fill("#passkey-new-name", "Key");
      await Promise.all([page.waitForURL(`${base}/confirm?**`), page.click('#passkey-add button[type="submit"]')]);
      await page.fill('form[action^="/confirm"] input[name="password"]', "correct horse battery");
      await Promise.all([
        page.waitForURL(`${base}/account`),
        page.click('form[action^="/confirm"] button[type="submit"]'),
      ]);

      // Registration: the page's answer, caught, then sent 50 times at once.
      await page.waitForSelector("#passkey-add:not([hidden])");
      await page.fill("#passkey-new-name", "Key");
      const reg = await catchCeremony(page, "/account/passkeys", () =>
        page.click('#passkey-add button[type="submit"]'),
      );
      const regs = await Promise.all(
        Array.from({ length: 50 }, () => replay(base, context!, "/account/passkeys", reg)),
      );
      expect(regs.filter((r) => r.status === 201)).to.have.length(1);
      const refused = regs.filter((r) => r.status !== 201);
      expect(refused.map((r) => r.status)).to.deep.equal(Array(49).fill(400));
      expect(refused[0]!.json).to.deep.equal({
        error: "invalid_request",
        error_description: "This passkey request expired or was used already; start again.",
      });
      await page.goto(`${base}/account`);
      expect(await page.$$(".passkey")).to.have.length(1);

      // Sign-in: the same.
      await signOut(page, base);
      await page.waitForSelector("#passkey-signin:not([hidden])");
      const signIn = await catchCeremony(page, "/signin/passkey", () => page.click("#passkey-button"));
      const outs = await Promise.all(
        Array.from({ length: 50 }, () => replay(base, context!, "/signin/passkey", signIn)),
      );
      expect(outs.filter((r) => r.status === 200).map((r) => r.json)).to.deep.equal([{ redirect: "/account" }]);
      // The 49 replays are failed sign-ins of piglet from this address: at most 10 are answered as
      // such, the rest are past the limit (docs/http-api.md#passkeys).
      const failed = outs.filter((r) => r.status === 400).length;
      expect(failed).to.be.within(1, 10);
      expect(outs.filter((r) => r.status === 429)).to.have.length(49 - failed);
    });
  },
  oneBackend("lmdb"),
);
