// A browser app as a public client, in real headless Chromium (docs/http-api.md#public-clients): its
// page on another origin loads /client.js from Sigil, begins the sign-in (PKCE made with Web
// Crypto, the verifier in sessionStorage), the person allows on Sigil's consent page, and back on
// the app's page the client trades the code, refreshes and revokes — cross-origin, which works
// only because Sigil answers CORS for the app's redirect origin. A page on an unregistered origin
// is refused by the browser.
import { expect } from "chai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type * as SigilModule from "../client/src/index.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import { launchChromium, servePage, type ServedPage } from "./support/browser.js";
import { ensureClientBundle } from "./support/client-bundle.js";
import { OFFLINE, people, registerPublicApp } from "./support/grants.js";
import { userInfo } from "./support/pages.js";

declare const Sigil: typeof SigilModule;

describeBackends(
  "A browser app signs in as a public client",
  (backend) => {
    let browser: Browser;
    let context: BrowserContext | undefined;
    let served: ServedPage | undefined;

    before(async function () {
      this.timeout(60000);
      browser = await launchChromium(this);
      ensureClientBundle();
    });
    afterEach(async () => {
      await context?.close();
      await served?.close();
      context = undefined;
      served = undefined;
    });
    after(() => browser?.close());

    it("When the page begins, the person allows and the page completes, then it holds tokens, refreshes and revokes across origins", async function () {
      this.timeout(60000);
      const node = await backend.startNode();
      const { dev, alice } = await people(node.url);
      served = await servePage(
        `<!doctype html><meta charset="utf-8"><title>spa</title><script src="${node.url}/client.js"></script>`,
      );
      const redirectUri = `${served.url}/cb`;
      const spa = await registerPublicApp(dev, [redirectUri], "Browser App");

      context = await browser.newContext();
      // Alice is signed in to Sigil in this browser (her session cookie, as after /signin).
      await context.addCookies([...alice.cookies].map(([name, value]) => ({ name, value, url: node.url })));
      const page: Page = await context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(e.message));
      await page.goto(`${served.url}/`);

      await Promise.all([
        page.waitForURL(`${node.url}/authorize?**`),
        page.evaluate(
          ([clientId, redirect, scope]) =>
            Sigil.createClient().signIn.begin({ clientId, redirectUri: redirect, scope }),
          [spa.clientId, redirectUri, OFFLINE] as const,
        ),
      ]);
      // The verifier never left the app's page: the URL holds only the challenge.
      expect(new URL(page.url()).searchParams.get("code_challenge_method")).to.equal("S256");
      await Promise.all([page.waitForURL(`${redirectUri}?**`), page.click('button[name="decision"][value="allow"]')]);

      const out = await page.evaluate(async (clientId) => {
        const sigil = Sigil.createClient({ baseUrl: new URL(document.scripts[0]!.src).origin });
        const left = sessionStorage.length;
        const tokens = await sigil.signIn.complete();
        const next = await sigil.signIn.refresh({ refreshToken: tokens.refresh_token!, clientId });
        let reuse = "";
        try {
          await sigil.signIn.refresh({ refreshToken: tokens.refresh_token!, clientId });
        } catch (e) {
          reuse = (e as SigilModule.SigilError).code;
        }
        const again = await sigil.signIn.revoke({ token: next.refresh_token!, clientId }).then(() => "revoked");
        return { left, after: sessionStorage.length, tokens, next, reuse, again };
      }, spa.clientId);
      expect(out.left).to.equal(1);
      expect(out.after).to.equal(0);
      expect(out.tokens.scope).to.equal(OFFLINE);
      expect(out.next.refresh_token).to.be.a("string");
      expect(out.reuse).to.equal("invalid_grant");
      expect(out.again).to.equal("revoked");
      expect((await userInfo(node.url, out.next.access_token, spa.clientId)).status).to.equal(401);
      expect(problems).to.deep.equal([]);
    });

    it("When a page on an origin no public client registered calls /token, then the browser refuses it (CORS)", async function () {
      this.timeout(60000);
      const node = await backend.startNode();
      const { dev } = await people(node.url);
      served = await servePage(`<!doctype html><meta charset="utf-8"><title>other</title>`);
      const spa = await registerPublicApp(dev, ["https://spa.example/cb"]);
      context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${served.url}/`);
      const result = await page.evaluate(
        async ([base, clientId]) => {
          try {
            const r = await fetch(`${base}/token`, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "x", client_id: clientId }),
            });
            return `answered ${r.status}`;
          } catch {
            return "blocked";
          }
        },
        [node.url, spa.clientId] as const,
      );
      expect(result).to.equal("blocked");
    });
  },
  oneBackend("lmdb"),
);
