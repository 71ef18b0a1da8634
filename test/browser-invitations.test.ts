// CONTRACT §14 "Sign-up policy" (SIGNUP=invite) in real headless Chromium, by keyboard: an admin
// makes an invitation on /admin/invitations (confirming it's them), copies the link shown once,
// and the invited person signs up with it; every state passes axe in light and dark and fits 360 px.
import { expect } from "chai";
import { a11yProblems, tabTo } from "./support/axe.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import { collectProblems, suiteBrowser } from "./support/browser.js";

const PASSWORD = "correct horse battery";

describeBackends(
  "Invitations in a browser",
  (backend) => {
    const browser = suiteBrowser();

    it("When an admin makes an invitation by keyboard and the invited person signs up with its link, then each page passes axe in light and dark and one account is made", async function () {
      this.timeout(90_000);
      const node = await backend.startNode({ SIGNUP: "invite", ADMIN_REQUIRE_2FA: "false" });
      const accounts = node.server.services.accounts;
      await accounts.create({ username: "ada", password: PASSWORD, displayName: "Ada Admin" });
      await accounts.setAdmin((await accounts.byUsername("ada"))!.id, true);
      const found: string[] = [];

      const page = await (await browser.newContext()).newPage();
      const problems = collectProblems(page);
      await page.goto(`${node.url}/signin?return_to=%2Fadmin%2Finvitations`);
      await page.fill("#username", "ada");
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}/admin/invitations`), page.press("#password", "Enter")]);
      found.push(...(await a11yProblems(page, "invitations, none")));
      await tabTo(page, "#email");
      await page.keyboard.type("ann@example.org");
      await Promise.all([page.waitForURL(/\/confirm\?/), page.keyboard.press("Enter")]);
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}/admin/invitations`), page.press("#password", "Enter")]);
      // Back on the page: the form is sent again, now with the proof.
      await tabTo(page, "#email");
      await page.keyboard.type("ann@example.org");
      await Promise.all([
        page.waitForLoadState(),
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.keyboard.press("Enter"),
      ]);
      const link = await page.inputValue("#invitation-link");
      expect(link).to.contain("/signup?invite=");
      expect(await page.locator("main tbody tr").count()).to.equal(1);
      found.push(...(await a11yProblems(page, "invitations, a link shown")));
      await page.goto(`${node.url}/admin/invitations`);
      expect(await page.content()).not.to.contain(new URL(link).searchParams.get("invite")!);

      const guest = await (await browser.newContext()).newPage();
      await guest.goto(`${node.url}/signup`);
      expect(await guest.textContent("h1")).to.equal("Sign-up is by invitation");
      found.push(...(await a11yProblems(guest, "sign-up by invitation")));
      await guest.goto(link);
      expect(await guest.inputValue("#email")).to.equal("ann@example.org");
      found.push(...(await a11yProblems(guest, "invited sign-up")));
      await tabTo(guest, "#username");
      await guest.keyboard.type("ann");
      await guest.fill("#password", PASSWORD);
      await guest.focus("#password");
      await Promise.all([guest.waitForURL(`${node.url}/account`), guest.keyboard.press("Enter")]);
      expect(await accounts.byUsername("ann")).to.not.equal(null);
      await guest.goto(link);
      expect(await guest.textContent("main [role=alert]")).to.contain("no longer works");
      found.push(...(await a11yProblems(guest, "a used link")));
      expect(found).to.deep.equal([]);
      expect(problems).to.deep.equal([]);
    });
  },
  oneBackend("lmdb"),
);
