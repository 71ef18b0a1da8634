// CONTRACT §12 in real headless Chromium: axe-core finds no WCAG 2.1 A/AA (or best-practice)
// violation on any page in any state, in light and dark; nothing scrolls sideways at 360 px; the
// stylesheet loads under the pages' CSP; sign-in and consent work with the keyboard alone, with a
// visible focus. One browser and one node (the look does not depend on the store).
import { expect } from "chai";
import * as OTPAuth from "otpauth";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { axeViolations as violations } from "./support/axe.js";
import { describeBackends } from "./support/backends.js";
import { launchChromium, servePage, type ServedPage } from "./support/browser.js";
import { http } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, csrfOf } from "./support/pages.js";
import { TestSmtp, linkOf } from "./support/smtp.js";
import {
  addPasskey,
  addVirtualAuthenticator,
  PASSKEY_ENV,
  signOut,
  signUpIn,
  withoutAutofill,
} from "./support/passkeys.js";

const PASSWORD = "correct horse battery";

/** How far the page scrolls sideways (0: it fits). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The focused element's outline, for "a visible focus". */
const focusRing = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const s = getComputedStyle(el);
    return { tag: el.tagName, style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
  });

describeBackends(
  "Pages people trust, in a browser",
  (backend) => {
    let browser: Browser;
    let appPage: ServedPage;
    let node: TestNode;
    let clientId: string;
    let redirectUri: string;

    before(async function () {
      this.timeout(180_000);
      browser = await launchChromium(this);
      appPage = await servePage(
        `<!doctype html><html lang="en"><title>Back at the app</title><h1>Back at the app</h1>`,
      );
      redirectUri = `${appPage.url}/callback`;
    });
    after(async () => {
      await browser?.close();
      await appPage?.close();
    });
    beforeEach(async () => {
      node = await backend.startNode();
      // A developer with an app (homepage, a token) and a person who allowed it.
      const dev = new PageClient(node.url);
      await dev.signUp("devon", PASSWORD, "Devon");
      const page = await dev.get("/developers");
      const made = await dev.post("/developers", {
        _csrf: csrfOf(page.text),
        name: "Pixel Pets",
        redirect_uri: redirectUri,
        homepage: "https://pixelpets.example/",
      });
      clientId = /class="client-id">([^<]+)</.exec(made.text)![1]!;
      await dev.post(`/developers/${clientId}/tokens`, { _csrf: csrfOf(made.text), name: "worker", expires_in: "" });
    });

    const authorizeUrl = () =>
      `${node.url}/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, state: "st" })}`;

    async function signedIn(context: BrowserContext, username: string): Promise<Page> {
      const page = await context.newPage();
      await page.goto(`${node.url}/signin`);
      await page.fill("#username", username);
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${node.url}/account`), page.click("main button[type=submit]")]);
      return page;
    }

    it("When every page is shown in every state, then axe finds nothing in light or dark, and nothing scrolls sideways at 360 px", async function () {
      this.timeout(180_000);
      const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
      const page = await context.newPage();
      const states: Array<[string, () => Promise<unknown>]> = [
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
            await Promise.all([
              page.waitForLoadState(),
              page.click('form[action="/account/email"] button[type=submit]'),
            ]);
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
        ...(["fr", "de", "es", "ja"] as const).map((lang): [string, () => Promise<unknown>] => [
          `sign-in in ${lang}`,
          async () => {
            await page.goto(`${node.url}/lang?lang=${lang}&return_to=%2Fsignin`);
            expect(await page.getAttribute("html", "lang")).to.equal(lang);
          },
        ]),
      ];
      const devContext = await browser.newContext({ viewport: { width: 1024, height: 800 } });
      const devPage = await signedIn(devContext, "devon");
      const devStates: Array<[string, () => Promise<unknown>]> = [
        [
          "admin, asked to set up two-factor or a passkey first",
          async () => {
            const devon = await node.server.services.accounts.byUsername("devon");
            await node.server.services.accounts.setAdmin(devon!.id, true);
            const r = await devPage.goto(`${node.url}/admin`);
            expect(r?.status()).to.equal(403);
            expect(await devPage.locator('main a[href="/account#two-factor"]').count()).to.equal(1);
          },
        ],
        [
          "developers with an app and a token",
          async () => {
            await devPage.goto(`${node.url}/developers`);
            expect(await devPage.locator("tr[data-token-id]").count()).to.equal(1);
          },
        ],
        [
          "developers, registration refused",
          async () => {
            await devPage.fill("#name", "Bad");
            await devPage.fill("#redirect_uri", "https://bad.example/cb");
            await devPage.fill("#homepage", "ftp://bad.example");
            await Promise.all([devPage.waitForLoadState(), devPage.click('form[action="/developers"] button')]);
            expect(await devPage.getAttribute("#homepage", "aria-invalid")).to.equal("true");
          },
        ],
        [
          "developers, an app's edit refused",
          async () => {
            const form = devPage.locator(`form[action="/developers/${clientId}/edit"]`);
            await devPage.click(`section#app-${clientId} details.app-edit summary`);
            await form.locator('input[name="homepage"]').fill("ftp://bad.example");
            await Promise.all([devPage.waitForLoadState(), form.locator("button").click()]);
            expect(await devPage.getAttribute(`[id="edit-homepage-${clientId}"]`, "aria-invalid")).to.equal("true");
          },
        ],
        [
          "developers, an app's identity events refused",
          async () => {
            const form = devPage.locator(`form[action="/developers/${clientId}/events"]`);
            await devPage.click(`section#app-${clientId} details.app-events summary`);
            await form.locator('input[name="webhook_url"]').fill("http://hooks.example/in");
            await Promise.all([devPage.waitForLoadState(), form.locator("button").click()]);
            expect(await devPage.getAttribute(`[id="events-webhook_url-${clientId}"]`, "aria-invalid")).to.equal(
              "true",
            );
          },
        ],
        [
          "developers, a webhook secret shown once and the deliveries list",
          async () => {
            const form = devPage.locator(`form[action="/developers/${clientId}/events"]`);
            await form.locator('input[name="webhook_url"]').fill("http://127.0.0.1:9/hook");
            await Promise.all([devPage.waitForLoadState(), form.locator("button").click()]);
            expect(await devPage.locator("code.webhook-secret").count()).to.equal(1);
            expect(await devPage.locator(`section#app-${clientId} .deliveries`).count()).to.equal(1);
          },
        ],
        [
          "developers, a new token shown once (custom tokens)",
          async () => {
            const form = devPage.locator(`form[action="/developers/${clientId}/tokens"]`);
            await form.locator(`input[name="name"]`).fill("second");
            await form.locator("select").selectOption("86400");
            await Promise.all([devPage.waitForLoadState(), form.locator("button").click()]);
            expect(await devPage.locator("code.custom-token").count()).to.equal(1);
          },
        ],
        [
          "developers, a secret shown once",
          async () => {
            await Promise.all([
              devPage.waitForLoadState(),
              devPage.click(`form[action="/developers/${clientId}/rotate"] button`),
            ]);
            expect(await devPage.locator("code.client-secret").count()).to.equal(1);
          },
        ],
        [
          "confirm it's you (sent there by the two-factor set-up)",
          async () => {
            await devPage.goto(`${node.url}/account`);
            await Promise.all([
              devPage.waitForURL(`${node.url}/confirm?**`),
              devPage.click('form[action="/account/2fa/setup"] button'),
            ]);
            expect(await devPage.locator("#code").count()).to.equal(0);
          },
        ],
        [
          "confirm it's you, a wrong password",
          async () => {
            await devPage.fill("#password", "not the password");
            await Promise.all([devPage.waitForLoadState(), devPage.click("main button[type=submit]")]);
            expect(await devPage.getAttribute("#password", "aria-invalid")).to.equal("true");
          },
        ],
        [
          "two-factor setup (QR code and key), after confirming with the keyboard alone",
          async () => {
            await devPage.goto(`${node.url}/confirm?return_to=%2Faccount`);
            for (let i = 0; i < 30; i++) {
              if (await devPage.evaluate(() => document.activeElement?.id === "password")) break;
              await devPage.keyboard.press("Tab");
            }
            const ring = await focusRing(devPage);
            expect(ring.tag).to.equal("INPUT");
            expect(ring.style).to.not.equal("none");
            await devPage.keyboard.type(PASSWORD);
            await Promise.all([devPage.waitForURL(`${node.url}/account`), devPage.keyboard.press("Enter")]);
            await Promise.all([devPage.waitForNavigation(), devPage.click('form[action="/account/2fa/setup"] button')]);
            const qr = await devPage.locator("svg.qr").boundingBox();
            expect(qr!.width).to.be.above(150);
          },
        ],
        [
          "two-factor setup, a wrong first code",
          async () => {
            const key = (await devPage.textContent("code.totp-secret"))!.replace(/\s/g, "");
            const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(key) });
            await devPage.fill("#code", totp.generate({ timestamp: Date.now() + 3600_000 }));
            await Promise.all([
              devPage.waitForNavigation(),
              devPage.click('form[action="/account/2fa/confirm"] button'),
            ]);
            expect(await devPage.getAttribute("#code", "aria-invalid")).to.equal("true");
            await devPage.fill("#code", totp.generate());
          },
        ],
        [
          "two-factor on, recovery codes shown once",
          async () => {
            await Promise.all([
              devPage.waitForNavigation(),
              devPage.click('form[action="/account/2fa/confirm"] button'),
            ]);
            expect(await devPage.locator("code.recovery-code").count()).to.equal(10);
          },
        ],
        ["account, two-factor on", () => devPage.goto(`${node.url}/account`)],
        [
          "admin home (an admin with two-factor)",
          async () => {
            const r = await devPage.goto(`${node.url}/admin`);
            expect(r?.status()).to.equal(200);
            expect(await devPage.locator("main .admin-areas li").count()).to.equal(6);
          },
        ],
        [
          "landing page, signed in as an admin (the link to /admin)",
          async () => {
            await devPage.goto(`${node.url}/`);
            expect(await devPage.locator('main a[href="/admin"]').count()).to.equal(1);
          },
        ],
        [
          "admin users list (/admin/users)",
          async () => {
            const r = await devPage.goto(`${node.url}/admin/users`);
            expect(r?.status()).to.equal(200);
            expect(await devPage.locator("main table.admin-user-list tbody tr").count()).to.be.greaterThan(0);
          },
        ],
        [
          "admin users list, a search too long",
          async () => {
            await devPage.fill("#q", "a".repeat(300));
            await Promise.all([devPage.waitForLoadState(), devPage.click('form[action="/admin/users"] button')]);
            expect(await devPage.getAttribute("#q", "aria-invalid")).to.equal("true");
          },
        ],
        [
          "admin, a user's page",
          async () => {
            const devon = await node.server.services.accounts.byUsername("devon");
            const r = await devPage.goto(`${node.url}/admin/users/${devon!.id}`);
            expect(r?.status()).to.equal(200);
            expect(await devPage.locator("main .admin-user-actions form").count()).to.equal(5);
          },
        ],
        [
          "admin, deleting a user: the confirm step",
          async () => {
            const devon = await node.server.services.accounts.byUsername("devon");
            expect((await devPage.goto(`${node.url}/admin/users/${devon!.id}/delete`))?.status()).to.equal(200);
          },
        ],
        [
          "admin upstream providers (/admin/upstreams)",
          async () => {
            const r = await devPage.goto(`${node.url}/admin/upstreams`);
            expect(r?.status()).to.equal(200);
            expect(await devPage.locator('main form[action="/admin/upstreams"] #client_secret').count()).to.equal(1);
          },
        ],
        [
          "admin audit log (/admin/audit)",
          async () => {
            const r = await devPage.goto(`${node.url}/admin/audit`);
            expect(r?.status()).to.equal(200);
            expect(await devPage.locator("main table.admin-audit tbody tr").count()).to.be.greaterThan(0);
          },
        ],
        [
          "admin audit log, a bad filter",
          async () => {
            const r = await devPage.goto(`${node.url}/admin/audit?type=signin.failed&since=yesterday`);
            expect(r?.status()).to.equal(400);
            expect(await devPage.getAttribute("#since", "aria-invalid")).to.equal("true");
          },
        ],
        [
          "account activity (/account/activity)",
          async () => {
            const r = await devPage.goto(`${node.url}/account/activity`);
            expect(r?.status()).to.equal(200);
            expect(await devPage.locator("main ul.activity li").count()).to.be.greaterThan(0);
          },
        ],
        [
          "confirm it's you, with a code (two-factor on), a wrong code",
          async () => {
            await devPage.goto(`${node.url}/confirm?return_to=%2Faccount`);
            await devPage.fill("#code", "abc");
            await Promise.all([devPage.waitForLoadState(), devPage.click('input[value="code"] ~ button')]);
            expect(await devPage.getAttribute("#code", "aria-invalid")).to.equal("true");
          },
        ],
        ...(["fr", "de", "es", "ja", "en"] as const).map((lang): [string, () => Promise<unknown>] => [
          `confirm it's you in ${lang}`,
          async () => {
            const back = encodeURIComponent("/confirm?return_to=/account");
            await devPage.goto(`${node.url}/lang?lang=${lang}&return_to=${back}`);
            expect(new URL(devPage.url()).pathname).to.equal("/confirm");
            expect(await devPage.getAttribute("html", "lang")).to.equal(lang);
          },
        ]),
        [
          "sign-in, the code step",
          async () => {
            await Promise.all([devPage.waitForLoadState(), devPage.click('form[action="/signout"] button')]);
            await devPage.goto(`${node.url}/signin`);
            await devPage.fill("#username", "devon");
            await devPage.fill("#password", PASSWORD);
            await Promise.all([devPage.waitForURL("**/signin/code?**"), devPage.click("main button[type=submit]")]);
          },
        ],
        [
          "sign-in, a wrong code",
          async () => {
            await devPage.fill("#code", "abc");
            await Promise.all([devPage.waitForNavigation(), devPage.click("main button[type=submit]")]);
            await devPage.waitForLoadState();
            expect(await devPage.getAttribute("#code", "aria-invalid")).to.equal("true");
          },
        ],
      ];
      const problems: string[] = [];
      const check = async (p: Page, what: string) => {
        // The stylesheet was allowed by the CSP and applied.
        expect(await p.evaluate(() => getComputedStyle(document.body).display), what).to.equal("flex");
        for (const scheme of ["light", "dark"] as const) {
          await p.emulateMedia({ colorScheme: scheme });
          for (const v of await violations(p, scheme)) problems.push(`${what} [${scheme}]: ${v}`);
        }
        await p.emulateMedia({ colorScheme: "light" });
        await p.setViewportSize({ width: 360, height: 740 });
        const wide = await overflow(p);
        if (wide > 0) problems.push(`${what}: scrolls ${wide} px sideways at 360 px`);
        await p.setViewportSize({ width: 1024, height: 800 });
      };
      for (const [what, reach] of states) {
        await reach();
        await check(page, what);
      }
      for (const [what, reach] of devStates) {
        await reach();
        await check(devPage, what);
      }
      await context.close();
      await devContext.close();
      expect(problems).to.deep.equal([]);
    });

    it("When mail is set up, then the email and recovery pages pass axe in light and dark and fit 360 px", async function () {
      this.timeout(180_000);
      const smtp = await TestSmtp.start();
      try {
        const mailNode = await backend.startNode({ SMTP_URL: smtp.url, MAIL_FROM: "no-reply@sigil.example" });
        const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
        const page = await context.newPage();
        const at = (path: string) => `${mailNode.url}${path}`;
        const submit = (form: string) =>
          Promise.all([page.waitForLoadState(), page.click(`form[action="${form}"] button[type=submit]`)]);
        let resetUrl = "";
        const states: Array<[string, () => Promise<unknown>]> = [
          [
            "account, confirmation link sent",
            async () => {
              await page.goto(at("/signup"));
              await page.fill("#username", "mara");
              await page.fill("#email", "mara@example.org");
              await page.fill("#password", PASSWORD);
              await Promise.all([page.waitForURL(at("/account")), page.click("main button[type=submit]")]);
              await submit("/account/email/resend");
              expect(await page.textContent(".notice")).to.contain("mara@example.org");
              await smtp.next("mara@example.org", 1); // the link sent again, before the reset mail is asked for
            },
          ],
          [
            "email confirmed",
            async () => {
              const link = linkOf(await smtp.next("mara@example.org"));
              await page.goto(at(link.pathname + link.search));
              expect(await page.textContent("h1")).to.contain("confirmed");
            },
          ],
          ["forgot", () => page.goto(at("/forgot"))],
          [
            "forgot, sent",
            async () => {
              await page.fill("#identifier", "mara");
              await submit("/forgot");
              const link = linkOf(await smtp.next("mara@example.org", 2));
              resetUrl = at(link.pathname + link.search);
            },
          ],
          ["reset form", () => page.goto(resetUrl)],
          [
            "reset, password refused",
            async () => {
              await page.fill("#password", "short");
              await page.evaluate(() => document.querySelector("#password")?.removeAttribute("minlength"));
              await submit("/reset");
              expect(await page.getAttribute("#password", "aria-invalid")).to.equal("true");
            },
          ],
          [
            "reset done",
            async () => {
              await page.fill("#password", "a whole new password");
              await submit("/reset");
              expect(await page.textContent("h1")).to.contain("changed");
            },
          ],
        ];
        const problems: string[] = [];
        for (const [what, reach] of states) {
          await reach();
          for (const scheme of ["light", "dark"] as const) {
            await page.emulateMedia({ colorScheme: scheme });
            for (const v of await violations(page, scheme)) problems.push(`${what} [${scheme}]: ${v}`);
          }
          await page.emulateMedia({ colorScheme: "light" });
          await page.setViewportSize({ width: 360, height: 740 });
          const wide = await overflow(page);
          if (wide > 0) problems.push(`${what}: scrolls ${wide} px sideways at 360 px`);
          await page.setViewportSize({ width: 1024, height: 800 });
        }
        await context.close();
        expect(problems).to.deep.equal([]);
      } finally {
        await smtp.close();
      }
    });

    it("When passkeys are offered, then their states (sign-in button and its error, account list, add form, rename refused, the reset form offering to remove them, deletion with a passkey refused) pass axe in light and dark and fit 360 px", async function () {
      this.timeout(180_000);
      const smtp = await TestSmtp.start();
      const pk = await backend.startNode({ ...PASSKEY_ENV, SMTP_URL: smtp.url, MAIL_FROM: "no-reply@sigil.example" });
      const base = pk.config.authUrl;
      const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
      const page = await context.newPage();
      await withoutAutofill(page);
      await addVirtualAuthenticator(context, page);
      const problems: string[] = [];
      const check = async (what: string) => {
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          for (const v of await violations(page, scheme)) problems.push(`${what} [${scheme}]: ${v}`);
        }
        await page.emulateMedia({ colorScheme: "light" });
        await page.setViewportSize({ width: 360, height: 740 });
        const wide = await overflow(page);
        if (wide > 0) problems.push(`${what}: scrolls ${wide} px sideways at 360 px`);
        await page.setViewportSize({ width: 1024, height: 800 });
      };
      await page.goto(`${base}/signin`);
      await page.waitForSelector("#passkey-signin:not([hidden])");
      await check("sign-in with the passkey button");
      await signUpIn(page, base, "kit");
      await page.waitForSelector("#passkey-add:not([hidden])");
      await check("account, no passkey, the add form");
      await addPasskey(page, "Laptop with a rather long name for a passkey, to wrap");
      await check("account with a passkey");
      // The reset form of an account with a passkey offers to remove them all (a box and its hint).
      await page.fill("#email", "kit@example.org");
      await Promise.all([page.waitForLoadState(), page.click('form[action="/account/email"] button[type=submit]')]);
      const confirm = linkOf(await smtp.next("kit@example.org"));
      await page.goto(`${base}${confirm.pathname}${confirm.search}`);
      await page.goto(`${base}/forgot`);
      await page.fill("#identifier", "kit");
      await Promise.all([page.waitForLoadState(), page.click('form[action="/forgot"] button[type=submit]')]);
      const reset = linkOf(await smtp.next("kit@example.org", 1));
      await page.goto(`${base}${reset.pathname}${reset.search}`);
      expect(await page.isVisible("#remove_passkeys")).to.equal(true);
      await check("reset form, offering to remove the passkeys");
      await page.goto(`${base}/account`);
      await page.fill("#passkey-name-0", " ");
      await page.evaluate(() => document.querySelector("#passkey-name-0")?.removeAttribute("required"));
      await Promise.all([page.waitForLoadState(), page.click('form[action$="/rename"] button')]);
      expect(await page.textContent(".error")).to.contain("1 to 64");
      await check("account, passkey rename refused");
      await pk.opened.store.passkeys.removeForUser((await pk.opened.store.accounts.byUsername("kit"))!.id);
      // "Delete with a passkey" (shown with a passkey) and its error (the passkey is gone meanwhile).
      await page.click("#passkey-delete-button");
      await page.waitForSelector("#passkey-delete-error:not([hidden])");
      await check("account, deletion with a passkey refused");
      await signOut(page, base);
      await page.waitForSelector("#passkey-signin:not([hidden])");
      await page.click("#passkey-button");
      await page.waitForSelector("#passkey-error:not([hidden])");
      await check("sign-in, the passkey refused");
      await context.close();
      await smtp.close();
      expect(problems).to.deep.equal([]);
    });

    it("When a person uses only the keyboard, then they sign in and allow the app with Tab and Enter, always seeing the focus", async function () {
      this.timeout(90_000);
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
  },
  ["memory"],
);
