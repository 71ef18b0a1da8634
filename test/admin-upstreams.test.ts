// docs/upstream-providers.md#on-admin, CONTRACT §17 ("by settings … or on /admin"): admins add,
// change and remove "Continue with …" providers on /admin/upstreams. A provider added there signs
// people in through a real upstream OpenID provider (oidc-provider, test/support/upstream-op.ts) at
// once, on every node; its secret is sealed in the store and never shown; a change of issuer is
// used at once (discovered again); removing it keeps the links (added again, the same account signs
// in) after a confirmation that counts them. Every field's bad value, a taken id, a missing CSRF
// token, a missing "Confirm it's you" and a non-admin change nothing.
import { expect } from "chai";
import { CATALOGS, LOCALES } from "../src/i18n/index.js";
import { restoreItems } from "../src/store/backup.js";
import { UpstreamFormError, UpstreamProviders } from "../src/domain/upstream-providers.js";
import type { AuditRecord, BackupItem } from "../src/store/port.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { englishLeft } from "./support/page-text.js";
import { PageClient, csrfOf, decodeHtml, person } from "./support/pages.js";
import { TestUpstream } from "./support/upstream-op.js";

const en = CATALOGS.en;
const PASSWORD = "correct horse battery";
const ADMIN_ENV = { ADMIN_REQUIRE_2FA: "false" };

/** The fields of a good add form for the upstream `up` under `id`. */
function form(up: TestUpstream, id = "corp", over: Record<string, string> = {}): Record<string, string> {
  const env = up.env();
  return {
    kind: "oidc",
    id,
    name: "Corp SSO",
    issuer: up.issuer,
    api_url: "",
    client_id: env.UPSTREAM_CORP_CLIENT_ID!,
    client_secret: env.UPSTREAM_CORP_CLIENT_SECRET!,
    ...over,
  };
}

/** An admin, signed in, who confirmed it's them (the admin actions need it). */
async function admin(node: TestNode): Promise<PageClient> {
  const { c } = await person(node, "ada", { admin: true });
  await c.confirm(PASSWORD, "/admin/upstreams");
  return c;
}

/** "Continue with <name>" on /signin of a fresh browser, through the upstream; the callback's answer. */
async function continueWith(url: string, up: TestUpstream, id = "corp") {
  const c = new PageClient(url);
  const html = (await c.get("/signin")).text;
  const r = await c.post(`/upstream/${id}?return_to=%2Faccount`, { _csrf: csrfOf(html) });
  expect(r.status, r.text.slice(0, 300)).to.equal(303);
  const back = await up.signInThere(String(r.headers.location));
  return { c, answer: await c.get(back.pathname + back.search) };
}

async function audit(node: TestNode, type: string): Promise<AuditRecord[]> {
  await node.server.services.audit.settled();
  return (await node.server.services.audit.list({ limit: 100 })).records.filter((r) => r.type === type);
}

