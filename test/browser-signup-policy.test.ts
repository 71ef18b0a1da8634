// CONTRACT §12/§14 in headless Chromium: with SIGNUP=closed the sign-in page offers no sign-up and
// /signup says it is closed, leading back to sign-in by keyboard; with APP_REGISTRATION=admins a
// non-admin's /developers says only admins register apps; with SIGNUP_EMAIL_DOMAINS an account
// whose address is not confirmed is told on /authorize to confirm it first. Each passes axe in
// light and dark and fits 360 px. One node (the look does not depend on the store).
import { expect } from "chai";
import type { Page } from "playwright-core";
import { a11yProblems } from "./support/axe.js";
import { describeBackends } from "./support/backends.js";
import { suiteBrowser } from "./support/browser.js";
import { TestSmtp } from "./support/smtp.js";

const PASSWORD = "correct horse battery";

async function checkLook(page: Page, what: string, problems: string[]) {
  problems.push(...(await a11yProblems(page, what)));
}

describeBackends(
  "Sign-up policy pages, in a browser",
  (backend) => {
    const browser = suiteBrowser(180_000);

    it("When sign-up is closed and app registration is for admins, then the pages say so, pass axe in light and dark, fit 360 px, and lead on by keyboard", async function () {
      this.timeout(120_000);
      const node = await backend.startNode({ SIGNUP: "closed", APP_REGISTRATION: "admins" });
      await node.server.services.accounts.create({ username: "pat", password: PASSWORD });
      const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
      const page = await context.newPage();
      const problems: string[] = [];

      await page.goto(`${node.url}/signin`);
      expect(await page.locator('main a[href^="/signup"]').count()).to.equal(0);
      await page.goto(`${node.url}/signup`);
      expect(await page.textContent("h1")).to.equal("Sign-up is closed");
      expect(await page.locator("main form").count()).to.equal(0);
      await checkLook(page, "signup closed", problems);

      // Keyboard: Tab to the sign-in link, Enter, and sign in.
      const link = page.locator('main a[href^="/signin"]');
      for (let i = 0; i < 30 && !(await link.evaluate((el) => el === document.activeElement)); i++)
        await page.keyboard.press("Tab");
      await Promise.all([page.waitForURL(/\/signin/), page.keyboard.press("Enter")]);
      await page.fill("#username", "pat");
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}/account`), page.keyboard.press("Enter")]);

      await page.goto(`${node.url}/developers`);
      expect(await page.textContent("#register + p")).to.contain("Only administrators can register apps");
      expect(await page.locator('form[action="/developers"]').count()).to.equal(0);
      await checkLook(page, "developers, registration for admins", problems);

      await context.close();
      expect(problems).to.deep.equal([]);
    });

    it("When an account made under SIGNUP_EMAIL_DOMAINS has not confirmed its address, then /authorize says to confirm it first, passes axe in light and dark, fits 360 px, and its button mails a new link by keyboard", async function () {
      this.timeout(120_000);
      const smtp = await TestSmtp.start();
      try {
        const node = await backend.startNode({ SMTP_URL: smtp.url, SIGNUP_EMAIL_DOMAINS: "a.example" });
        const dev = await node.server.services.accounts.create({ username: "dev", password: PASSWORD });
        const { app } = await node.server.services.apps.create(dev.id, "Acme Notes", ["https://app.example/cb"]);
        const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
        const page = await context.newPage();
        const problems: string[] = [];

        await page.goto(`${node.url}/signup`);
        expect(await page.textContent("main")).to.contain("an address at a.example");
        await page.fill("#username", "ann");
        await page.fill("#email", "ann@a.example");
        await page.fill("#password", PASSWORD);
        await Promise.all([page.waitForURL(/\/account$/), page.keyboard.press("Enter")]);
        await smtp.next("ann@a.example");

        const q = new URLSearchParams({
          client_id: app.clientId,
          redirect_uri: "https://app.example/cb",
          response_type: "code",
        });
        const answer = await page.goto(`${node.url}/authorize?${q}`);
        expect(answer?.status()).to.equal(403);
        expect(await page.textContent("h1")).to.equal("Confirm your email first");
        expect(await page.textContent("[role=alert]")).to.contain("Acme Notes");
        await checkLook(page, "authorize, confirm your email first", problems);

        // Keyboard: Tab to "Send a new confirmation link", Enter: a second mail, the account page says so.
        const button = page.locator('form[action="/account/email/resend"] button');
        for (let i = 0; i < 30 && !(await button.evaluate((el) => el === document.activeElement)); i++)
          await page.keyboard.press("Tab");
        await Promise.all([page.waitForURL(/\/account\/email\/resend$/), page.keyboard.press("Enter")]);
        await smtp.next("ann@a.example", 1);
        expect(await page.textContent("main")).to.contain("ann@a.example");

        await page.goto(`${node.url}/developers`);
        expect(await page.textContent("#register + p")).to.contain("Confirm your email address to register apps");
        await checkLook(page, "developers, address to confirm first", problems);

        await context.close();
        expect(problems).to.deep.equal([]);
      } finally {
        await smtp.close();
      }
    });
  },
  ["memory"],
);
