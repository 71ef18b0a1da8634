// CONTRACT §14 "Admins" in real headless Chromium: an admin who opens /admin signed out signs in
// and comes back to it; held back by ADMIN_REQUIRE_2FA, the page's link takes them to the
// two-factor set-up on /account; without that rule, the landing page's link opens the admin home.
import { expect } from "chai";
import type { Page } from "playwright-core";
import { describeBackends, oneBackend } from "./support/backends.js";
import { collectProblems, suiteBrowser } from "./support/browser.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient } from "./support/pages.js";

describeBackends(
  "Admins in a browser",
  (backend) => {
    const browser = suiteBrowser();

    /** An admin "ada" (made as `sigil users set-admin --on` makes one). */
    async function admin(node: TestNode) {
      await new PageClient(node.url).signUp("ada", "correct horse battery", "Ada Admin");
      const ada = await node.server.services.accounts.byUsername("ada");
      await node.server.services.accounts.setAdmin(ada!.id, true);
    }

    /** Opens `start` (signed out), signs in on the sign-in page it leads to, and lands on `path`. */
    async function signInAt(page: Page, node: TestNode, path: string, start = path) {
      await page.goto(`${node.url}${start}`);
      expect(new URL(page.url()).pathname).to.equal("/signin");
      await page.fill("#username", "ada");
      await page.fill("#password", "correct horse battery");
      await Promise.all([page.waitForURL(`${node.url}${path}`), page.click("main button[type=submit]")]);
    }

    it("When an admin without two-factor opens /admin signed out, then they sign in, are asked to set it up, and the link takes them there", async function () {
      this.timeout(60_000);
      const node = await backend.startNode();
      await admin(node);
      const page = await (await browser.newContext()).newPage();
      const problems = collectProblems(page);
      await signInAt(page, node, "/admin");
      expect(await page.textContent("h1")).to.equal("Set up two-factor or a passkey first");
      await Promise.all([
        page.waitForURL(`${node.url}/account#two-factor`),
        page.click('main a[href="/account#two-factor"]'),
      ]);
      expect(await page.locator("#two-factor").isVisible()).to.equal(true);
      // The one "problem": the page asking for two-factor is a 403 (the console stays closed to them).
      expect(problems).to.deep.equal([
        "console: Failed to load resource: the server responded with a status of 403 (Forbidden)",
      ]);
    });

    it("When ADMIN_REQUIRE_2FA=false and an admin follows the landing page's link, then the admin home says who is signed in", async function () {
      this.timeout(60_000);
      const node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
      await admin(node);
      const page = await (await browser.newContext()).newPage();
      const problems = collectProblems(page);
      await signInAt(page, node, "/", "/signin?return_to=%2F");
      await Promise.all([page.waitForURL(`${node.url}/admin`), page.click('main a[href="/admin"]')]);
      expect(await page.textContent("h1")).to.equal("Admin");
      expect(await page.textContent(".admin-who")).to.equal(
        "You are signed in as Ada Admin, an administrator of Sigil.",
      );
      expect(
        await page.locator(".admin-areas li a").evaluateAll((as) => as.map((a) => a.getAttribute("href"))),
      ).to.deep.equal([
        "/admin/users",
        "/admin/apps",
        "/admin/groups",
        "/admin/invitations",
        "/admin/upstreams",
        "/admin/audit",
      ]);
      expect(problems).to.deep.equal([]);
    });
  },
  oneBackend("lmdb"),
);
