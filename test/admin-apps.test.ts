// CONTRACT §14 "Apps" and "Groups", docs/pages.md#administration: /admin/apps lists and searches
// every app (pages of 50) and /admin/apps/:clientId edits one (the owner's checks), marks it
// first-party or disabled, and restricts it to groups; /admin/groups creates and deletes groups
// and adds or removes members. Every action is behind CSRF, the admin gate and a fresh "Confirm
// it's you", and in the audit log with the admin as actor; a refusal changes nothing.
import { expect } from "chai";
import { CATALOGS, type Locale } from "../src/i18n/index.js";
import type { AuditRecord } from "../src/store/port.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { englishLeft } from "./support/page-text.js";
import { PageClient, authorize, csrfOf, registerApp, token, type TestApp } from "./support/pages.js";

const en = CATALOGS.en;
const PASSWORD = "correct horse battery";
const rows = (html: string) => [...html.matchAll(/<tr data-client-id="([^"]+)"/g)].map((m) => m[1]);
const members = (html: string) => [...html.matchAll(/<li data-username="([^"]+)"/g)].map((m) => m[1]);
const hrefOf = (html: string, rel: string) =>
  new RegExp(`<a href="([^"]+)" rel="${rel}"`).exec(html)?.[1]?.replace(/&amp;/g, "&");

