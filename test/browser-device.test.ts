// /device in real headless Chromium (docs/pages.md#device): a person opens the device's link,
// signs in, and connects the device with the keyboard alone, the focus always visible; axe finds
// nothing on any state of the pages (the form, its error, the consent, connected, not connected)
// in light or dark. One node (the look does not depend on the store).
import { expect } from "chai";
import type { Page } from "playwright-core";
import { axeViolations } from "./support/axe.js";
import { describeBackends } from "./support/backends.js";
import { suiteBrowser } from "./support/browser.js";
import { pollDevice, startDevice } from "./support/device.js";
import { registerPublicApp } from "./support/grants.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient } from "./support/pages.js";

const PASSWORD = "correct horse battery";

const focusRing = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const s = getComputedStyle(el);
    return { tag: el.tagName, style: s.outlineStyle };
  });

describeBackends(
  "The device page, in a browser",
  function (this: Mocha.Suite, backend) {
    this.timeout(90_000);
    const browser = suiteBrowser();
    let node: TestNode;
    let clientId: string;
    beforeEach(async () => {
      node = await backend.startNode();
      const dev = new PageClient(node.url);
      await dev.signUp("devon", PASSWORD, "Devon");
      clientId = (await registerPublicApp(dev, ["http://127.0.0.1/cb"], "Acme CLI")).clientId;
    });

    /** axe in light and dark on the page as it is now. */
    async function clean(page: Page, state: string): Promise<void> {
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await axeViolations(page, scheme), `${state} (${scheme})`).to.deep.equal([]);
      }
      await page.emulateMedia({ colorScheme: "light" });
    }

    it("When a person opens the device's link and uses only the keyboard, then they sign in, check the code and connect the device, every state axe-clean", async () => {
      const s = await startDevice(node.url, { client_id: clientId, scope: "openid profile" });
      const page = await (await browser.newContext()).newPage();
      const rings: Array<{ tag: string; style: string }> = [];
      async function tabTo(selector: string): Promise<void> {
        for (let i = 0; i < 30; i++) {
          await page.keyboard.press("Tab");
          rings.push(await focusRing(page));
          if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return;
        }
        throw new Error(`Tab never reached ${selector}`);
      }
      await page.goto(s.verification_uri_complete);
      expect(new URL(page.url()).pathname).to.equal("/signin");
      await tabTo("#username");
      await page.keyboard.type("devon");
      await tabTo("#password");
      await page.keyboard.type(PASSWORD);
      await Promise.all([page.waitForURL("**/device?**"), page.keyboard.press("Enter")]);
      expect(await page.inputValue("#user_code")).to.equal(s.user_code);
      await clean(page, "the form, filled in");
      // A wrong code first: the error beside the field.
      await page.fill("#user_code", "BBBB-BBBB");
      // The answer is the same address (/device): wait for the field in error, not for a URL.
      await Promise.all([page.waitForSelector('#user_code[aria-invalid="true"]'), page.keyboard.press("Enter")]);
      expect(await page.getAttribute("#user_code", "aria-describedby")).to.equal("user_code-hint user_code-error");
      await clean(page, "the form with its error");
      await page.fill("#user_code", s.user_code.toLowerCase());
      await Promise.all([page.waitForSelector(".app-name"), page.keyboard.press("Enter")]);
      expect(await page.textContent(".app-name")).to.equal("Acme CLI");
      expect(await page.textContent(".device-code-check")).to.contain(s.user_code);
      await clean(page, "the consent page");
      await tabTo('button[value="allow"]');
      await Promise.all([page.waitForSelector(".notice"), page.keyboard.press("Enter")]);
      expect(await page.textContent("h1")).to.equal("Device connected");
      await clean(page, "connected");
      for (const r of rings) expect(r.style, r.tag).to.not.equal("none");
      expect((await pollDevice(node.url, s.device_code, { client_id: clientId })).status).to.equal(200);
    });

    it("When the person denies, then the page says the device is not connected, axe-clean", async () => {
      const s = await startDevice(node.url, { client_id: clientId });
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${node.url}/signin`);
      await page.fill("#username", "devon");
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}/account`), page.click("main button[type=submit]")]);
      await page.goto(s.verification_uri_complete);
      await Promise.all([page.waitForSelector(".app-name"), page.click("main form button[type=submit]")]);
      await Promise.all([page.waitForSelector(".notice"), page.click('button[value="deny"]')]);
      expect(await page.textContent("h1")).to.equal("Device not connected");
      await clean(page, "not connected");
      expect((await pollDevice(node.url, s.device_code, { client_id: clientId })).json).to.include({
        error: "access_denied",
      });
    });
  },
  ["memory"],
);
