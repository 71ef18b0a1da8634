// CONTRACT §12 in real headless Chromium, the pages of mail (confirming an address, a password
// reset) and of passkeys: axe-core finds no WCAG 2.1 A/AA (or best-practice) violation in light or
// dark, and nothing scrolls sideways at 360 px. The rest of the walk: browser-pages-a11y.test.ts.
import { expect } from "chai";
import { a11yProblems } from "./support/axe.js";
import { describeWalk } from "./support/a11y-walk.js";
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

describeWalk("Pages people trust, in a browser: mail and passkeys", (walk) => {
  it("When mail is set up, then the email and recovery pages pass axe in light and dark and fit 360 px", async function () {
    this.timeout(180_000);
    const { browser, backend } = walk;
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
        problems.push(...(await a11yProblems(page, what)));
      }
      await context.close();
      expect(problems).to.deep.equal([]);
    } finally {
      await smtp.close();
    }
  });

  it("When passkeys are offered, then their states (sign-in button and its error, account list, add form, rename refused, the reset form offering to remove them, deletion with a passkey refused) pass axe in light and dark and fit 360 px", async function () {
    this.timeout(180_000);
    const { browser, backend } = walk;
    const smtp = await TestSmtp.start();
    const pk = await backend.startNode({ ...PASSKEY_ENV, SMTP_URL: smtp.url, MAIL_FROM: "no-reply@sigil.example" });
    const base = pk.config.authUrl;
    const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    const page = await context.newPage();
    await withoutAutofill(page);
    await addVirtualAuthenticator(context, page);
    const problems: string[] = [];
    const check = async (what: string) => problems.push(...(await a11yProblems(page, what)));
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
});
