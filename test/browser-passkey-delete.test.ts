// "Delete my account" confirmed with a passkey (CONTRACT §11), in headless Chromium with a virtual
// authenticator: the person deletes with their passkey and is signed out, the user gone; an answer
// made with another user's passkey, one made for a sign-in, or a used challenge deletes nothing
// (50 at once: one deletion); without a passkey (or where passkeys are not offered) no button, and
// the JSON endpoints refuse in the contract's error format. On both stores.
import { expect } from "chai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { describeBackends, oneBackend } from "./support/backends.js";
import { launchChromium } from "./support/browser.js";
import { ensurePagesScript } from "./support/client-bundle.js";
import { http, type TestResponse } from "./support/http.js";
import { PageClient, csrfOf } from "./support/pages.js";
import {
  addPasskey,
  addVirtualAuthenticator,
  catchCeremony,
  PASSKEY_ENV,
  replay,
  signUpIn,
  withoutAutofill,
} from "./support/passkeys.js";

const PASSWORD = "correct horse battery";

describeBackends(
  "Deleting an account with a passkey",
  (backend) => {
    let browser: Browser;
    const contexts: BrowserContext[] = [];

    before(async function () {
      this.timeout(60_000);
      browser = await launchChromium(this);
      ensurePagesScript();
    });
    after(() => browser?.close());
    afterEach(async () => {
      await Promise.all(contexts.splice(0).map((c) => c.close()));
    });

    /** A browser with its own authenticator, signed up as `username`, with one passkey. */
    async function personWithPasskey(base: string, username: string): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      await withoutAutofill(page);
      await addVirtualAuthenticator(context, page);
      await signUpIn(page, base, username);
      await addPasskey(page, "Laptop");
      await page.waitForSelector("#passkey-delete:not([hidden])");
      return { context, page };
    }

    /** A JSON post with the browser's cookies and its page's CSRF token. */
    async function postAs(base: string, context: BrowserContext, csrf: string, path: string, body: unknown) {
      return replay(base, context, path, { body: JSON.stringify(body), csrf });
    }

    const csrfOfPage = (page: Page) => page.getAttribute("#passkey-delete", "data-csrf") as Promise<string>;

    async function signsIn(base: string, username: string): Promise<boolean> {
      const c = new PageClient(base);
      const r = await c.submit("/signin", "/signin", { username, password: PASSWORD });
      return r.status === 303 && r.headers.location === "/account";
    }

    it("A person deletes their account with their passkey: signed out, the user gone (password and passkey refused, the username free)", async function () {
      this.timeout(60_000);
      const node = await backend.startNode(PASSKEY_ENV);
      const base = node.config.authUrl;
      const { page } = await personWithPasskey(base, "winnie");
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(e.message));
      expect(await signsIn(base, "winnie")).to.equal(true);
      expect(await page.textContent("#passkey-delete-button")).to.equal("Delete with a passkey");

      await Promise.all([page.waitForURL(`${base}/signin`), page.click("#passkey-delete-button")]);
      // Signed out: /account sends this browser to sign in.
      await page.goto(`${base}/account`);
      expect(new URL(page.url()).pathname).to.equal("/signin");
      // The user is gone: the password no longer signs in, nor the passkey, and the name is free.
      expect(await signsIn(base, "winnie")).to.equal(false);
      await page.waitForSelector("#passkey-signin:not([hidden])");
      await page.click("#passkey-button");
      await page.waitForSelector("#passkey-error:not([hidden])");
      expect(new URL(page.url()).pathname).to.equal("/signin");
      const again = new PageClient(base);
      expect((await again.signUp("winnie")).headers.location).to.equal("/account");
      expect(problems).to.deep.equal([]);
    });

    it("Another user's passkey, an answer made for a sign-in, or a used challenge deletes nothing; the same answer 50 times at once deletes once", async function () {
      this.timeout(60_000);
      const node = await backend.startNode(PASSKEY_ENV);
      const base = node.config.authUrl;
      const alice = await personWithPasskey(base, "alice");
      const bob = await personWithPasskey(base, "bob");
      const aliceCsrf = await csrfOfPage(alice.page);
      const cannotVerify = {
        error: "invalid_request",
        error_description: "The passkey could not be verified; try again.",
      };
      const expectRefused = (r: TestResponse) => {
        expect(r.status, r.text).to.equal(400);
        expect(r.json).to.deep.equal(cannotVerify);
      };

      // 1. Bob's passkey answering Alice's deletion challenge (Bob's page is handed Alice's options,
      //    without the list of Alice's passkeys so that Bob's authenticator answers), posted as Alice.
      const aliceOptions = await postAs(base, alice.context, aliceCsrf, "/account/delete/passkey/options", {});
      expect(aliceOptions.status, aliceOptions.text).to.equal(200);
      const { allowCredentials, ...forBob } = aliceOptions.json as Record<string, unknown>;
      expect(allowCredentials).to.have.length(1);
      await bob.page.route("**/account/delete/passkey/options", (route) =>
        route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(forBob) }),
      );
      const bobsAnswer = await catchCeremony(bob.page, "/account/delete/passkey", () =>
        bob.page.click("#passkey-delete-button"),
      );
      await bob.page.unroute("**/account/delete/passkey/options");
      expectRefused(await replay(base, alice.context, "/account/delete/passkey", { ...bobsAnswer, csrf: aliceCsrf }));

      // 2. Bob's own deletion answer, posted as Alice: the challenge is Bob's.
      const bobsOwn = await catchCeremony(bob.page, "/account/delete/passkey", () =>
        bob.page.click("#passkey-delete-button"),
      );
      expectRefused(await replay(base, alice.context, "/account/delete/passkey", { ...bobsOwn, csrf: aliceCsrf }));
      // ... and, taken once, it is used: now Bob's own session cannot use it either.
      const reused = await replay(base, bob.context, "/account/delete/passkey", bobsOwn);
      expect(reused.status).to.equal(400);
      expect(reused.json).to.deep.equal({
        error: "invalid_request",
        error_description: "This passkey request expired or was used already; start again.",
      });

      // 3. Alice's passkey answering a sign-in challenge: good for signing in, not for deleting.
      const signInOptions = await postAs(base, alice.context, aliceCsrf, "/signin/passkey/options", {});
      expect(signInOptions.status).to.equal(200);
      await alice.page.route("**/account/delete/passkey/options", (route) =>
        route.fulfill({ status: 200, contentType: "application/json", body: signInOptions.text }),
      );
      const signInAnswer = await catchCeremony(alice.page, "/account/delete/passkey", () =>
        alice.page.click("#passkey-delete-button"),
      );
      await alice.page.unroute("**/account/delete/passkey/options");
      // A sign-in challenge is kept bound to its browser's cookie: the deletion ceremony does not even find it.
      const asDeletion = await replay(base, alice.context, "/account/delete/passkey", signInAnswer);
      expect(asDeletion.status, asDeletion.text).to.equal(400);
      expect(asDeletion.json).to.deep.equal({
        error: "invalid_request",
        error_description: "This passkey request expired or was used already; start again.",
      });

      // Without the page's CSRF token, or signed out: refused before anything is read.
      const realAnswer = await catchCeremony(alice.page, "/account/delete/passkey", () =>
        alice.page.click("#passkey-delete-button"),
      );
      const noCsrf = await replay(base, alice.context, "/account/delete/passkey", { ...realAnswer, csrf: "" });
      expect(noCsrf.status).to.equal(403);
      expect((noCsrf.json as { error: string }).error).to.equal("access_denied");
      const stranger = await http(base, "/account/delete/passkey", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: realAnswer.body,
      });
      expect(stranger.status).to.equal(403);

      // Nothing was deleted: both still sign in, and their pages still show them.
      expect(await signsIn(base, "alice")).to.equal(true);
      expect(await signsIn(base, "bob")).to.equal(true);
      await bob.page.goto(`${base}/account`);
      expect(await bob.page.textContent(".display-name")).to.equal("bob");

      // 4. Alice's real answer, 50 times at once: one deletion; each other copy is refused, as a used
      //    challenge (400) or, once the account is gone, as signed out (403).
      const outs = await Promise.all(
        Array.from({ length: 50 }, () => replay(base, alice.context, "/account/delete/passkey", realAnswer)),
      );
      expect(outs.filter((r) => r.status === 200).map((r) => r.json)).to.deep.equal([{ redirect: "/signin" }]);
      const refused = outs.filter((r) => r.status !== 200);
      expect(refused).to.have.length(49);
      const used = "This passkey request expired or was used already; start again.";
      for (const r of refused) {
        const e = r.json as { error: string; error_description: string };
        if (r.status === 400) expect(e).to.deep.equal({ error: "invalid_request", error_description: used });
        else expect([r.status, e.error], r.text).to.deep.equal([403, "access_denied"]);
      }
      expect(await signsIn(base, "alice")).to.equal(false);
      expect(await signsIn(base, "bob")).to.equal(true);
    });

    it("Without a passkey, or where passkeys are not offered, there is no passkey button; the password way still works", async function () {
      this.timeout(60_000);
      const node = await backend.startNode(PASSKEY_ENV);
      const base = node.config.authUrl;
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      await signUpIn(page, base, "roo");
      await page.waitForSelector("#passkey-add:not([hidden])"); // the script ran
      expect(await page.$("#passkey-delete")).to.equal(null);
      expect(await page.$("#passkey-delete-button")).to.equal(null);

      // The endpoints: a user without a passkey is told to use the password (JSON error format).
      const csrf = (await page.getAttribute("#passkey-add", "data-csrf"))!;
      const r = await postAs(base, context, csrf, "/account/delete/passkey/options", {});
      expect(r.status).to.equal(400);
      expect(r.json).to.deep.equal({
        error: "invalid_request",
        error_description: "This account has no passkey; confirm with your password.",
      });

      // Bad bodies: a clear 400 in the JSON format, and roo is still there.
      for (const body of [{}, { response: 5 }, { response: { id: "x", response: { clientDataJSON: "garbage" } } }]) {
        const bad = await postAs(base, context, csrf, "/account/delete/passkey", body);
        expect(bad.status, bad.text).to.equal(400);
        expect((bad.json as { error: string }).error).to.equal("invalid_request");
      }
      const notJson = await replay(base, context, "/account/delete/passkey", { body: "{", csrf });
      expect([notJson.status, (notJson.json as { error: string }).error]).to.deep.equal([400, "invalid_request"]);
      expect(await signsIn(base, "roo")).to.equal(true);

      // No JavaScript: the password form alone deletes the account.
      const plain = new PageClient(base);
      await plain.signUp("kanga");
      const account = await plain.get("/account");
      expect(account.text).to.not.contain("passkey-delete");
      const del = await plain.post("/account/delete", { _csrf: csrfOf(account.text), password: PASSWORD });
      expect(del.status).to.equal(303);
      expect(del.headers.location).to.equal("/signin");
      expect(await signsIn(base, "kanga")).to.equal(false);

      // A server whose AUTH_URL host is an address: no passkeys, no button, the endpoints are 404.
      const ipNode = await backend.startNode();
      const ip = new PageClient(ipNode.url);
      await ip.signUp("tigger");
      const ipAccount = await ip.get("/account");
      expect(ipAccount.text).to.not.contain("passkey-delete");
      const notOffered = await http(ipNode.url, "/account/delete/passkey/options", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-csrf-token": csrfOf(ipAccount.text),
          cookie: [...ip.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        },
        body: "{}",
      });
      expect(notOffered.status).to.equal(404);
      expect((notOffered.json as { error: string }).error).to.equal("not_found");
    });
  },
  oneBackend("lmdb"),
);
