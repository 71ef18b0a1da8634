// CONTRACT §14 "Apps" and "Groups" in real headless Chromium: every new admin page (the app list
// and an app's page, the group list, a group's page with a refused form, the delete confirm step)
// passes axe in light and dark and fits 360 px; with the keyboard alone an admin marks an app
// first-party (confirming it's them on the way) and adds a member to a group.
import { expect } from "chai";
import { axeViolations as violations, tabTo } from "./support/axe.js";
import { describeBackends } from "./support/backends.js";
import { collectProblems, suiteBrowser } from "./support/browser.js";
import { PageClient, registerApp } from "./support/pages.js";

const PASSWORD = "correct horse battery";

describeBackends(
  "The admin's apps and groups in a browser",
  (backend) => {
    const browser = suiteBrowser();

    it("When an admin opens each new page, then axe finds nothing in light or dark and nothing scrolls sideways at 360 px; with the keyboard they mark an app first-party and add a member", async function () {
      this.timeout(120_000);
      const node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
      const services = node.server.services;
      await new PageClient(node.url).signUp("ada", PASSWORD, "Ada Admin");
      await services.accounts.setAdmin((await services.accounts.byUsername("ada"))!.id, true);
      const dev = new PageClient(node.url);
      await dev.signUp("devon", PASSWORD);
      const app = await registerApp(dev, ["https://app.example/cb"], "Pixel Pets");
      await services.groups.create("staff");
      await services.groups.create("ops");

      const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
      const page = await context.newPage();
      const problems = collectProblems(page);
      await page.goto(`${node.url}/signin?return_to=%2Fadmin`);
      await page.fill("#username", "ada");
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}/admin`), page.click("main button[type=submit]")]);

      const appPath = `/admin/apps/${app.clientId}`;
      const check = async (path: string) => {
        if (path) await page.goto(`${node.url}${path}`);
        await page.setViewportSize({ width: 1024, height: 800 });
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          expect(await violations(page, scheme), `${path || page.url()} ${scheme}`).to.deep.equal([]);
        }
        await page.setViewportSize({ width: 360, height: 740 });
        const wide = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(wide, `${path || page.url()} at 360 px`).to.equal(0);
        await page.setViewportSize({ width: 1024, height: 800 });
      };
      for (const path of [
        "/admin",
        "/admin/apps",
        appPath,
        "/admin/groups",
        "/admin/groups/staff",
        "/admin/groups/staff/delete",
      ]) {
        await check(path);
      }

      // The keyboard: the first-party toggle, "Confirm it's you", back on the app's page, again.
      await page.goto(`${node.url}${appPath}`);
      await tabTo(page, `form[action="${appPath}/trusted"] button`);
      await Promise.all([page.waitForURL(/\/confirm\?/), page.keyboard.press("Enter")]);
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}${appPath}`), page.press("#password", "Enter")]);
      await tabTo(page, `form[action="${appPath}/trusted"] button`);
      await Promise.all([page.waitForURL(`${node.url}${appPath}?done=trusted`), page.keyboard.press("Enter")]);
      expect(await page.textContent(".admin-app-trusted")).to.equal("Yes");
      expect((await services.apps.byClientId(app.clientId))!.trusted).to.equal(true);
      await check("");

      // A member by username: an unknown one is refused (the page passes axe with the error), then devon.
      await page.goto(`${node.url}/admin/groups/staff`);
      await tabTo(page, "#username");
      await page.keyboard.type("nobody-here");
      await Promise.all([page.waitForURL(`${node.url}/admin/groups/staff/members`), page.keyboard.press("Enter")]);
      expect(await page.textContent("main [role=alert]")).to.contain("There is no user with this username");
      await check("");
      await page.goto(`${node.url}/admin/groups/staff`);
      await tabTo(page, "#username");
      await page.keyboard.type("devon");
      await Promise.all([page.waitForURL(`${node.url}/admin/groups/staff?done=added`), page.keyboard.press("Enter")]);
      expect(await page.locator("main .admin-group-members li").count()).to.equal(1);
      await check("");
      // The one refusal above answered 400, as it should; nothing else went wrong.
      expect(problems).to.deep.equal([
        "console: Failed to load resource: the server responded with a status of 400 (Bad Request)",
      ]);
      await context.close();
    });
  },
  ["memory"],
);