describeBackends(
  "The admin's apps and groups pages",
  function (this: Mocha.Suite, backend) {
    this.timeout(90_000);
    let node: TestNode;
    let ada: PageClient;
    let adaId: string;
    let dev: PageClient;
    let app: TestApp;
    beforeEach(async () => {
      node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
      ada = new PageClient(node.url);
      await ada.signUp("ada", PASSWORD);
      adaId = (await node.server.services.accounts.byUsername("ada"))!.id;
      await node.server.services.accounts.setAdmin(adaId, true);
      dev = new PageClient(node.url);
      await dev.signUp("devon", PASSWORD);
      app = await registerApp(dev, ["https://old.example/cb"], "Pixel Pets");
    });

    const appNow = () => node.opened.store.apps.get(app.clientId);
    const appUrl = () => `/admin/apps/${app.clientId}`;
    async function records(filter: (r: AuditRecord) => boolean): Promise<AuditRecord[]> {
      await node.server.services.audit.settled();
      return (await node.server.services.audit.list({ limit: 200 })).records.filter(filter);
    }
    /** An action on the app's page, by an admin who confirmed it's them. */
    const act = (what: string, fields: Record<string, string | string[]>) =>
      ada.submit(appUrl(), `${appUrl()}/${what}`, fields);
    const editFields = (over: Record<string, string> = {}) => ({
      name: "Pixel Pals",
      redirect_uri: "https://new.example/cb",
      post_logout_redirect_uri: "",
      homepage: "",
      ...over,
    });

    it("When there are more than 50 apps, then the list shows 50 a page in client id order with owner and marks, and search finds by name or client id", async () => {
      const store = node.opened.store.apps;
      const owner = (await node.server.services.accounts.byUsername("devon"))!.id;
      for (let i = 0; i < 52; i++) {
        const n = String(i).padStart(2, "0");
        await store.create({
          clientId: `c${n}`,
          ownerId: owner,
          name: i === 7 ? "Grace Notes" : `App ${n}`,
          redirectUris: ["https://a.example/cb"],
          secretHash: "",
          createdAt: Date.now(),
          ...(i === 3 ? { trusted: true, disabled: true, groups: ["staff"] } : {}),
        });
      }
      const first = await ada.get("/admin/apps");
      expect(first.status).to.equal(200);
      const one = rows(first.text);
      expect(one).to.have.length(50);
      expect(one).to.deep.equal([...one].sort());
      expect(first.text).to.contain("devon");
      const three = /<tr data-client-id="c03">([\s\S]*?)<\/tr>/.exec(first.text)![1]!;
      expect(three).to.contain(en["adminApps.trusted"]).and.contain(en["adminApps.disabled"]).and.contain("staff");
      const second = await ada.get(hrefOf(first.text, "next")!);
      expect(rows(second.text)).to.have.length(3);
      expect(hrefOf(second.text, "next")).to.equal(undefined);
      expect(rows((await ada.get("/admin/apps?q=grace")).text)).to.deep.equal(["c07"]);
      expect(rows((await ada.get(`/admin/apps?q=${app.clientId}`)).text)).to.deep.equal([app.clientId]);
      expect(rows((await ada.get("/admin/apps?q=pixel")).text)).to.deep.equal([app.clientId]);
      expect(rows((await ada.get("/admin/apps?q=nothing-like-it")).text)).to.deep.equal([]);
      const long = await ada.get(`/admin/apps?q=${"a".repeat(10_000)}`);
      expect(long.status).to.equal(400);
      expect(long.text).to.contain(en["err.queryTooLong"]);
    });

    it("When someone who is not an admin opens a page or sends an action, then it is a 403 and nothing changes", async () => {
      await node.server.services.groups.create("staff");
      const csrf = csrfOf((await dev.get("/account")).text);
      await dev.confirm(PASSWORD, "/account");
      for (const path of [
        "/admin/apps",
        appUrl(),
        "/admin/groups",
        "/admin/groups/staff",
        "/admin/groups/staff/delete",
      ]) {
        expect((await dev.get(path)).status, path).to.equal(403);
      }
      const posts: Array<[string, Record<string, string>]> = [
        [`${appUrl()}/edit`, editFields()],
        [`${appUrl()}/trusted`, { value: "on" }],
        [`${appUrl()}/disabled`, { value: "on" }],
        [`${appUrl()}/groups`, { group: "staff" }],
        ["/admin/groups", { name: "ops" }],
        ["/admin/groups/staff/members", { username: "devon" }],
        ["/admin/groups/staff/remove", { user: adaId }],
        ["/admin/groups/staff/delete", { confirm: "yes" }],
      ];
      for (const [path, fields] of posts) {
        expect((await dev.post(path, { _csrf: csrf, ...fields })).status, path).to.equal(403);
      }
      const now = (await appNow())!;
      expect([now.name, now.trusted, now.disabled, now.groups]).to.deep.equal([
        "Pixel Pets",
        undefined,
        undefined,
        undefined,
      ]);
      expect((await node.server.services.groups.list()).map((g) => [g.name, g.members])).to.deep.equal([["staff", 0]]);
    });

    it("When an admin edits an app, then without a fresh proof nothing changes; once confirmed, the client id, secret and consent stay, a refresh token still works, and the audit log names the admin", async () => {
      const una = new PageClient(node.url);
      await una.signUp("una", PASSWORD);
      const back = await authorize(una, {
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: "https://old.example/cb",
        scope: "openid offline_access",
        state: "s",
      });
      const t = await token(node.url, {
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: "https://old.example/cb",
        client_id: app.clientId,
        client_secret: app.clientSecret,
      });
      const refresh = (JSON.parse(t.text) as { refresh_token: string }).refresh_token;

      const noProof = await act("edit", editFields());
      expect(noProof.headers.location).to.equal(`/confirm?return_to=%2Fadmin%2Fapps%2F${app.clientId}`);
      expect((await appNow())!.name).to.equal("Pixel Pets");
      await ada.confirm(PASSWORD, appUrl());
      const r = await act("edit", editFields());
      expect(r.status, r.text.slice(0, 300)).to.equal(303);
      expect(r.headers.location).to.equal(`${appUrl()}?done=edited`);
      const page = await ada.get(r.headers.location as string);
      expect(page.text)
        .to.contain(en["adminApps.done.edited"])
        .and.contain("Pixel Pals")
        .and.contain("https://new.example/cb");
      const now = (await appNow())!;
      expect(now.clientId).to.equal(app.clientId);
      expect(now.redirectUris).to.deep.equal(["https://new.example/cb"]);
      const refreshed = await token(node.url, {
        grant_type: "refresh_token",
        refresh_token: refresh,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      });
      expect(refreshed.status, refreshed.text).to.equal(200);
      const again = await una.get(
        `/authorize?${new URLSearchParams({ response_type: "code", client_id: app.clientId, redirect_uri: "https://new.example/cb", scope: "openid offline_access", state: "s" })}`,
      );
      expect(again.status, "no new consent page").to.equal(303);
      const rec = await records((x) => x.type === "app.updated" && x.actor?.kind === "admin");
      expect(rec).to.have.length(1);
      expect(rec[0]).to.include({ client_id: app.clientId });
      expect(rec[0]!.actor).to.deep.equal({ kind: "admin", id: adaId });
    });

    it("When an admin sends a 10 KB name or a plain-http redirect URL for another host, then the page says why with the owner's messages, and nothing changes", async () => {
      await ada.confirm(PASSWORD, appUrl());
      const long = await act("edit", editFields({ name: "x".repeat(10_000) }));
      expect(long.status).to.equal(400);
      expect(long.text).to.contain(en["err.appName"]);
      const http = await act("edit", editFields({ redirect_uri: "http://evil.example/cb" }));
      expect(http.status).to.equal(400);
      expect(http.text).to.contain(en["err.redirectScheme"]);
      expect(http.text).to.contain("http://evil.example/cb"); // the form as sent, to correct
      const now = (await appNow())!;
      expect([now.name, now.redirectUris]).to.deep.equal(["Pixel Pets", ["https://old.example/cb"]]);
      expect(await records((x) => x.type === "app.updated" && x.actor?.kind === "admin")).to.deep.equal([]);
      expect((await ada.get("/admin/apps/no-such-app")).status).to.equal(404);
      expect((await ada.get(`/admin/apps/${"x".repeat(5000)}`)).status).to.equal(404);
      expect((await ada.submit(appUrl(), "/admin/apps/no-such-app/trusted", { value: "on" })).status).to.equal(404);
    });

    it("When an admin marks the app first-party and disabled and back, then the app changes, each real change is recorded once, and a bad value changes nothing", async () => {
      await ada.confirm(PASSWORD, appUrl());
      expect((await act("trusted", { value: "on" })).headers.location).to.equal(`${appUrl()}?done=trusted`);
      expect((await appNow())!.trusted).to.equal(true);
      expect((await act("trusted", { value: "on" })).status).to.equal(303);
      expect((await act("disabled", { value: "on" })).headers.location).to.equal(`${appUrl()}?done=disabled`);
      expect((await appNow())!.disabled).to.equal(true);
      const page = await ada.get(appUrl());
      expect(page.text)
        .to.match(/class="admin-app-trusted">Yes</)
        .and.match(/class="admin-app-disabled">Yes</);
      expect((await act("disabled", { value: "sideways" })).status).to.equal(400);
      expect((await appNow())!.disabled).to.equal(true);
      await act("disabled", { value: "off" });
      await act("trusted", { value: "off" });
      const now = (await appNow())!;
      expect([now.trusted, now.disabled]).to.deep.equal([undefined, undefined]);
      const types = (await records((x) => x.client_id === app.clientId && x.actor?.kind === "admin")).map(
        (x) => x.type,
      );
      expect(types.sort()).to.deep.equal(["app.disabled", "app.enabled", "app.trusted", "app.untrusted"]);
    });

    it("When the same first-party form is sent 50 times at once, then each answers with the app's page and the app is first-party", async () => {
      await ada.confirm(PASSWORD, appUrl());
      const csrf = csrfOf((await ada.get(appUrl())).text);
      const all = await Promise.all(
        Array.from({ length: 50 }, () => ada.post(`${appUrl()}/trusted`, { _csrf: csrf, value: "on" })),
      );
      expect(all.map((r) => r.status)).to.deep.equal(Array(50).fill(303));
      expect((await appNow())!.trusted).to.equal(true);
      // At least one record; identical forms racing may each see the app not yet first-party and
      // record it (the app store has no read-modify-write update: docs/choices.md#admin-users).
      expect((await records((x) => x.type === "app.trusted")).length).to.be.within(1, 50);
    });

    it("When an admin restricts the app to groups, then only existing groups are taken (an unknown one changes nothing), and none chosen lifts the restriction", async () => {
      await node.server.services.groups.create("staff");
      await node.server.services.groups.create("ops");
      await ada.confirm(PASSWORD, appUrl());
      const page = await ada.get(appUrl());
      expect(page.text).to.contain('value="staff"').and.contain('value="ops"');
      expect((await act("groups", { group: ["staff", "ops"] })).headers.location).to.equal(`${appUrl()}?done=groups`);
      expect((await appNow())!.groups).to.deep.equal(["ops", "staff"]);
      const unknown = await act("groups", { group: ["staff", "nope"] });
      expect(unknown.status).to.equal(400);
      expect(unknown.text).to.contain(en["adminApps.unknownGroup"]);
      const huge = await act("groups", { group: "g".repeat(10_000) });
      expect(huge.status).to.equal(400);
      expect((await appNow())!.groups).to.deep.equal(["ops", "staff"]);
      expect((await act("groups", {})).status).to.equal(303);
      expect((await appNow())!.groups).to.equal(undefined);
    });

    it("When an admin creates a group, adds and removes members and deletes it after a confirm step, then each is recorded with the admin as actor; a bad or taken name and an unknown user change nothing", async () => {
      await ada.confirm(PASSWORD, "/admin/groups");
      const bad = await ada.submit("/admin/groups", "/admin/groups", { name: "x".repeat(10_000) });
      expect(bad.status).to.equal(400);
      expect(bad.text).to.contain(en["adminGroups.badName"]);
      const made = await ada.submit("/admin/groups", "/admin/groups", { name: "Staff" });
      expect(made.headers.location).to.equal("/admin/groups/staff?done=created");
      const taken = await ada.submit("/admin/groups", "/admin/groups", { name: "staff" });
      expect(taken.status).to.equal(409);
      expect(taken.text).to.contain(en["adminGroups.taken"].replace("{name}", "staff"));
      expect((await node.server.services.groups.list()).map((g) => g.name)).to.deep.equal(["staff"]);

      const g = "/admin/groups/staff";
      const add = (username: string) => ada.submit(g, `${g}/members`, { username });
      expect((await add("DEVON")).headers.location).to.equal(`${g}?done=added`);
      expect((await add("devon")).headers.location).to.equal(`${g}?done=already`);
      const nobody = await add("nobody-here");
      expect(nobody.status).to.equal(400);
      expect(nobody.text).to.contain(en["adminGroups.unknownUser"]);
      expect((await add("y".repeat(10_000))).status).to.equal(400);
      const page = await ada.get(g);
      expect(members(page.text)).to.deep.equal(["devon"]);
      expect((await ada.get("/admin/groups")).text).to.match(/data-group="staff">[\s\S]*?<td[^>]*>1<\/td>/);

      const devonId = (await node.server.services.accounts.byUsername("devon"))!.id;
      expect((await ada.submit(g, `${g}/remove`, { user: devonId })).headers.location).to.equal(`${g}?done=removed`);
      expect(members((await ada.get(g)).text)).to.deep.equal([]);
      expect((await ada.submit(g, `${g}/remove`, { user: "unknown-id" })).status).to.equal(400);

      expect((await ada.get(`${g}/delete`)).text).to.contain(en["adminGroups.deleteTitle"].replace("{name}", "staff"));
      expect((await ada.submit(g, `${g}/delete`, {})).headers.location).to.equal(`${g}/delete`);
      expect((await node.server.services.groups.list()).map((x) => x.name)).to.deep.equal(["staff"]);
      const gone = await ada.submit(`${g}/delete`, `${g}/delete`, { confirm: "yes" });
      expect(gone.status).to.equal(200);
      expect(gone.text).to.contain(en["adminGroups.done.deleted"].replace("{name}", "staff"));
      expect(await node.server.services.groups.list()).to.deep.equal([]);
      expect((await ada.get(g)).status).to.equal(404);

      const recs = await records((x) => x.type.startsWith("group."));
      expect(recs.map((x) => x.type).sort()).to.deep.equal([
        "group.created",
        "group.deleted",
        "group.member_added",
        "group.member_removed",
      ]);
      for (const x of recs) {
        expect(x.actor).to.deep.equal({ kind: "admin", id: adaId });
        expect(x.group).to.equal("staff");
      }
      expect(recs.find((x) => x.type === "group.member_added")).to.include({ user_id: devonId, username: "devon" });
    });

    it("When the same member is added 50 times at once, then each answers, the user is in the group once, and one addition is recorded", async () => {
      await node.server.services.groups.create("staff");
      const g = "/admin/groups/staff";
      await ada.confirm(PASSWORD, g);
      const csrf = csrfOf((await ada.get(g)).text);
      const all = await Promise.all(
        Array.from({ length: 50 }, () => ada.post(`${g}/members`, { _csrf: csrf, username: "devon" })),
      );
      expect(all.map((r) => r.status)).to.deep.equal(Array(50).fill(303));
      expect(all.filter((r) => r.headers.location === `${g}?done=added`)).to.have.length(1);
      expect(members((await ada.get(g)).text)).to.deep.equal(["devon"]);
      expect(await records((x) => x.type === "group.member_added")).to.have.length(1);
    });

    it("When an admin opens the new pages in each language, then all of it is in that language, and /admin links to them", async () => {
      await node.server.services.groups.create("staff");
      for (const lang of ["en", "de", "es", "fr", "ja"] as Locale[]) {
        for (const path of [
          "/admin/apps",
          appUrl(),
          "/admin/groups",
          "/admin/groups/staff",
          "/admin/groups/staff/delete",
        ]) {
          const r = await ada.get(path, { "accept-language": lang });
          expect(r.status, `${lang} ${path}`).to.equal(200);
          if (lang !== "en") expect(englishLeft(r.text, lang), `${lang} ${path}`).to.deep.equal([]);
        }
        const home = (await ada.get("/admin", { "accept-language": lang })).text;
        expect(home).to.contain('href="/admin/apps"').and.contain('href="/admin/groups"');
      }
      expect((await ada.get("/admin/groups/nope")).status).to.equal(404);
      expect((await ada.get(`/admin/groups/${"x".repeat(5000)}`)).status).to.equal(404);
    });
  },
  oneBackend("lmdb"),
);
