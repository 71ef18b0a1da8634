// CONTRACT §12 in real headless Chromium, a developer's and an admin's pages (/developers, the
// two-factor set-up, confirming it's you, /admin and its areas, the code step of sign-in): axe-core
// finds no WCAG 2.1 A/AA (or best-practice) violation in light or dark, nothing scrolls sideways at
// 360 px, the stylesheet loads under the pages' CSP. The rest of the walk: browser-pages-a11y.test.ts.
import { expect } from "chai";
import * as OTPAuth from "otpauth";
import { describeWalk, focusRing, PASSWORD, walkStates, type PageState } from "./support/a11y-walk.js";

describeWalk("Pages people trust, in a browser: a developer's and an admin's", (walk) => {
  it("When every page a developer and an admin meet is shown in every state, then axe finds nothing in light or dark, and nothing scrolls sideways at 360 px", async function () {
    this.timeout(180_000);
    const { browser, node, clientId } = walk;
    const devContext = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    const devPage = await walk.signedIn(devContext, "devon");
    const devStates: PageState[] = [
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
          expect(await devPage.getAttribute(`[id="events-webhook_url-${clientId}"]`, "aria-invalid")).to.equal("true");
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
          await Promise.all([devPage.waitForNavigation(), devPage.click('form[action="/account/2fa/confirm"] button')]);
          expect(await devPage.getAttribute("#code", "aria-invalid")).to.equal("true");
          await devPage.fill("#code", totp.generate());
        },
      ],
      [
        "two-factor on, recovery codes shown once",
        async () => {
          await Promise.all([devPage.waitForNavigation(), devPage.click('form[action="/account/2fa/confirm"] button')]);
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
      ...(["fr", "de", "es", "ja", "en"] as const).map((lang): PageState => [
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
    const problems = await walkStates(devPage, devStates);
    await devContext.close();
    expect(problems).to.deep.equal([]);
  });
});
