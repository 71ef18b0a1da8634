// CONTRACT §17 "Client credentials", docs/pages.md#administration: on /admin/apps/:clientId an
// admin sets the scopes an app may ask for tokens of its own (behind the admin gate, CSRF and a
// fresh "Confirm it's you", recorded with the admin as actor); a bad list or a public client changes
// nothing; the app then gets its token at /token; an empty list takes the grant away again.
import { expect } from "chai";
import { CATALOGS } from "../src/i18n/index.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import { registerPublicApp } from "./support/grants.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, basic, registerApp, token, type TestApp } from "./support/pages.js";

const en = CATALOGS.en;
const PASSWORD = "correct horse battery";

describeBackends(
  "An admin allows an app client credentials on its page",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    let node: TestNode;
    let ada: PageClient;
    let dev: PageClient;
    let app: TestApp;
    beforeEach(async () => {
      node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
      ada = new PageClient(node.url);
      await ada.signUp("ada", PASSWORD);
      const adaId = (await node.server.services.accounts.byUsername("ada"))!.id;
      await node.server.services.accounts.setAdmin(adaId, true);
      dev = new PageClient(node.url);
      await dev.signUp("devon", PASSWORD);
      app = await registerApp(dev, ["https://jobs.example/cb"], "Jobs");
    });
    const appUrl = (id = app.clientId) => `/admin/apps/${id}`;
    const cc = () =>
      token(node.url, { grant_type: "client_credentials" }, { authorization: basic(app.clientId, app.clientSecret) });

    it("When an admin saves scopes, then the page shows them, the app gets a token of them, the change is recorded; bad lists change nothing; empty takes the grant away", async () => {
      expect((await cc()).json.error).to.equal("unauthorized_client");
      // Without a fresh confirmation the form leads to "Confirm it's you" and changes nothing.
      const early = await ada.submit(appUrl(), `${appUrl()}/m2m`, { scopes: "jobs:run" });
      expect(early.status).to.equal(303);
      expect((await node.opened.store.apps.get(app.clientId))!.m2mScopes).to.equal(undefined);
      await ada.confirm(PASSWORD, appUrl());
      const saved = await ada.submit(appUrl(), `${appUrl()}/m2m`, { scopes: " jobs:run  jobs:read " });
      expect(saved.headers.location).to.equal(`${appUrl()}?done=m2m`);
      const page = await ada.get(appUrl());
      expect(page.text).to.match(/class="admin-app-m2m">jobs:run jobs:read</);
      expect(page.text).to.contain('value="jobs:run jobs:read"');
      const t = await cc();
      expect([t.status, t.json.scope]).to.deep.equal([200, "jobs:run jobs:read"]);

      for (const bad of ["openid", "jobs realtime", "x".repeat(5000), "jobs\u00e9"]) {
        const r = await ada.submit(appUrl(), `${appUrl()}/m2m`, { scopes: bad });
        expect(r.status, bad).to.equal(400);
        expect(r.text).to.contain(en["err.m2mScopes"].slice(0, 40));
      }
      expect((await node.opened.store.apps.get(app.clientId))!.m2mScopes).to.deep.equal(["jobs:run", "jobs:read"]);
      const spa = await registerPublicApp(dev);
      const pub = await ada.submit(appUrl(spa.clientId), `${appUrl(spa.clientId)}/m2m`, { scopes: "jobs" });
      expect(pub.status).to.equal(400);
      expect((await node.opened.store.apps.get(spa.clientId))!.m2mScopes).to.equal(undefined);

      expect((await ada.submit(appUrl(), `${appUrl()}/m2m`, { scopes: "" })).status).to.equal(303);
      expect((await node.opened.store.apps.get(app.clientId))!.m2mScopes).to.equal(undefined);
      expect((await cc()).json.error).to.equal("unauthorized_client");
      await node.server.services.audit.settled();
      const log = await node.server.services.audit.list({ limit: 50 });
      const mine = log.records.filter((r) => r.type === "app.updated" && r.actor?.kind === "admin");
      expect(mine.length).to.be.at.least(2);
    });
  },
  oneBackend("lmdb"),
);
