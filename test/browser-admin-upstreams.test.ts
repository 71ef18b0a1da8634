// /admin/upstreams (docs/upstream-providers.md#on-admin) in real headless Chromium, by keyboard: an
// admin adds an OpenID provider (confirming it's them), sees its callback, a refused form points at
// its field, and the remove step says how many accounts it signs in; every state passes axe in
// light and dark and fits 360 px.
import { expect } from "chai";
import type { Page } from "playwright-core";
import { a11yProblems, tabTo } from "./support/axe.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import { collectProblems, suiteBrowser } from "./support/browser.js";

const PASSWORD = "correct horse battery";

/** Fills the add form by keyboard: each field reached with Tab, then typed. */
async function typeForm(page: Page, fields: Array<[string, string]>): Promise<void> {
  for (const [id, value] of fields) {
    await tabTo(page, `#${id}`);
    await page.keyboard.press("Control+A");
    await page.keyboard.type(value);
  }
}

describeBackends(
  "Upstream providers on /admin in a browser",
  (backend) => {
    const browser = suiteBrowser();

    it("When an admin adds a provider by keyboard, is refused a bad issuer, and opens its remove step, then each page passes axe in light and dark", async function () {
      this.timeout(90_000);
      const node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
      const accounts = node.server.services.accounts;
      await accounts.create({ username: "ada", password: PASSWORD, displayName: "Ada Admin" });
      await accounts.setAdmin((await accounts.byUsername("ada"))!.id, true);
      const found: string[] = [];

      const page = await (await browser.newContext()).newPage();
      const problems = collectProblems(page);
      await page.goto(`${node.url}/signin?return_to=%2Fadmin%2Fupstreams`);
      await page.fill("#username", "ada");
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}/admin/upstreams`), page.press("#password", "Enter")]);
      found.push(...(await a11yProblems(page, "upstreams, none")));
      // A browser takes this issuer (a URL); Sigil does not (not http or https).
      const fields: Array<[string, string]> = [
        ["id", "corp"],
        ["name", "Corp SSO"],
        ["issuer", "ftp://sso.corp.example"],
        ["client_id", "sigil"],
        ["client_secret", "s3cret-upstream-value"],
      ];
      // The first send asks "Confirm it's you", and comes back to the page.
      await typeForm(page, fields);
      await Promise.all([page.waitForURL(/\/confirm\?/), page.keyboard.press("Enter")]);
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}/admin/upstreams`), page.press("#password", "Enter")]);
      await typeForm(page, fields);
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.waitForLoadState(),
        page.keyboard.press("Enter"),
      ]);
      expect(await page.getAttribute("#issuer", "aria-invalid")).to.equal("true");
      expect(await page.inputValue("#client_secret")).to.equal("");
      expect(await page.inputValue("#name")).to.equal("Corp SSO");
      found.push(...(await a11yProblems(page, "upstreams, a bad issuer")));

      await page.fill("#issuer", "https://sso.corp.example");
      await page.fill("#client_secret", "s3cret-upstream-value");
      await page.focus("#client_secret");
      await Promise.all([page.waitForURL(`${node.url}/admin/upstreams/corp?done=added`), page.keyboard.press("Enter")]);
      expect(await page.textContent(".upstream-callback")).to.equal(`${node.url}/upstream/corp/callback`);
      expect(await page.content()).not.to.contain("s3cret-upstream-value");
      found.push(...(await a11yProblems(page, "a provider's page")));
      await page.goto(`${node.url}/admin/upstreams`);
      found.push(...(await a11yProblems(page, "upstreams, one")));

      await page.goto(`${node.url}/admin/upstreams/corp`);
      await tabTo(page, "button.danger");
      await Promise.all([page.waitForURL(/\/admin\/upstreams\/corp\/remove\??$/), page.keyboard.press("Enter")]);
      expect(await page.textContent(".upstream-linked")).to.contain("Accounts linked through it: 0");
      found.push(...(await a11yProblems(page, "the remove step")));
      await tabTo(page, "button.danger");
      await Promise.all([page.waitForLoadState(), page.keyboard.press("Enter")]);
      await page.waitForSelector("[role=status]");
      expect(await node.opened.store.upstreamProviders.list()).to.deep.equal([]);
      expect(found).to.deep.equal([]);
      // The refused form's answer (400) is the one failed load.
      expect(problems).to.deep.equal([
        "console: Failed to load resource: the server responded with a status of 400 (Bad Request)",
      ]);
    });
  },
  oneBackend("lmdb"),
);
