// CONTRACT §12 in real headless Chromium: axe-core finds no WCAG 2.1 A/AA (or best-practice)
// violation on any page in any state, in light and dark; nothing scrolls sideways at 360 px; the
// stylesheet loads under the pages' CSP; sign-in and consent work with the keyboard alone, with a
// visible focus. One browser and one node (the look does not depend on the store). This file walks
// what a visitor and a person meet; a developer's and an admin's pages are in
// browser-pages-a11y-signed-in.test.ts, the pages of mail and passkeys in
// browser-pages-a11y-mail.test.ts (the walk split so that parallel workers share it).
import { expect } from "chai";
import { http } from "./support/http.js";
import { describeWalk, focusRing, PASSWORD, walkStates, type PageState } from "./support/a11y-walk.js";

describeWalk("Pages people trust, in a browser: a visitor's and a person's", (walk) => {
  it("When every page a visitor or a signed-in person meets is shown in every state, then axe finds nothing in light or dark, and nothing scrolls sideways at 360 px", async function () {
    this.timeout(180_000);
    const { browser, node, clientId, redirectUri } = walk;
    const authorizeUrl = walk.authorizeUrl;
    const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    const page = await context.newPage();
    const states: PageState[] = [
      [
        "landing page, signed out",
        async () => {
          const r = await page.goto(`${node.url}/`);
          expect(r?.status()).to.equal(200);
          expect(await page.locator('main a[href="/signin"]').count()).to.equal(1);
        },
      ],
      ["demo", () => page.goto(`${node.url}/demo`)],
      [
        "demo, a challenge made and tried (outputs, the share link)",
        async () => {
          await page.goto(`${node.url}/demo`);
          await page.click("#create button[type=submit]");
          await page.waitForFunction(() => document.getElementById("created")!.textContent !== "");
          await page.fill("#attempt", "?");
          await page.click("#solve button[type=submit]");
          await page.waitForFunction(() => document.getElementById("result")!.textContent !== "");
          expect(await page.locator("#share").isVisible()).to.equal(true);
        },
      ],
      [
        "demo, connected, a channel subscribed with a message listed, a publish refused (a token without --publish)",
        async () => {
          const { customTokens } = node.server;
          const { token } = await customTokens.create({ app: "test-app" });
          const { token: publisher } = await customTokens.create({ app: "test-app", publish: true });
          await page.goto(`${node.url}/demo`);
          await page.fill("#token", token);
          await page.click("#connect button[type=submit]");
          await page.waitForFunction(() =>
            document.getElementById("live-status")!.textContent!.startsWith("Connected"),
          );
          await page.click("#subscribe button[type=submit]");
          await page.waitForFunction(() =>
            document.getElementById("channel-status")!.textContent!.startsWith("Subscribed"),
          );
          const r = await http(node.url, "/realtime/publish", {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${publisher}` },
            body: JSON.stringify({ channel: "news", data: { text: "hello" } }),
          });
          expect(r.status).to.equal(200);
          await page.waitForFunction(() => document.querySelectorAll("#channel-messages li").length === 1);
          await page.click("#publish button[type=submit]");
          await page.waitForFunction(() => document.getElementById("published")!.className === "error");
        },
      ],
      ["sign-in", () => page.goto(`${node.url}/signin`)],
      [
        "sign-in, wrong password",
        async () => {
          await page.fill("#username", "devon");
          await page.fill("#password", "not the password");
          await Promise.all([page.waitForLoadState(), page.click("main button[type=submit]")]);
          expect(await page.textContent(".error")).to.contain("wrong");
        },
      ],
      [
        "sign-in, the account disabled (sigil users disable)",
        async () => {
          const { accounts, accountLife } = node.server.services;
          const dora = await accounts.create({ username: "dora", password: PASSWORD });
          await accountLife.disable(dora, "operator");
          await page.fill("#username", "dora");
          await page.fill("#password", PASSWORD);
          await Promise.all([page.waitForLoadState(), page.click("main button[type=submit]")]);
          expect(await page.textContent(".error")).to.contain("This account is disabled.");
        },
      ],
      ["sign-up", () => page.goto(`${node.url}/signup`)],
      [
        "sign-up, username refused",
        async () => {
          await page.fill("#username", "abc!");
          await page.fill("#password", PASSWORD);
          await Promise.all([page.waitForLoadState(), page.click("main button[type=submit]")]);
          expect(await page.getAttribute("#username", "aria-invalid")).to.equal("true");
        },
      ],
      [
        "consent",
        async () => {
          await page.fill("#username", "alice");
          await page.fill("#password", PASSWORD);
          await Promise.all([page.waitForURL(`${node.url}/account`), page.click("main button[type=submit]")]);
          await page.goto(authorizeUrl());
          expect(await page.textContent(".app-host")).to.equal("pixelpets.example");
        },
      ],
      [
        "account with an app allowed",
        async () => {
          await Promise.all([page.waitForURL(`${redirectUri}?**`), page.click('button[value="allow"]')]);
          await page.goto(`${node.url}/account`);
          expect(await page.textContent(".list")).to.contain("Pixel Pets");
        },
      ],
      [
        "account, display name refused",
        async () => {
          await page.fill("#display_name", "a\u0007b");
          await Promise.all([page.waitForLoadState(), page.click('form[action="/account"] button[type=submit]')]);
          expect(await page.getAttribute("#display_name", "aria-invalid")).to.equal("true");
        },
      ],
      [
        "account, sessions listed, deletion refused (wrong password)",
        async () => {
          expect(await page.locator(".sessions li").count()).to.equal(1);
          await page.fill("#password", "not the password");
          await Promise.all([
            page.waitForLoadState(),
            page.click('form[action="/account/delete"] button[type=submit]'),
          ]);
          expect(await page.getAttribute("#password", "aria-invalid")).to.equal("true");
        },
      ],
      [
        "account, email refused (after confirming it's you, the typed address kept)",
        async () => {
          await page.fill("#email", "ada@localhost");
          await Promise.all([
            page.waitForURL(`${node.url}/confirm?**`),
            page.click('form[action="/account/email"] button[type=submit]'),
          ]);
          await page.fill("#password", PASSWORD);
          await Promise.all([page.waitForURL(`${node.url}/account`), page.click("main button[type=submit]")]);
          expect(await page.inputValue("#email")).to.equal("ada@localhost");
          await Promise.all([page.waitForLoadState(), page.click('form[action="/account/email"] button[type=submit]')]);
          expect(await page.getAttribute("#email", "aria-invalid")).to.equal("true");
        },
      ],
      [
        "account, new password refused",
        async () => {
          // The server's rule, not the browser's (minlength would stop the form before it is sent).
          await page.evaluate('document.getElementById("new_password").removeAttribute("minlength")');
          await page.fill("#new_password", "short");
          await Promise.all([
            page.waitForLoadState(),
            page.click('form[action="/account/password"] button[type=submit]'),
          ]);
          expect(await page.getAttribute("#new_password", "aria-invalid")).to.equal("true");
        },
      ],
      [
        "landing page, signed in",
        async () => {
          await page.goto(`${node.url}/`);
          expect(await page.locator('main a[href="/developers"]').count()).to.equal(1);
        },
      ],
      [
        "admin, refused (not an admin: 403)",
        async () => {
          const r = await page.goto(`${node.url}/admin`);
          expect(r?.status()).to.equal(403);
        },
      ],
      ["forgot, no mail set up", () => page.goto(`${node.url}/forgot`)],
      ["broken reset link", () => page.goto(`${node.url}/reset?token=nope`)],
      [
        "logout, asked",
        async () => {
          const r = await page.goto(`${node.url}/logout?client_id=${clientId}`);
          expect(r?.status()).to.equal(200);
          expect(await page.textContent(".app-name")).to.equal("Pixel Pets");
        },
      ],
      [
        "signed out, with a link back to the app",
        async () => {
          await Promise.all([page.waitForLoadState(), page.click('button[value="signout"]')]);
          expect(await page.locator('a[href="/signin"]').count()).to.equal(1);
          expect(await page.getAttribute("a.back-to-app", "href")).to.equal("https://pixelpets.example/");
        },
      ],
      [
        "the 400 page",
        async () => {
          const r = await page.goto(`${node.url}/authorize?client_id=nope`);
          expect(r?.status()).to.equal(400);
        },
      ],
      [
        "the 400 page of an unregistered redirect URL (the value shown, shortened)",
        async () => {
          const sent = `https://evil.example/<script>${"a".repeat(400)}`;
          const q = new URLSearchParams({ client_id: clientId, redirect_uri: sent });
          const r = await page.goto(`${node.url}/authorize?${q}`);
          expect(r?.status()).to.equal(400);
          expect(await page.textContent("code.sent-redirect")).to.equal(`${sent.slice(0, 300)}…`);
        },
      ],
      [
        "the 403 page (a form that expired)",
        async () => {
          await page.goto(`${node.url}/signin`);
          await context.clearCookies();
          await page.fill("#username", "devon");
          await page.fill("#password", PASSWORD);
          const [r] = await Promise.all([page.waitForResponse(/\/signin/), page.click("main button[type=submit]")]);
          expect(r.status()).to.equal(403);
          await page.waitForLoadState();
        },
      ],
      ...(["fr", "de", "es", "ja"] as const).map((lang): PageState => [
        `sign-in in ${lang}`,
        async () => {
          await page.goto(`${node.url}/lang?lang=${lang}&return_to=%2Fsignin`);
          expect(await page.getAttribute("html", "lang")).to.equal(lang);
        },
      ]),
    ];
    const problems = await walkStates(page, states);
    await context.close();
    expect(problems).to.deep.equal([]);
  });

  it("When a person uses only the keyboard, then they sign in and allow the app with Tab and Enter, always seeing the focus", async function () {
    this.timeout(90_000);
    const { browser, redirectUri } = walk;
    const authorizeUrl = walk.authorizeUrl;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl());
    expect(new URL(page.url()).pathname).to.equal("/signin");
    const rings: Array<{ tag: string; style: string; width: number }> = [];
    /** Presses Tab until `selector` has the focus; notes each focus ring on the way. */
    async function tabTo(selector: string): Promise<void> {
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press("Tab");
        rings.push(await focusRing(page));
        if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
      }
      throw new Error(`Tab never reached ${selector}`);
    }
    await tabTo("a.skip");
    expect(await page.isVisible("a.skip")).to.equal(true);
    await tabTo("#username");
    await page.keyboard.type("devon");
    await tabTo("#password");
    await page.keyboard.type(PASSWORD);
    await Promise.all([page.waitForURL("**/authorize?**"), page.keyboard.press("Enter")]);
    expect(await page.textContent(".app-name")).to.equal("Pixel Pets");
    await tabTo('button[value="allow"]');
    await Promise.all([page.waitForURL(`${redirectUri}?**`), page.keyboard.press("Enter")]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get("state")).to.equal("st");
    expect(landed.searchParams.get("code")).to.be.a("string");
    expect(rings.length).to.be.above(4);
    for (const r of rings) {
      expect(r.style, r.tag).to.not.equal("none");
      expect(r.width, r.tag).to.be.at.least(2);
    }
    await context.close();
  });
});
