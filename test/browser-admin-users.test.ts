// CONTRACT §14 "Users" in real headless Chromium: an admin searches /admin/users, opens a user,
// disables them (confirming it's them on the way, and coming back to the user's page), and the
// user's own browser is signed out at its next page.
import { expect } from "chai";
import { describeBackends, oneBackend } from "./support/backends.js";
import { collectProblems, suiteBrowser } from "./support/browser.js";
import { PageClient } from "./support/pages.js";

describeBackends(
  "The admin's users in a browser",
  (backend) => {
    const browser = suiteBrowser();

    it("When an admin finds a user, opens them and disables them, then they confirm it's them, come back to the user's page that says so, and the user is signed out", async function () {
      this.timeout(60_000);
      const node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
      const accounts = node.server.services.accounts;
      await new PageClient(node.url).signUp("ada", "correct horse battery", "Ada Admin");
      await accounts.setAdmin((await accounts.byUsername("ada"))!.id, true);
      const bob = new PageClient(node.url);
      await bob.signUp("bobby", "correct horse battery", "Bob Builder");
      const bobId = (await accounts.byUsername("bobby"))!.id;

      const page = await (await browser.newContext()).newPage();
      const problems = collectProblems(page);
      await page.goto(`${node.url}/signin?return_to=%2Fadmin`);
      await page.fill("#username", "ada");
      await page.fill("#password", "correct horse battery");
      await Promise.all([page.waitForURL(`${node.url}/admin`), page.click("main button[type=submit]")]);
      await Promise.all([page.waitForURL(`${node.url}/admin/users`), page.click('main a[href="/admin/users"]')]);
      await page.fill("#q", "builder");
      await Promise.all([page.waitForURL(`${node.url}/admin/users?q=builder`), page.press("#q", "Enter")]);
      expect(await page.locator("main tbody tr").count()).to.equal(1);
      await Promise.all([page.waitForURL(`${node.url}/admin/users/${bobId}`), page.click("main tbody a")]);
      expect(await page.textContent("h1")).to.equal("bobby");
      await Promise.all([
        page.waitForURL(/\/confirm\?/),
        page.click(`form[action="/admin/users/${bobId}/disable"] button`),
      ]);
      await page.fill("#password", "correct horse battery");
      await Promise.all([page.waitForURL(`${node.url}/admin/users/${bobId}`), page.click("main button[type=submit]")]);
      // Back on the user's page: the action is sent again, now with the proof.
      await Promise.all([
        page.waitForURL(`${node.url}/admin/users/${bobId}?done=disabled`),
        page.click(`form[action="/admin/users/${bobId}/disable"] button`),
      ]);
      expect(await page.textContent("main [role=status]")).to.contain("The account is disabled");
      expect(await page.textContent(".admin-user-state")).to.contain("Disabled");
      expect((await accounts.byId(bobId))!.disabled).to.equal(true);
      expect((await bob.get("/account")).status).to.equal(303);
      expect(problems).to.deep.equal([]);
    });
  },
  oneBackend("lmdb"),
);
