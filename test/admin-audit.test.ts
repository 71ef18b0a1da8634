// CONTRACT §14 "Audit log", docs/pages.md#administration and #the-account-page: admins read the
// log on /admin/audit (newest first, pages of 50, filters by types, username and time; bad filters
// a 400 page); each user reads their own security events on /account ("Recent activity", the last
// 10) and /account/activity (pages of 50), where an admin's action says "an administrator".
import { expect } from "chai";
import { CATALOGS } from "../src/i18n/index.js";
import type { AuditEntry } from "../src/store/port.js";
import { ALL_BACKENDS, describeBackends } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, decodeHtml, person as signedUp } from "./support/pages.js";
import { waitFor } from "./support/wait.js";

const en = CATALOGS.en;
const PASSWORD = "correct horse battery";
/** The records a page lists: [id, type] in page order. */
const rows = (html: string) =>
  [...html.matchAll(/data-record="([^"]+)" data-type="([^"]+)"/g)].map((m) => [m[1]!, m[2]!]);
const ids = (html: string) => rows(html).map((r) => r[0]!);
const hrefOf = (html: string, rel: string) =>
  new RegExp(`<a href="([^"]+)" rel="${rel}"`).exec(html)?.[1]?.replace(/&amp;/g, "&");

describeBackends(
  "The audit log's pages",
  function (this: Mocha.Suite, backend) {
    this.timeout(90_000);
    let node: TestNode;
    beforeEach(async () => {
      node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
    });

    const person = (username: string, admin = false) => signedUp(node, username, { admin, password: PASSWORD });
    /** Every record the log holds (at most 5000), to show that a request changed nothing. */
    async function everything() {
      await node.server.services.audit.settled();
      return (await node.server.services.audit.list({ limit: 5000 })).records.map((r) => r.id);
    }
    /** n records of one user written straight to the store, one second apart, the newest first in time. */
    async function written(n: number, userId: string | undefined, type = "signin.failed", end = Date.now()) {
      const entries: AuditEntry[] = [];
      for (let i = n - 1; i >= 0; i--)
        entries.push({ time: end - i * 1000, type, ...(userId ? { user_id: userId } : {}), request_id: `req-${i}` });
      await node.opened.store.audit.append(entries, 3600);
    }
    /** Follows the "next" links from `path`: each page's records. */
    async function pages(c: PageClient, path: string): Promise<string[][]> {
      const out: string[][] = [];
      let at: string | undefined = path;
      while (at !== undefined && out.length < 10) {
        const r = await c.get(at);
        expect(r.status, at).to.equal(200);
        out.push(ids(r.text));
        at = hrefOf(r.text, "next");
      }
      return out;
    }

    it("When a user signs up, fails a sign-in and signs in, then the admin's page lists it newest first with time, label, account link, browser and request id, and the filters by username, type and time narrow it", async () => {
      const { c: ada } = await person("ada", true);
      const { id: bobId } = await person("bob");
      const stranger = new PageClient(node.url);
      const ua = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0" };
      const form = await stranger.get("/signin", ua);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
      expect(
        (await stranger.post("/signin", { _csrf: csrf, username: "bob", password: "wrong one" }, ua)).status,
      ).to.equal(401);
      const page = await waitFor(
        "bob's failed sign-in on /admin/audit",
        async () => {
          const r = await ada.get("/admin/audit");
          return rows(r.text).some((x) => x[1] === "signin.failed") ? r : undefined;
        },
        { ms: 10_000 },
      );
      expect(page.status).to.equal(200);
      const html = decodeHtml(page.text);
      expect(html).to.contain(en["audit.type.signin.failed"]);
      expect(html).to.contain(`<a href="/admin/users/${bobId}">bob</a>`);
      expect(html).to.match(/<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">[^<]+ UTC<\/time>/);
      expect(html).to.contain("Firefox 120");
      expect(html).to.contain("wrong_password");
      const types = rows(page.text).map((r) => r[1]);
      expect(types[0]).to.equal("signin.failed"); // the newest first
      expect(types).to.include.members(["signup", "signin.failed"]);
      const listed = rows(page.text).map((r) => r[0]!);
      expect(listed).to.deep.equal(
        [...listed].sort(
          (a, b) =>
            Number(b.split("-")[0]) - Number(a.split("-")[0]) || Number(b.split("-")[1]) - Number(a.split("-")[1]),
        ),
      );

      const bobs = await ada.get("/admin/audit?username=bob");
      expect(bobs.status).to.equal(200);
      expect(
        rows(bobs.text)
          .map((r) => r[1])
          .sort(),
      ).to.deep.equal(["signin.failed", "signin.succeeded", "signup"]);
      const failed = await ada.get("/admin/audit?type=signin.failed&type=signout");
      expect(rows(failed.text).map((r) => r[1])).to.deep.equal(["signin.failed"]);
      expect(failed.text).to.match(/<option value="signin.failed" selected/);
      const later = await ada.get("/admin/audit?since=2100-01-01T00:00");
      expect(rows(later.text)).to.deep.equal([]);
      expect(later.text).to.contain(en["adminAudit.none"]);
      expect(rows((await ada.get("/admin/audit?since=2000-01-01")).text).length).to.equal(rows(page.text).length);
      const nobody = await ada.get("/admin/audit?username=nobody-here");
      expect(nobody.status).to.equal(200);
      expect(decodeHtml(nobody.text)).to.contain(en["adminAudit.noUser"].replace("{name}", "nobody-here"));
      expect(rows(nobody.text)).to.deep.equal([]);
      // The user's admin page links to their activity; the admin home to the log.
      expect(decodeHtml((await ada.get(`/admin/users/${bobId}`)).text)).to.contain('href="/admin/audit?username=bob"');
      expect((await ada.get("/admin")).text).to.contain('href="/admin/audit"');
    });

    it("When the log holds 120 records, then the admin reads them 50, 50 and 20 a page with no repeat and no gap, by type too, and the user reads them on /account/activity the same way, 10 on /account", async () => {
      const { c: ada } = await person("ada", true);
      const { c: bob, id: bobId } = await person("bob");
      await node.server.services.audit.settled();
      const before = await everything();
      await written(120, bobId);
      const all = await pages(ada, "/admin/audit?username=bob&type=signin.failed");
      expect(all.map((p) => p.length)).to.deep.equal([50, 50, 20]);
      const flat = all.flat();
      expect(new Set(flat).size).to.equal(120);
      const mine = (await everything()).filter((id) => !before.includes(id));
      expect([...flat].sort()).to.deep.equal([...mine].sort());
      // The same page asked 50 times at once: 50 times the same records.
      const second = (await ada.get("/admin/audit?username=bob&type=signin.failed")).text;
      const next = hrefOf(second, "next")!;
      const answers = await Promise.all(Array.from({ length: 50 }, () => ada.get(next)));
      for (const a of answers) expect(ids(a.text)).to.deep.equal(all[1]);
      const unfiltered = await pages(ada, "/admin/audit");
      expect(unfiltered.flat().length).to.equal(120 + before.length);
      expect(new Set(unfiltered.flat()).size).to.equal(120 + before.length);

      const own = await pages(bob, "/account/activity");
      expect(own.map((p) => p.length)).to.deep.equal([50, 50, 22]); // and the sign-up, and its sign-in
      expect(new Set(own.flat()).size).to.equal(122);
      const account = await bob.get("/account");
      expect(ids(account.text)).to.deep.equal(own[0]!.slice(0, 10));
      expect(account.text).to.contain(en["activity.title"]);
      expect(account.text).to.contain('href="/account/activity"');
    });

    it("When records of other types fill the log, then a page filtered by type looks at 1000 records at most and links on to the rest", async () => {
      const { c: ada, id: adaId } = await person("ada", true);
      await written(1, adaId, "password.changed", Date.now() - 3_000_000);
      await written(1100, undefined, "key.rotated");
      const first = await ada.get("/admin/audit?type=password.changed");
      expect(first.status).to.equal(200);
      expect(rows(first.text)).to.deep.equal([]);
      const next = hrefOf(first.text, "next");
      expect(next).to.be.a("string");
      const second = await ada.get(next!);
      expect(rows(second.text).map((r) => r[1])).to.deep.equal(["password.changed"]);
    });

    it("When a user opens their activity, then they see only their own records, and an admin's action on them says 'by an administrator' without the admin's name", async () => {
      const { c: ada } = await person("ada", true);
      const { c: bob, id: bobId } = await person("bob");
      const { c: carol } = await person("carol");
      await ada.confirm(PASSWORD, `/admin/users/${bobId}`);
      const r = await ada.submit(`/admin/users/${bobId}`, `/admin/users/${bobId}/signout`, {});
      expect(r.status).to.equal(303);
      await new PageClient(node.url).submit("/signin", "/signin", { username: "carol", password: "nope nope nope" });
      expect((await bob.submit("/signin", "/signin", { username: "bob", password: PASSWORD })).status).to.equal(303);
      // Every record of these requests written (they are written a moment after the answer): the
      // page below is compared with the store, and a record landing between the two reads made a
      // busy run fail (the page without bob's sign-in, the store with it).
      await node.server.services.audit.settled();
      const page = await waitFor(
        "the admin's sign-out on bob's /account/activity",
        async () => {
          const x = await bob.get("/account/activity");
          return rows(x.text).some((y) => y[1] === "user.signed_out") ? x : undefined;
        },
        { ms: 10_000 },
      );
      const text = decodeHtml(page.text);
      expect(text).to.contain(`${en["audit.type.user.signed_out"]}</strong> (${en["activity.byAdmin"]})`);
      expect(text).to.not.match(/\bada\b|ADA|carol/);
      const mine = await node.server.services.audit.list({ userId: bobId, limit: 100 });
      expect(ids(page.text).sort()).to.deep.equal(
        mine.records
          .filter((x) => x.user_id === bobId)
          .map((x) => x.id)
          .sort(),
      );
      // Carol's page has her failed sign-in, nothing of bob's; ada's has none of her acts on bob.
      const carols = rows((await carol.get("/account/activity")).text).map((x) => x[1]);
      expect(carols.sort()).to.deep.equal(["signin.failed", "signin.succeeded", "signup"]);
      const adas = rows((await ada.get("/account/activity")).text).map((x) => x[1]);
      expect(adas).to.not.include("user.signed_out");
    });

    it("When someone who is not an admin opens /admin/audit, then it is a 403 with no records; signed out, /account/activity goes to sign in", async () => {
      await person("ada", true);
      const { c: bob } = await person("bob");
      const r = await bob.get("/admin/audit");
      expect(r.status).to.equal(403);
      expect(rows(r.text)).to.deep.equal([]);
      const out = await new PageClient(node.url).get("/account/activity");
      expect(out.status).to.equal(303);
      expect(out.headers.location).to.match(/^\/signin/);
    });

    it("When a filter is bad (10 KB, an unknown type, a bad date, a made-up cursor), then the page says which (400), lists nothing and the log is unchanged", async () => {
      const { c: ada } = await person("ada", true);
      const { c: bob } = await person("bob");
      const before = await everything();
      const big = "a".repeat(10_000);
      const cases: Array<[string, string]> = [
        [`/admin/audit?type=${big}`, en["adminAudit.tooLong"].replace("{max}", "200")],
        [`/admin/audit?username=${big}`, en["adminAudit.tooLong"].replace("{max}", "200")],
        [`/admin/audit?since=${big}`, en["adminAudit.tooLong"].replace("{max}", "200")],
        ["/admin/audit?type=signin.failed&type=nope", en["adminAudit.badType"].replace("{type}", "nope")],
        ["/admin/audit?since=yesterday", en["adminAudit.badSince"]],
        ["/admin/audit?since=2026-13-45T99:00", en["adminAudit.badSince"]],
        ["/admin/audit?cursor=abc", en["adminAudit.badCursor"]],
        [`/admin/audit?cursor=${big}`, en["adminAudit.tooLong"].replace("{max}", "200")],
      ];
      for (const [path, message] of cases) {
        const r = await ada.get(path);
        expect(r.status, path.slice(0, 60)).to.equal(400);
        expect(decodeHtml(r.text), path.slice(0, 60)).to.contain(message);
        expect(rows(r.text), path.slice(0, 60)).to.deep.equal([]);
        expect(r.text, path.slice(0, 60)).to.not.contain(big.slice(0, 300));
      }
      expect((await ada.get("/admin/audit?type[a]=1&username[]=x")).status).to.equal(200);
      for (const path of ["/account/activity?cursor=abc", `/account/activity?cursor=${big}`]) {
        const r = await bob.get(path);
        expect(r.status, path.slice(0, 40)).to.equal(400);
        expect(decodeHtml(r.text)).to.contain(en["activity.badCursor"]);
        expect(r.text).to.not.contain(big.slice(0, 300));
      }
      expect(await everything()).to.deep.equal(before);
    });
  },
  ALL_BACKENDS,
);
