// The whole sign-in path as a person walks it, in real headless Chromium (Debian's chromium,
// driven by playwright-core): sign up, start at /authorize from an app, consent, land on the
// app's redirect URL with code and the same state; the app trades the code and reads the profile.
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { describeBackends, oneBackend } from "./support/backends.js";
import { launchChromium, servePage, type ServedPage } from "./support/browser.js";
import { PageClient, pkce, registerApp, token, userInfo } from "./support/pages.js";

describeBackends(
  "A person signs in with Sigil in a browser",
  (backend) => {
    let browser: Browser;
    let appPage: ServedPage | undefined;
    let appUrl: string;

    before(async function () {
      this.timeout(60000);
      browser = await launchChromium(this);
      // The app's tiny redirect page.
      appPage = await servePage(`<!doctype html><title>Back at the app</title><h1>Back at the app</h1>`);
      appUrl = appPage.url;
    });
    after(async () => {
      await browser?.close();
      await appPage?.close();
    });

    it("When a new user signs up, starts at /authorize and allows, then the app gets a code with the same state and reads the profile", async function () {
      this.timeout(60000);
      const node = await backend.startNode();
      const dev = new PageClient(node.url);
      await dev.signUp("devon");
      const app = await registerApp(dev, [`${appUrl}/callback`], "Pixel Pets");

      const context = await browser.newContext();
      const page = await context.newPage();
      // Sign up on /signup.
      await page.goto(`${node.url}/signup`);
      await page.fill('input[name="username"]', "winnie");
      await page.fill('input[name="display_name"]', "Winnie <the> Pooh");
      await page.fill('input[name="password"]', "hunny-pot-42");
      await Promise.all([
        page.waitForURL(`${node.url}/account`),
        page.click('button[type="submit"]:has-text("Create account")'),
      ]);
      expect(await page.textContent(".display-name")).to.equal("Winnie <the> Pooh");

      // The app sends the person to /authorize.
      const p = pkce();
      const state = "state-" + Math.random().toString(36).slice(2);
      const q = new URLSearchParams({
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: `${appUrl}/callback`,
        state,
        code_challenge: p.challenge,
        code_challenge_method: "S256",
      });
      await page.goto(`${node.url}/authorize?${q}`);
      expect(await page.textContent(".app-name")).to.equal("Pixel Pets");
      await Promise.all([
        page.waitForURL(`${appUrl}/callback?**`),
        page.click('button[name="decision"][value="allow"]'),
      ]);
      expect(await page.textContent("h1")).to.equal("Back at the app");

      const landed = new URL(page.url());
      expect(landed.searchParams.get("state")).to.equal(state);
      expect(landed.searchParams.get("iss")).to.equal(node.url);
      const code = landed.searchParams.get("code")!;
      expect(code).to.be.a("string");

      // The app trades the code and reads the profile.
      const t = await token(node.url, {
        grant_type: "authorization_code",
        code,
        redirect_uri: `${appUrl}/callback`,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        code_verifier: p.verifier,
      });
      expect(t.status).to.equal(200);
      const me = await userInfo(node.url, t.json.access_token, app.clientId);
      expect(me.json).to.include({ username: "winnie", display_name: "Winnie <the> Pooh" });
      await context.close();
    });
  },
  oneBackend("lmdb"),
);