describeBackends(
  "Upstream providers on /admin",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    let up: TestUpstream;
    let node: TestNode;
    let ada: PageClient;
    beforeEach(async () => {
      up = await TestUpstream.start();
      node = await backend.startNode(ADMIN_ENV);
      up.redirectUri = `${node.url}/upstream/corp/callback`;
      ada = await admin(node);
    });
    afterEach(() => up.stop().catch(() => undefined));

    it("When an admin adds an OpenID provider, then its callback is shown, /signin offers it and signs in through it, and its secret is sealed, never shown nor logged", async () => {
      expect(decodeHtml((await new PageClient(node.url).get("/signin")).text)).not.to.contain("Continue with Corp SSO");
      const r = await ada.submit("/admin/upstreams", "/admin/upstreams", form(up));
      expect(r.status, r.text.slice(0, 400)).to.equal(303);
      expect(r.headers.location).to.equal("/admin/upstreams/corp?done=added");
      const page = decodeHtml((await ada.get("/admin/upstreams/corp?done=added")).text);
      expect(page).to.contain(`${node.url}/upstream/corp/callback`).and.contain(en["adminUpstreams.done.added"]);
      const secret = form(up).client_secret!;
      expect(page).not.to.contain(secret);
      expect(decodeHtml((await ada.get("/admin/upstreams")).text)).not.to.contain(secret);
      const stored = (await node.opened.store.upstreamProviders.get("corp"))!;
      expect(stored).to.include({ kind: "oidc", name: "Corp SSO", issuer: up.issuer, clientId: "sigil-test" });
      expect(JSON.stringify(stored)).not.to.contain(secret);

      expect(decodeHtml((await new PageClient(node.url).get("/signin")).text)).to.contain("Continue with Corp SSO");
      const { c, answer } = await continueWith(node.url, up);
      expect(answer.status, answer.text.slice(0, 300)).to.equal(303);
      expect(decodeHtml((await c.get("/account")).text)).to.contain("Corp SSO: alice@corp.example");
      const added = await audit(node, "upstream.added");
      expect(added).to.have.length(1);
      expect(added[0]).to.deep.include({ upstream: "corp", actor: { kind: "admin", id: added[0]!.actor!.id } });
      const all = JSON.stringify((await node.server.services.audit.list({ limit: 100 })).records);
      expect(all).not.to.contain(secret);
      // /admin/audit names the provider the record is about.
      const auditPage = decodeHtml((await ada.get("/admin/audit?type=upstream.added")).text);
      expect(auditPage).to.match(/<code>corp<\/code>/);
    });

    it("When an admin renames the provider and keeps its secret, then the button has the new name; a new issuer is used at once", async () => {
      await ada.submit("/admin/upstreams", "/admin/upstreams", form(up));
      const keep = await ada.submit("/admin/upstreams/corp", "/admin/upstreams/corp", {
        name: "Staff login",
        issuer: up.issuer,
        client_id: "sigil-test",
        client_secret: "",
      });
      expect(keep.status, keep.text.slice(0, 400)).to.equal(303);
      expect(decodeHtml((await new PageClient(node.url).get("/signin")).text)).to.contain("Continue with Staff login");
      expect((await continueWith(node.url, up)).answer.status).to.equal(303);
      // Another upstream (another issuer, the same client): the next sign-in goes there.
      const other = await TestUpstream.start();
      try {
        other.redirectUri = up.redirectUri;
        other.who = { ...other.who, sub: "u-bob", preferred_username: "bob", email: "bob@corp.example" };
        const moved = await ada.submit("/admin/upstreams/corp", "/admin/upstreams/corp", {
          name: "Staff login",
          issuer: other.issuer,
          client_id: "sigil-test",
        });
        expect(moved.status).to.equal(303);
        const { answer } = await continueWith(node.url, other);
        expect(answer.status, answer.text.slice(0, 300)).to.equal(303);
        expect(await node.opened.store.upstreamLinks.byIdentity(other.issuer, "u-bob")).to.not.equal(null);
      } finally {
        await other.stop();
      }
      expect((await audit(node, "upstream.changed")).map((r) => r.upstream)).to.deep.equal(["corp", "corp"]);
    });

    it("When the provider is removed, then the confirmation counts its linked accounts and the ones it is the only way in for; the links stay, and added again it signs the same account in", async () => {
      await ada.submit("/admin/upstreams", "/admin/upstreams", form(up));
      expect((await continueWith(node.url, up)).answer.status).to.equal(303);
      const alice = (await node.opened.store.accounts.byUsername("alice"))!;
      // Bob has a password, and links another identity there from /account: he has another way in.
      const { c: bob } = await person(node, "bob");
      up.who = { sub: "u-bob", preferred_username: "bob" };
      await bob.confirm(); // a link adds a way in: it takes "Confirm it's you"
      const html = (await bob.get("/account")).text;
      const linking = await bob.post("/upstream/corp?link=1", { _csrf: csrfOf(html) });
      const back = await up.signInThere(String(linking.headers.location));
      expect((await bob.get(back.pathname + back.search)).status).to.equal(303);
      const confirm = await ada.get("/admin/upstreams/corp/remove");
      expect(confirm.status).to.equal(200);
      const text = decodeHtml(confirm.text);
      expect(text).to.contain(en["adminUpstreams.removeLead"].replace("{count}", "2").replace("{id}", "corp"));
      expect(text).to.contain(en["adminUpstreams.onlyWay"].replace("{count}", "1"));
      // Without confirm=yes, nothing is removed.
      expect((await ada.submit("/admin/upstreams/corp/remove", "/admin/upstreams/corp/remove", {})).status).to.equal(
        303,
      );
      expect(await node.opened.store.upstreamProviders.get("corp")).to.not.equal(null);
      const gone = await ada.submit("/admin/upstreams/corp/remove", "/admin/upstreams/corp/remove", { confirm: "yes" });
      expect(gone.status).to.equal(200);
      expect(decodeHtml(gone.text)).to.contain("Corp SSO is removed.");
      expect(decodeHtml((await new PageClient(node.url).get("/signin")).text)).not.to.contain("Continue with Corp SSO");
      const c = new PageClient(node.url);
      const start = await c.post("/upstream/corp", { _csrf: csrfOf((await c.get("/signin")).text) });
      expect(start.status).to.equal(404);
      expect(await node.opened.store.upstreamLinks.listForUser(alice.id)).to.have.length(1);
      expect((await ada.get("/admin/upstreams/corp")).status).to.equal(404);

      await ada.submit("/admin/upstreams", "/admin/upstreams", form(up));
      up.who = { sub: "u-alice", preferred_username: "alice", email: "alice@corp.example", email_verified: true };
      const again = await continueWith(node.url, up);
      expect(again.answer.status).to.equal(303);
      expect((await node.opened.store.accounts.list({ limit: 10 })).map((u) => u.username)).to.have.members([
        "ada",
        "alice",
        "bob",
      ]);
      expect(await audit(node, "upstream.removed")).to.have.length(1);
    });

    it("When the store is backed up and restored, then the provider added on /admin signs the same account in again", async () => {
      await ada.submit("/admin/upstreams", "/admin/upstreams", form(up));
      expect((await continueWith(node.url, up)).answer.status).to.equal(303);
      const alice = (await node.opened.store.accounts.byUsername("alice"))!;
      const store = node.opened.store;
      const items: BackupItem[] = [];
      for await (const i of store.backup.items()) items.push(i);
      expect(JSON.stringify(items)).not.to.contain(form(up).client_secret);
      await store.backup.clear();
      expect(decodeHtml((await new PageClient(node.url).get("/signin")).text)).not.to.contain("Continue with Corp SSO");
      const counts = await restoreItems(
        store,
        (async function* () {
          yield* items;
        })(),
        3600,
        86400,
      );
      expect(counts.restored.upstream).to.equal(1);
      const { answer } = await continueWith(node.url, up);
      expect(answer.status, answer.text.slice(0, 300)).to.equal(303);
      expect((await store.accounts.byUsername("alice"))?.id).to.equal(alice.id);
    });

    it("When the provider's secret cannot be opened with SECRET (changed since), then it is not offered, a change must give the secret again, and then it is", async () => {
      await ada.submit("/admin/upstreams", "/admin/upstreams", form(up));
      const store = node.opened.store;
      const other = new UpstreamProviders({ store, fromSettings: [], secret: "another-secret-".repeat(3) });
      const stored = (await store.upstreamProviders.get("corp"))!;
      expect(other.secretOf(stored)).to.equal(null);
      expect(await other.usable()).to.deep.equal([]);
      const keep = await other
        .change("corp", { name: "Corp SSO", issuer: up.issuer, client_id: "sigil-test" })
        .catch((e: unknown) => e);
      expect(keep).to.be.instanceOf(UpstreamFormError).and.include({ field: "client_secret", reason: "bad" });
      await other.change("corp", {
        name: "Corp SSO",
        issuer: up.issuer,
        client_id: "sigil-test",
        client_secret: "new-one",
      });
      expect((await other.usable()).map((u) => u.clientSecret)).to.deep.equal(["new-one"]);
      // This node's SECRET cannot open the new one: its page says so, and its /signin no longer offers it.
      expect(decodeHtml((await ada.get("/admin/upstreams")).text)).to.contain(en["adminUpstreams.unreadable"]);
      expect(decodeHtml((await new PageClient(node.url).get("/signin")).text)).not.to.contain("Continue with Corp SSO");
    });

    it("When the provider's secret cannot be opened with SECRET, then the node logs one warning naming it (not one per request, never the secret), and one more after each change", async () => {
      await ada.submit("/admin/upstreams", "/admin/upstreams", form(up));
      const store = node.opened.store;
      const other = new UpstreamProviders({ store, fromSettings: [], secret: "another-secret-".repeat(3) });
      const changeThere = (secret: string) =>
        other.change("corp", { name: "Corp SSO", issuer: up.issuer, client_id: "sigil-test", client_secret: secret });
      const warnings = () =>
        node.logs.filter((l) => l.includes('"upstream":"corp"')).map((l) => JSON.parse(l) as Record<string, unknown>);
      await changeThere("sealed-elsewhere-1");
      for (let i = 0; i < 5; i++) {
        const page = (await new PageClient(node.url).get("/signin")).text;
        expect(decodeHtml(page)).not.to.contain("Continue with Corp SSO");
      }
      const begun = await ada.submit("/signin", "/upstream/corp", {});
      expect(begun.status).to.equal(404);
      expect(warnings()).to.have.length(1);
      expect(warnings()[0]!.level).to.equal("warn");
      expect(String(warnings()[0]!.msg)).to.contain('"corp"').and.contain("SECRET");
      await changeThere("sealed-elsewhere-2");
      for (let i = 0; i < 3; i++) await new PageClient(node.url).get("/signin");
      expect(warnings()).to.have.length(2);
      // Given again here, it is offered, and nothing more is logged of it.
      const fixed = await ada.submit("/admin/upstreams/corp", "/admin/upstreams/corp", {
        name: "Corp SSO",
        issuer: up.issuer,
        client_id: "sigil-test",
        client_secret: "given-again",
      });
      expect(fixed.status, fixed.text.slice(0, 300)).to.equal(303);
      expect(decodeHtml((await new PageClient(node.url).get("/signin")).text)).to.contain("Continue with Corp SSO");
      expect(warnings()).to.have.length(2);
      const logs = node.logs.join("\n");
      for (const secret of [
        "sealed-elsewhere-1",
        "sealed-elsewhere-2",
        "given-again",
        up.env().UPSTREAM_CORP_CLIENT_SECRET ?? "-",
      ])
        expect(logs).not.to.contain(secret);
    });

    it("When a field is bad or the id is taken, then the form says which field, keeps what was typed but the secret, and nothing is stored", async () => {
      const cases: Array<[Record<string, string>, string, number]> = [
        [{ id: "" }, "id", 400],
        [{ id: "corp-sso" }, "id", 400],
        [{ id: "x".repeat(33) }, "id", 400],
        [{ kind: "saml" }, "kind", 400],
        [{ name: "n".repeat(41) }, "name", 400],
        [{ issuer: "" }, "issuer", 400],
        [{ issuer: "not a url" }, "issuer", 400],
        [{ issuer: "ftp://sso.example" }, "issuer", 400],
        [{ api_url: "https://api.example" }, "api_url", 400],
        [{ kind: "github", api_url: "nope" }, "api_url", 400],
        [{ client_id: "" }, "client_id", 400],
        [{ client_id: "c".repeat(513) }, "client_id", 400],
        [{ client_secret: "" }, "client_secret", 400],
        [{ client_secret: "s".repeat(600) }, "client_secret", 400],
      ];
      for (const [over, fieldName, status] of cases) {
        const r = await ada.submit("/admin/upstreams", "/admin/upstreams", form(up, "corp", over));
        const what = JSON.stringify(over).slice(0, 80);
        expect(r.status, what).to.equal(status);
        expect(decodeHtml(r.text), what).to.contain(en[`adminUpstreams.bad.${fieldName}` as keyof typeof en]);
        expect(r.text, what).to.contain(`href="#${fieldName}"`);
        expect(r.text, what).not.to.contain(form(up).client_secret);
      }
      const typed = await ada.submit("/admin/upstreams", "/admin/upstreams", form(up, "corp", { issuer: "nope" }));
      expect(typed.text).to.contain('value="Corp SSO"').and.contain('value="sigil-test"');
      expect(await node.opened.store.upstreamProviders.list()).to.deep.equal([]);

      expect((await ada.submit("/admin/upstreams", "/admin/upstreams", form(up))).status).to.equal(303);
      const taken = await ada.submit("/admin/upstreams", "/admin/upstreams", form(up, "CORP", { name: "Other" }));
      expect(taken.status).to.equal(409);
      expect(decodeHtml(taken.text)).to.contain(en["adminUpstreams.taken"].replace("{id}", "corp"));
      expect((await node.opened.store.upstreamProviders.get("corp"))?.name).to.equal("Corp SSO");
      // A bad change changes nothing either.
      const change = { name: "Corp SSO", issuer: up.issuer, client_id: "sigil-test", client_secret: "" };
      for (const [over, fieldName] of [
        [{ name: "n".repeat(41) }, "name"],
        [{ issuer: "" }, "issuer"],
        [{ issuer: "https://sso.example/?q=1" }, "issuer"],
        [{ client_id: "" }, "client_id"],
        [{ client_secret: "s".repeat(513) }, "client_secret"],
      ] as const) {
        const bad = await ada.submit("/admin/upstreams/corp", "/admin/upstreams/corp", { ...change, ...over });
        expect(bad.status, fieldName).to.equal(400);
        expect(bad.text, fieldName).to.contain(`href="#${fieldName}"`);
      }
      expect(await node.opened.store.upstreamProviders.get("corp")).to.include({
        name: "Corp SSO",
        clientId: "sigil-test",
      });
      const unknown = await ada.submit("/admin/upstreams", `/admin/upstreams/${"z".repeat(5000)}`, { name: "x" });
      expect(unknown.status).to.equal(404);
      // GitHub with no issuer: github.com and its API, as the settings default them.
      const gh = {
        kind: "github",
        id: "GH",
        name: "",
        issuer: "",
        api_url: "",
        client_id: "gh-id",
        client_secret: "gh-s",
      };
      expect((await ada.submit("/admin/upstreams", "/admin/upstreams", gh)).status).to.equal(303);
      expect(await node.opened.store.upstreamProviders.get("gh")).to.include({
        name: "GitHub",
        issuer: "https://github.com",
        apiUrl: "https://api.github.com",
      });
    });

    it("When the change comes without a CSRF token, without a fresh proof, from someone not an admin or signed out, then nothing is stored", async () => {
      expect((await ada.post("/admin/upstreams", form(up))).status).to.equal(403);
      const { c: bob } = await person(node, "bob");
      await bob.confirm(PASSWORD, "/account");
      expect((await bob.get("/admin/upstreams")).status).to.equal(403);
      const csrf = csrfOf((await bob.get("/account")).text);
      expect((await bob.post("/admin/upstreams", { _csrf: csrf, ...form(up) })).status).to.equal(403);
      const anon = new PageClient(node.url);
      const csrfAnon = csrfOf((await anon.get("/signin")).text);
      expect((await anon.post("/admin/upstreams", { _csrf: csrfAnon, ...form(up) })).status).to.equal(303);
      // An admin whose proof is not fresh (a new session) is sent to confirm first.
      const { c: cy } = await person(node, "cyd", { admin: true });
      const r = await cy.submit("/admin/upstreams", "/admin/upstreams", form(up));
      expect(r.status).to.equal(303);
      expect(String(r.headers.location)).to.match(/^\/confirm\?/);
      expect(await node.opened.store.upstreamProviders.list()).to.deep.equal([]);
      expect(await audit(node, "upstream.added")).to.deep.equal([]);
    });

    it("When an admin opens the pages in each language, then they are in it", async () => {
      await ada.submit("/admin/upstreams", "/admin/upstreams", form(up));
      for (const lang of LOCALES) {
        const h = { "accept-language": lang };
        for (const path of ["/admin", "/admin/upstreams", "/admin/upstreams/corp", "/admin/upstreams/corp/remove"]) {
          const r = await ada.get(path, h);
          expect(r.status, `${lang} ${path}`).to.equal(200);
          expect(r.text, `${lang} ${path}`).to.include(`lang="${lang}"`);
          if (lang !== "en") expect(englishLeft(r.text, lang), `${lang} ${path}`).to.deep.equal([]);
        }
        const bad = await ada.submit("/admin/upstreams", "/admin/upstreams", form(up, "x", { issuer: "" }));
        expect(decodeHtml(bad.text), lang).to.contain(en["adminUpstreams.bad.issuer"]);
      }
    });
  },
  oneBackend("lmdb"),
);

