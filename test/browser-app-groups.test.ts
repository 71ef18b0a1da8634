// The page of an app restricted to groups the person is in none of (CONTRACT §14), in real headless
// Chromium: axe-core finds nothing in light or dark, nothing scrolls sideways at 360 px, and with
// the keyboard alone the person goes back to the app, which receives error=access_denied.
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { axeViolations as violations } from "./support/axe.js";
import { describeBackends } from "./support/backends.js";
import { launchChromium, servePage, type ServedPage } from "./support/browser.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, registerApp } from "./support/pages.js";

const PASSWORD = "correct horse battery";

describeBackends(
  "The page of an app restricted to groups, in a browser",
  (backend) => {
    let browser: Browser;
    let appPage: ServedPage;
    let node: TestNode;

    before(async function () {
      this.timeout(180_000);
      browser = await launchChromium(this);
      appPage = await servePage(`<!doctype html><html lang="en"><title>Back at the app</title><h1>Back</h1>`);
    });
    after(async () => {
      await browser?.close();
      await appPage?.close();
    });

    it("When a person in none of the app's groups arrives, then the page passes axe, fits 360 px, and Tab and Enter take them back with access_denied", async function () {
      this.timeout(90_000);
      node = await backend.startNode();
      const redirectUri = `${appPage.url}/callback`;
      const dev = new PageClient(node.url);
      await dev.signUp("devon", PASSWORD, "Devon");
      const app = await registerApp(dev, [redirectUri], "Pixel Pets");
      const store = node.opened.store;
      await store.groups.create({ name: "staff", createdAt: 1 });
      await store.apps.update(app.clientId, (a) => ({ ...a, groups: ["staff"] }));

      const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${node.url}/signin`);
      await page.fill("#username", "devon");
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}/account`), page.click("main button[type=submit]")]);
      const q = new URLSearchParams({ client_id: app.clientId, redirect_uri: redirectUri, state: "st" });
      const r = await page.goto(`${node.url}/authorize?${q}`);
      expect(r?.status()).to.equal(403);
      expect(await page.textContent(".app-name")).to.equal("Pixel Pets");
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await violations(page, scheme), scheme).to.deep.equal([]);
      }
      await page.setViewportSize({ width: 360, height: 740 });
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).to.equal(0);

      for (let i = 0; i < 30; i++) {
        await page.keyboard.press("Tab");
        if (await page.evaluate(() => document.activeElement?.matches('button[value="deny"]') ?? false)) break;
      }
      expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal("Back to Pixel Pets");
      await Promise.all([page.waitForURL(`${redirectUri}?**`), page.keyboard.press("Enter")]);
      const landed = new URL(page.url());
      expect(landed.searchParams.get("error")).to.equal("access_denied");
      expect(landed.searchParams.get("state")).to.equal("st");
      await context.close();
    });
  },
  ["memory"],
);
