// An app restricted to groups (docs/cli.md#sigil-apps-update, docs/http-api.md#groups-claim):
// `sigil apps update --groups G,H` sets it (the real program, beside the node); a member signs in
// as before; anyone else sees a page saying so, in their language, and the app receives
// error=access_denied at its redirect URI — by the page's button, by a forged "allow", and at once
// with prompt=none. `--groups ""` lifts it; an unknown group is a usage error that changes nothing.
import { expect } from "chai";
import { describeBackends, oneBackend } from "./support/backends.js";
import { sigil } from "./support/cli.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, authorize, csrfOf, decodeHtml, registerApp, type TestApp } from "./support/pages.js";

describeBackends(
  "Apps restricted to groups",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    let node: TestNode;
    let app: TestApp;
    let member: PageClient;
    let other: PageClient;
    beforeEach(async () => {
      node = await backend.startNode();
      const dev = new PageClient(node.url);
      await dev.signUp("devon");
      app = await registerApp(dev, ["https://grafana.example/cb"], "Grafana");
      member = new PageClient(node.url);
      await member.signUp("mia", "password123", "Mia");
      other = new PageClient(node.url);
      await other.signUp("otto", "password123", "Otto");
      const store = node.opened.store;
      for (const g of ["ops", "dev"]) await store.groups.create({ name: g, createdAt: 1 });
      await store.groups.addMember("ops", (await store.accounts.byUsername("mia"))!.id);
    });

    const cli = (...args: string[]) => sigil({ ...backend.env(), SECRET: node.config.secret }, ...args);
    const ask = (extra: Record<string, string> = {}) =>
      `/authorize?${new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: "code",
        scope: "openid profile",
        state: "s1",
        ...extra,
      })}`;

    it("When an app is restricted, then a member signs in, and anyone else is told so and the app gets access_denied", async () => {
      const set = await cli("apps", "update", "--client-id", app.clientId, "--groups", "OPS,dev");
      expect(set.code, set.err).to.equal(0);
      expect(set.json.groups).to.deep.equal(["dev", "ops"]);

      const code = await authorize(member, { ...Object.fromEntries(new URL(ask(), node.url).searchParams) });
      expect(code.searchParams.get("code")).to.be.a("string");

      const page = await other.get(ask());
      expect(page.status).to.equal(403);
      expect(page.text).to.contain("Not available to you");
      expect(page.text).to.contain("Grafana");
      // Its button: back to the app, which hears no.
      const hidden: Record<string, string> = {};
      for (const [, name = "", value = ""] of page.text.matchAll(
        /<input type="hidden" name="([^"]+)" value="([^"]*)"/g,
      ))
        hidden[name] = decodeHtml(value);
      const back = await other.post("/authorize", { ...hidden, decision: "deny" });
      expect(back.status).to.equal(303);
      const to = new URL(back.headers.location as string);
      expect(`${to.origin}${to.pathname}`).to.equal(app.redirectUri);
      expect(to.searchParams.get("error")).to.equal("access_denied");
      expect(to.searchParams.get("state")).to.equal("s1");
      expect(to.searchParams.get("code")).to.equal(null);
      // A forged "allow" is refused the same way, and no consent is recorded.
      const forged = await other.post("/authorize", { ...hidden, decision: "allow" });
      expect(new URL(forged.headers.location as string).searchParams.get("error")).to.equal("access_denied");
      const otto = (await node.opened.store.accounts.byUsername("otto"))!;
      expect(await node.opened.store.grants.consents(otto.id)).to.deep.equal([]);
      // prompt=none: the redirect at once.
      const silent = await other.get(ask({ prompt: "none" }));
      expect(silent.status).to.equal(303);
      expect(new URL(silent.headers.location as string).searchParams.get("error")).to.equal("access_denied");

      // Lifted: otto is asked for consent as anyone.
      const lifted = await cli("apps", "update", "--client-id", app.clientId, "--groups", "");
      expect(lifted.code, lifted.err).to.equal(0);
      expect(lifted.json).to.not.have.property("groups");
      const consent = await other.get(ask());
      expect(consent.status).to.equal(200);
      expect(consent.text).to.contain('name="decision" value="allow"');
    });

    it("When the page is shown in each language, then it says so in that language; csrf and the app's name are on it", async () => {
      expect((await cli("apps", "update", "--client-id", app.clientId, "--groups", "ops")).code).to.equal(0);
      const titles: Record<string, string> = {
        en: "Not available to you",
        de: "Für Sie nicht verfügbar",
        es: "No disponible para ti",
        fr: "Non disponible pour vous",
        ja: "ご利用いただけません",
      };
      for (const [lang, title] of Object.entries(titles)) {
        const page = await other.get(ask({ ui_locales: lang }));
        expect(page.status).to.equal(403);
        expect(page.text, lang).to.contain(title);
        expect(page.text).to.contain(`lang="${lang}"`);
        expect(csrfOf(page.text)).to.be.a("string");
      }
    });

    it("When --groups names an unknown or bad group, then it is a usage error and the app is unchanged", async () => {
      expect((await cli("apps", "update", "--client-id", app.clientId, "--groups", "ops")).code).to.equal(0);
      for (const groups of ["ops,nope", "bad name", ","]) {
        const r = await cli("apps", "update", "--client-id", app.clientId, "--groups", groups, "--name", "Renamed");
        expect(r.code, groups).to.equal(1);
        expect(r.err).to.match(/^sigil: --groups: /);
      }
      const stored = (await node.opened.store.apps.get(app.clientId))!;
      expect(stored.groups).to.deep.equal(["ops"]);
      expect(stored.name).to.equal("Grafana");
    });
  },
  oneBackend("redis"),
);
