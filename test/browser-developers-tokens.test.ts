// The CUSTOM TOKEN console as a developer uses it in real headless Chromium (Debian's chromium,
// driven by playwright-core): register an app, create a token, see it once, revoke it.
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { describeBackends, oneBackend } from "./support/backends.js";
import { launchChromium } from "./support/browser.js";
import { readyClient, refusal } from "./support/channel.js";

describeBackends(
  "A developer manages CUSTOM TOKENs in a browser",
  (backend) => {
    let browser: Browser;

    before(async function () {
      this.timeout(60000);
      browser = await launchChromium(this);
    });
    after(async () => {
      await browser?.close();
    });

    it("When a developer creates a token, then it is shown once, opens the channel, and Revoke drops the socket", async function () {
      this.timeout(60000);
      const node = await backend.startNode();
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${node.url}/signup`);
      await page.fill('input[name="username"]', "devon");
      await page.fill('input[name="password"]', "correct horse battery");
      await Promise.all([
        page.waitForURL(`${node.url}/account`),
        page.click('button[type="submit"]:has-text("Create account")'),
      ]);

      await page.goto(`${node.url}/developers`);
      await page.fill('input[name="name"]', "Pixel Pets");
      await page.fill('textarea[name="redirect_uri"]', "https://pets.example/cb");
      await Promise.all([page.waitForLoadState(), page.click('button:has-text("Register")')]);
      const clientId = (await page.textContent(".client-id"))!;

      const form = page.locator(`section.app form[action="/developers/${clientId}/tokens"]`);
      await form.locator('input[name="name"]').fill("<b>worker</b>");
      await form.locator('select[name="expires_in"]').selectOption({ label: "1 hour" });
      await Promise.all([page.waitForLoadState(), form.locator('button:has-text("Create token")').click()]);
      const token = (await page.textContent("code.custom-token"))!;
      expect(page.url()).to.equal(`${node.url}/developers/${clientId}/tokens`);
      expect(page.url()).to.not.contain(token);
      const c = await readyClient(node.url, { token });
      expect(c.readies[0]!.app).to.equal(clientId);

      await page.goto(`${node.url}/developers`);
      expect(await page.content()).to.not.contain(token);
      expect(await page.locator("td.token-name").textContent()).to.equal("<b>worker</b>");
      expect(await page.locator("tr[data-token-id]").getAttribute("data-status")).to.equal("active");

      await page.click('button:has-text("Revoke")');
      await c.waitDisconnect(1000);
      // Back on the console (303) with the token marked revoked and no Revoke button left.
      await page.locator('tr[data-token-id][data-status="revoked"]').waitFor({ timeout: 5000 });
      expect(page.url()).to.equal(`${node.url}/developers`);
      expect(await page.locator('button:has-text("Revoke")').count()).to.equal(0);
      expect((await refusal(node.url, { token })).message).to.equal("invalid_token");
    });
  },
  oneBackend("lmdb"),
);
