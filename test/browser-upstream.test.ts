// "Continue with …" in real headless Chromium, against a real upstream OpenID provider
// (test/support/upstream-op.ts): the button on /signin takes the browser there and back, signed in;
// the sign-in and sign-up pages with the button, /account with the linked identity and the page of
// a replayed callback pass axe (WCAG 2.1 A/AA) in light and dark and fit 360 px.
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { a11yProblems } from "./support/axe.js";
import { describeBackends } from "./support/backends.js";
import { launchChromium } from "./support/browser.js";
import { TestUpstream } from "./support/upstream-op.js";

describeBackends(
  "Continue with an upstream, in a browser",
  (backend) => {
    let browser: Browser;
    before(async function () {
      this.timeout(180_000);
      browser = await launchChromium(this);
    });
    after(async () => browser?.close());

    it("When a person presses Continue with Corp SSO, then they come back signed in, and every page of the way passes axe in light and dark at 360 px", async function () {
      this.timeout(120_000);
      const up = await TestUpstream.start();
      try {
        const node = await backend.startNode(up.env());
        up.redirectUri = `${node.url}/upstream/corp/callback`;
        const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
        const page = await context.newPage();
        const problems: string[] = [];
        const check = async (what: string, p: Page) => problems.push(...(await a11yProblems(p, what)));
        await page.goto(`${node.url}/signup`);
        await check("sign-up with the button", page);
        await page.goto(`${node.url}/signin?return_to=%2Faccount`);
        await check("sign-in with the button", page);
        // Remember the callback the upstream sends the browser to, to replay it afterwards.
        let callback = "";
        page.on("request", (r) => {
          if (r.url().startsWith(`${node.url}/upstream/corp/callback`)) callback = r.url();
        });
        await Promise.all([
          page.waitForURL(`${node.url}/account`),
          page.click("button:has-text('Continue with Corp SSO')"),
        ]);
        expect(await page.textContent("#upstreams + *")).to.contain("Corp SSO: alice@corp.example");
        await check("account with a linked identity", page);
        await page.goto(callback);
        expect(await page.textContent("h1")).to.contain("Sign-in did not work");
        await check("a replayed callback", page);
        await context.close();
        expect(problems).to.deep.equal([]);
      } finally {
        await up.stop();
      }
    });
  },
  ["memory"],
);