describeBackends(
  "Upstream providers on /admin, beside the settings' and across nodes",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    let up: TestUpstream;
    afterEach(() => up.stop().catch(() => undefined));

    it("When an admin adds a provider on node A, then node B offers it and signs in through it at once; removed on A, B no longer offers it", async () => {
      up = await TestUpstream.start();
      const a = await backend.startNode(ADMIN_ENV);
      const b = await backend.startNode(ADMIN_ENV);
      up.redirectUri = `${b.url}/upstream/corp/callback`;
      const ada = await admin(a);
      expect((await ada.submit("/admin/upstreams", "/admin/upstreams", form(up))).status).to.equal(303);
      expect(decodeHtml((await new PageClient(b.url).get("/signin")).text)).to.contain("Continue with Corp SSO");
      const { answer } = await continueWith(b.url, up);
      expect(answer.status, answer.text.slice(0, 300)).to.equal(303);
      expect(await b.opened.store.accounts.byUsername("alice")).to.not.equal(null);
      await ada.submit("/admin/upstreams/corp/remove", "/admin/upstreams/corp/remove", { confirm: "yes" });
      expect(decodeHtml((await new PageClient(b.url).get("/signin")).text)).not.to.contain("Continue with Corp SSO");
    });

    it("When 50 adds of one id are sent at once, half to each node, then one is stored, recorded once, and the others are told the id is taken", async () => {
      up = await TestUpstream.start();
      const a = await backend.startNode(ADMIN_ENV);
      const b = await backend.startNode(ADMIN_ENV);
      const ada = await admin(a);
      const onB = new PageClient(b.url);
      for (const [k, v] of ada.cookies) onB.cookies.set(k, v);
      const csrf = csrfOf((await ada.get("/admin/upstreams")).text);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 ? onB : ada).post("/admin/upstreams", { _csrf: csrf, ...form(up, "corp", { name: `n${i}` }) }),
        ),
      );
      expect(answers.filter((r) => r.status === 303)).to.have.length(1);
      for (const r of answers.filter((r) => r.status !== 303)) expect(r.status).to.equal(409);
      const stored = await a.opened.store.upstreamProviders.list();
      expect(stored).to.have.length(1);
      expect(stored[0]!.name).to.equal(`n${answers.findIndex((r) => r.status === 303)}`);
      // Both nodes write the one store's log: settled on each, one record.
      await b.server.services.audit.settled();
      expect(await audit(a, "upstream.added")).to.have.length(1);
    });

    it("When the settings name a provider, then /admin lists it read-only and its id is refused", async () => {
      up = await TestUpstream.start();
      const node = await backend.startNode({ ...ADMIN_ENV, ...up.env() });
      const ada = await admin(node);
      const list = await ada.get("/admin/upstreams");
      expect(decodeHtml(list.text)).to.contain("Corp SSO").and.contain(en["adminUpstreams.fromSettings"]);
      expect(list.text).to.contain('data-from="settings"').and.not.contain('href="/admin/upstreams/corp"');
      expect(list.text).not.to.contain(up.env().UPSTREAM_CORP_CLIENT_SECRET);
      expect((await ada.get("/admin/upstreams/corp")).status).to.equal(404);
      const taken = await ada.submit("/admin/upstreams", "/admin/upstreams", form(up, "Corp"));
      expect(taken.status).to.equal(409);
      expect(await node.opened.store.upstreamProviders.list()).to.deep.equal([]);
    });
  },
  ["redis"],
);
