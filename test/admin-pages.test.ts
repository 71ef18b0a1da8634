// CONTRACT §14 "Admins", docs/pages.md#administration: {auth_url}/admin is for admins only.
// Signed out: the sign-in page, coming back to /admin; not an admin: 403 (five languages); an
// admin without two-factor or a passkey while ADMIN_REQUIRE_2FA=true (the default): a page asking
// them to set one up first; otherwise the admin home. The landing page links admins to /admin.
import { expect } from "chai";
import { CATALOGS, type Locale } from "../src/i18n/index.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import { sigil } from "./support/cli.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { englishLeft } from "./support/page-text.js";
import { PageClient, person as signedUp } from "./support/pages.js";
import { enroll } from "./support/two-factor.js";

const mainOf = (html: string) => /<main[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? "";
const say = (lang: Locale, key: keyof (typeof CATALOGS)["en"], service = "Sigil") =>
  CATALOGS[lang][key].replace("{service}", service);

describeBackends(
  "The admin pages",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    let node: TestNode;
    beforeEach(async () => {
      node = await backend.startNode();
    });

    /** A signed-up, signed-in person; an admin when asked (as `sigil users set-admin` makes one). */
    const person = async (username: string, admin = false) => (await signedUp(node, username, { admin })).c;

    it("When someone signed out opens /admin, then they go to sign in, and back to /admin after", async () => {
      const r = await new PageClient(node.url).get("/admin");
      expect(r.status).to.equal(303);
      expect(r.headers.location).to.equal("/signin?return_to=%2Fadmin");
      await person("ada", true);
      const c = new PageClient(node.url);
      const signin = await c.submit("/signin?return_to=%2Fadmin", "/signin?return_to=%2Fadmin", {
        username: "ada",
        password: "correct horse battery",
      });
      expect(signin.status).to.equal(303);
      expect(signin.headers.location).to.equal("/admin");
    });

    it("When someone who is not an admin opens /admin, then it is a 403 page in their language, with no link to /admin on the landing page", async () => {
      const bob = await person("bob");
      for (const lang of ["en", "fr", "de", "es", "ja"] as const) {
        const r = await bob.get("/admin", { "accept-language": lang });
        expect(r.status, lang).to.equal(403);
        expect(r.headers["content-type"]).to.match(/^text\/html/);
        expect(r.text, lang).to.contain(`<h1>${say(lang, "admin.forbiddenTitle")}</h1>`);
        expect(r.text, lang).to.contain(say(lang, "admin.forbidden"));
        expect(r.text, lang).to.not.contain(say(lang, "admin.areasLead"));
        if (lang !== "en") expect(englishLeft(r.text, lang), lang).to.deep.equal([]);
      }
      expect(mainOf((await bob.get("/", { accept: "text/html" })).text)).to.not.contain('href="/admin"');
    });

    it("When an admin without two-factor or a passkey opens /admin, then they are asked to set one up first (links to /account), in their language", async () => {
      const ada = await person("ada", true);
      for (const lang of ["en", "fr", "de", "es", "ja"] as const) {
        const r = await ada.get("/admin", { "accept-language": lang });
        expect(r.status, lang).to.equal(403);
        expect(r.text, lang).to.contain(`<h1>${say(lang, "admin.needsTitle")}</h1>`);
        expect(r.text, lang).to.contain('href="/account#two-factor"');
        expect(r.text, lang).to.not.contain(say(lang, "admin.areasLead"));
        if (lang !== "en") expect(englishLeft(r.text, lang), lang).to.deep.equal([]);
      }
      // The landing page shows the way to /admin all the same.
      const home = mainOf((await ada.get("/", { accept: "text/html" })).text);
      expect(home).to.contain(`<a href="/admin">${say("en", "home.admin")}</a>`);
    });

    it("When the admin sets up two-factor, then /admin opens: who is signed in and the areas to come, in every language", async () => {
      const ada = await person("ada", true);
      await enroll(ada);
      for (const lang of ["en", "fr", "de", "es", "ja"] as const) {
        const r = await ada.get("/admin", { "accept-language": lang });
        expect(r.status, lang).to.equal(200);
        expect(r.text, lang).to.contain(`<h1>${say(lang, "admin.title")}</h1>`);
        expect(r.text, lang).to.contain(say(lang, "admin.signedInAs").replace("{name}", "ADA"));
        expect(r.text, lang).to.contain(say(lang, "admin.areasLead"));
        if (lang !== "en") expect(englishLeft(r.text, lang), lang).to.deep.equal([]);
      }
    });

    it("When the admin has a passkey (and no two-factor), then /admin opens; once it is removed, they are asked again", async () => {
      const ada = await person("ada", true);
      const id = (await node.server.services.accounts.byUsername("ada"))!.id;
      expect((await ada.get("/admin")).status).to.equal(403);
      // As a registration on /account stores it (test/browser-passkeys.test.ts walks that ceremony).
      const added = await node.opened.store.passkeys.add({
        id: "cred-ada",
        userId: id,
        name: "Laptop",
        publicKey: "pk",
        counter: 0,
        deviceType: "multiDevice",
        backedUp: true,
        createdAt: Date.now(),
      });
      expect(added).to.equal(true);
      const home = await ada.get("/admin");
      expect(home.status).to.equal(200);
      expect(home.text).to.contain(say("en", "admin.areasLead"));
      await node.opened.store.passkeys.remove(id, "cred-ada");
      expect((await ada.get("/admin")).status).to.equal(403);
    });

    it("When an admin is no longer one (sigil users set-admin --off), then their next visit is refused at once", async () => {
      const ada = await person("ada", true);
      await enroll(ada);
      expect((await ada.get("/admin")).status).to.equal(200);
      // The CLI worker (support/cli.ts): a process of its own on the DATA_DIR the node holds.
      const off = await sigil(
        {
          SECRET: TEST_SECRET,
          NODE_ENV: "test",
          ...backend.env(),
          ...(backend.dataDir ? { DATA_DIR: backend.dataDir } : {}),
        },
        "users",
        "set-admin",
        "--username",
        "ada",
        "--off",
      );
      expect(off.code, off.err).to.equal(0);
      expect((await ada.get("/admin")).status).to.equal(403);
      expect(mainOf((await ada.get("/", { accept: "text/html" })).text)).to.not.contain('href="/admin"');
    });
  },
  oneBackend("lmdb"),
);

describeBackends(
  "The admin pages with ADMIN_REQUIRE_2FA=false",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    it("When an admin without two-factor opens /admin, then the admin home opens", async () => {
      const node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
      const ada = new PageClient(node.url);
      await ada.signUp("ada", "correct horse battery", "Ada");
      const user = await node.server.services.accounts.byUsername("ada");
      await node.server.services.accounts.setAdmin(user!.id, true);
      const r = await ada.get("/admin");
      expect(r.status).to.equal(200);
      expect(r.text).to.contain(`<h1>${say("en", "admin.title")}</h1>`);
    });
  },
  oneBackend("lmdb"),
);
