// CONTRACT §14 "Sign-up policy" (docs/operations.md#sign-up-policy): SIGNUP=closed shows /signup as
// closed in every language, refuses its form (403) without making an account, and the sign-in and
// landing pages stop offering sign-up; accounts made otherwise still sign in. APP_REGISTRATION=admins
// refuses app registration to non-admins (the console says so) while their existing apps stay theirs.
import { expect } from "chai";
import { loadConfig, ConfigError } from "../src/config.js";
import { CATALOGS, LOCALES } from "../src/i18n/index.js";
import { describeBackends } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, csrfOf, registerApp } from "./support/pages.js";

const PASSWORD = "correct horse battery";
const mainOf = (html: string) => /<main[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? "";
const fill = (s: string, service: string) => s.replace("{service}", service);

describe("Sign-up policy settings", () => {
  const bad = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return undefined;
    } catch (err) {
      return err instanceof ConfigError ? err.message : String(err);
    }
  };
  it("When SIGNUP or APP_REGISTRATION is unset, set, or bad, then the defaults apply, the values are read, a bad one is named", () => {
    expect(loadConfig({}).config).to.include({ signup: "open", appRegistration: "everyone" });
    expect(loadConfig({ SIGNUP: "closed", APP_REGISTRATION: "admins" }).config).to.include({
      signup: "closed",
      appRegistration: "admins",
    });
    expect(bad({ SIGNUP: "maybe" }))
      .to.contain("SIGNUP")
      .and.contain("must be open, invite or closed");
    expect(bad({ SIGNUP: "CLOSED" })).to.contain("SIGNUP");
    expect(bad({ APP_REGISTRATION: "nobody" }))
      .to.contain("APP_REGISTRATION")
      .and.contain("must be everyone or admins");
  });
});

describeBackends("Sign-up policy", function (this: Mocha.Suite, backend) {
  this.timeout(60_000);

  describe("SIGNUP=closed", () => {
    let node: TestNode;
    beforeEach(async () => {
      node = await backend.startNode({ SIGNUP: "closed", SERVICE_NAME: "Acme ID" });
    });

    it("When someone opens /signup, then in each language the page says sign-up is closed, with no form", async () => {
      for (const lang of LOCALES) {
        const r = await new PageClient(node.url).get("/signup", { cookie: `lang=${lang}` });
        expect(r.status, lang).to.equal(200);
        const main = mainOf(r.text);
        expect(r.text, lang).to.contain(`<html lang="${lang}"`);
        expect(main, lang).to.contain(fill(CATALOGS[lang]["signup.closedTitle"], "Acme ID"));
        expect(main, lang).to.contain(fill(CATALOGS[lang]["signup.closedText"], "Acme ID"));
        expect(main, lang).to.not.contain("<form");
        expect(main, lang).to.contain('href="/signin?return_to=');
      }
    });

    it("When the sign-up form is posted anyway (50 times at once), then each is refused 403 and no account is made", async () => {
      const c = new PageClient(node.url);
      const csrf = csrfOf((await c.get("/signin")).text);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          c.post("/signup", { _csrf: csrf, username: `intruder${i % 2}`, password: PASSWORD }),
        ),
      );
      for (const r of answers) {
        expect(r.status).to.equal(403);
        expect(mainOf(r.text)).to.contain(fill(CATALOGS.en["signup.closedTitle"], "Acme ID"));
      }
      expect(await node.server.services.accounts.byUsername("intruder0")).to.equal(null);
      expect(await node.server.services.accounts.byUsername("intruder1")).to.equal(null);
      expect(c.cookies.has("sigil.sid") && (await c.get("/account")).status === 200).to.equal(false);
    });

    it("When the sign-in and landing pages are shown, then they offer no sign-up; an account made by the operator signs in", async () => {
      const signin = await new PageClient(node.url).get("/signin");
      expect(signin.status).to.equal(200);
      expect(mainOf(signin.text)).to.not.contain("/signup");
      const home = await new PageClient(node.url).get("/", { accept: "text/html" });
      expect(home.status).to.equal(200);
      expect(mainOf(home.text)).to.not.contain("/signup");

      await node.server.services.accounts.create({ username: "made", password: PASSWORD });
      const c = new PageClient(node.url);
      const r = await c.submit("/signin", "/signin", { username: "made", password: PASSWORD });
      expect(r.status).to.equal(303);
      expect((await c.get("/account")).status).to.equal(200);
    });
  });

  it("When SIGNUP is unset, then the sign-in page offers sign-up and /signup makes an account", async () => {
    const node = await backend.startNode({});
    expect(mainOf((await new PageClient(node.url).get("/signin")).text)).to.contain('href="/signup?return_to=');
    const c = new PageClient(node.url);
    expect((await c.signUp("newcomer")).status).to.equal(303);
    expect(await node.server.services.accounts.byUsername("newcomer")).to.not.equal(null);
  });

  describe("APP_REGISTRATION=admins", () => {
    let node: TestNode;
    beforeEach(async () => {
      node = await backend.startNode({ APP_REGISTRATION: "admins", SERVICE_NAME: "Acme ID" });
    });

    it("When a non-admin opens /developers or posts the registration form, then in each language it says only admins may, and no app is made", async () => {
      const c = new PageClient(node.url);
      expect((await c.signUp("dev")).status).to.equal(303);
      const dev = await node.server.services.accounts.byUsername("dev");
      for (const lang of LOCALES) {
        c.cookies.set("lang", lang);
        const r = await c.get("/developers");
        expect(r.status, lang).to.equal(200);
        expect(r.text, lang).to.contain(fill(CATALOGS[lang]["err.appRegistrationAdmins"], "Acme ID"));
        expect(r.text, lang).to.not.contain('action="/developers"');
      }
      c.cookies.set("lang", "en");
      const csrf = csrfOf((await c.get("/developers")).text);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          c.post("/developers", { _csrf: csrf, name: "Sneaky", redirect_uri: "https://app.example/cb" }),
        ),
      );
      for (const r of answers) {
        expect(r.status).to.equal(403);
        expect(r.text).to.contain(fill(CATALOGS.en["err.appRegistrationAdmins"], "Acme ID"));
        expect(r.text).to.not.contain("client-secret");
      }
      expect(await node.server.services.apps.listByOwner(dev!.id)).to.have.length(0);
    });

    it("When a non-admin owns an app already, then they still manage it (rotate its secret)", async () => {
      const c = new PageClient(node.url);
      await c.signUp("owner");
      const owner = await node.server.services.accounts.byUsername("owner");
      const { app } = await node.server.services.apps.create(owner!.id, "Old App", ["https://app.example/cb"]);
      const page = await c.get("/developers");
      expect(page.text).to.contain("Old App");
      const r = await c.post(`/developers/${encodeURIComponent(app.clientId)}/rotate`, { _csrf: csrfOf(page.text) });
      expect(r.status).to.equal(200);
      expect(r.text).to.match(/class="secret client-secret">[^<]+</);
    });

    it("When an admin registers an app, then it is made", async () => {
      const c = new PageClient(node.url);
      await c.signUp("boss");
      const boss = await node.server.services.accounts.byUsername("boss");
      await node.server.services.accounts.setAdmin(boss!.id, true);
      const app = await registerApp(c);
      expect(app.clientId).to.be.a("string");
      expect(await node.server.services.apps.listByOwner(boss!.id)).to.have.length(1);
    });
  });
});
