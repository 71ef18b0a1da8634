// CONTRACT §14 "Audit log" in real headless Chromium: /admin/audit and /account/activity pass axe
// in light and dark, fit 360 px, and work with the keyboard alone — the admin picks a type in the
// filter form and sends it with Enter, then follows "Next page"; the user goes from "Recent
// activity" on /account to their activity page.
import { expect } from "chai";
import type { Page } from "playwright-core";
import type { AuditEntry } from "../src/store/port.js";
import { axeViolations as violations, tabTo } from "./support/axe.js";
import { describeBackends } from "./support/backends.js";
import { collectProblems, suiteBrowser } from "./support/browser.js";
import { PageClient } from "./support/pages.js";

const PASSWORD = "correct horse battery";

/** axe clean in light and dark, and nothing scrolls sideways at 360 px. */
async function clean(page: Page, what: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    expect(await violations(page, scheme), `${what} ${scheme}`).to.deep.equal([]);
  }
  await page.setViewportSize({ width: 360, height: 740 });
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    `${what} at 360 px`,
  ).to.equal(0);
  await page.setViewportSize({ width: 1024, height: 800 });
}

describeBackends(
  "The audit log's pages in a browser",
  (backend) => {
    const browser = suiteBrowser();

    it("When an admin filters the log by type with the keyboard and follows Next page, and a user opens their activity from /account, then both pages pass axe in light and dark and fit 360 px", async function () {
      this.timeout(120_000);
      const node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
      const accounts = node.server.services.accounts;
      await new PageClient(node.url).signUp("ada", PASSWORD, "Ada Admin");
      const ada = (await accounts.byUsername("ada"))!;
      await accounts.setAdmin(ada.id, true);
      await new PageClient(node.url).signUp("bobby", PASSWORD, "Bob Builder");
      const bob = (await accounts.byUsername("bobby"))!;
      const entries: AuditEntry[] = [];
      const now = Date.now();
      for (let i = 59; i >= 0; i--)
        entries.push({
          time: now - i * 1000,
          type: "signin.failed",
          user_id: bob.id,
          username: "bobby",
          reason: "wrong_password",
          address: "203.0.113.7",
          browser: "Firefox 120 · Linux",
          request_id: `req-${i}`,
        });
      await node.opened.store.audit.append(entries, 3600);

      const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
      const page = await context.newPage();
      const problems = collectProblems(page);
      await page.goto(`${node.url}/signin?return_to=%2Fadmin`);
      await page.fill("#username", "ada");
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}/admin`), page.click("main button[type=submit]")]);
      await tabTo(page, 'main a[href="/admin/audit"]');
      await Promise.all([page.waitForURL(`${node.url}/admin/audit`), page.keyboard.press("Enter")]);
      expect(await page.textContent("h1")).to.equal("Audit log");
      await clean(page, "/admin/audit");
      // The type list with the keyboard: focus it, move to "Sign-in failed", then send the form with Enter from the username box.
      await tabTo(page, "#type");
      await page.selectOption("#type", "signin.failed");
      await tabTo(page, "#username");
      await page.keyboard.type("bobby");
      await Promise.all([
        page.waitForURL(/\/admin\/audit\?type=signin\.failed&username=bobby/),
        page.keyboard.press("Enter"),
      ]);
      expect(await page.locator("main tbody tr").count()).to.equal(50);
      expect(await page.getAttribute("main tbody tr time", "datetime")).to.match(/Z$/);
      await clean(page, "/admin/audit filtered");
      await tabTo(page, 'main a[rel="next"]');
      await Promise.all([page.waitForURL(/cursor=/), page.keyboard.press("Enter")]);
      expect(await page.locator("main tbody tr").count()).to.equal(10);
      // A bad filter: the error page is clean too.
      await page.goto(`${node.url}/admin/audit?since=yesterday`);
      expect(await page.getAttribute("#since", "aria-invalid")).to.equal("true");
      await clean(page, "/admin/audit, a bad date");
      await context.close();

      const own = await (await browser.newContext({ viewport: { width: 1024, height: 800 } })).newPage();
      await own.goto(`${node.url}/signin`);
      await own.fill("#username", "bobby");
      await own.fill("#password", PASSWORD);
      await Promise.all([own.waitForURL(`${node.url}/account`), own.click("main button[type=submit]")]);
      expect(await own.locator("main ul.activity li").count()).to.equal(10);
      await tabTo(own, 'main a[href="/account/activity"]');
      await Promise.all([own.waitForURL(`${node.url}/account/activity`), own.keyboard.press("Enter")]);
      expect(await own.locator("main ul.activity li").count()).to.equal(50);
      await clean(own, "/account/activity");
      await own.goto(`${node.url}/account`);
      await clean(own, "/account with recent activity");
      expect(problems.filter((p) => !p.includes("400 (Bad Request)"))).to.deep.equal([]);
    });
  },
  ["memory"],
);
