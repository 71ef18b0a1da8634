// CONTRACT §12/§14 in headless Chromium: with SIGNUP=closed the sign-in page offers no sign-up and
// /signup says it is closed, leading back to sign-in by keyboard; with APP_REGISTRATION=admins a
// non-admin's /developers says only admins register apps. Each passes axe in light and dark and
// fits 360 px. One node (the look does not depend on the store).
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { describeBackends } from "./support/backends.js";
import { launchChromium } from "./support/browser.js";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const PASSWORD = "correct horse battery";

async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const found = await page.evaluate(() =>
    (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            o: object,
          ): Promise<{ violations: Array<{ id: string; help: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    }),
  );
  return found.violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

async function checkLook(page: Page, what: string, problems: string[]) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const v of await violations(page)) problems.push(`${what} [${scheme}]: ${v}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 360, height: 740 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (wide > 0) problems.push(`${what}: scrolls ${wide} px sideways at 360 px`);
  await page.setViewportSize({ width: 1024, height: 800 });
}

describeBackends(
  "Sign-up policy pages, in a browser",
  (backend) => {
    let browser: Browser;
    before(async function () {
      this.timeout(180_000);
      browser = await launchChromium(this);
    });
    after(async () => {
      await browser?.close();
    });

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
  },
  ["memory"],
);
