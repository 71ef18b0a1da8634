// CONTRACT §14 "Users", docs/pages.md#administration: /admin/users lists and searches users (pages
// of 50); /admin/users/:id shows one and its actions (disable, enable, sign out everywhere, reset
// two-factor, send a reset mail, delete), each behind CSRF, the admin gate and a fresh "Confirm
// it's you", each in the audit log with the admin as actor.
import { expect } from "chai";
import { CATALOGS, type Locale } from "../src/i18n/index.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { englishLeft } from "./support/page-text.js";
import { PageClient, csrfOf, person as signedUp } from "./support/pages.js";
import { enroll } from "./support/two-factor.js";
import { TestSmtp, linkOf } from "./support/smtp.js";

const en = CATALOGS.en;
const rows = (html: string) => [...html.matchAll(/<tr data-username="([^"]+)"/g)].map((m) => m[1]);
const hrefOf = (html: string, rel: string) =>
  new RegExp(`<a href="([^"]+)" rel="${rel}"`).exec(html)?.[1]?.replace(/&amp;/g, "&");

describeBackends(
  "The admin's users pages",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    let node: TestNode;
    beforeEach(async () => {
      node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
    });

    const person = (username: string, admin = false) => signedUp(node, username, { admin });

    const byId = (id: string) => node.server.services.accounts.byId(id);
    async function audit(id: string) {
      await node.server.services.audit.settled();
      return (await node.server.services.audit.list({ userId: id, limit: 50 })).records;
    }
    /** An action on a user's page, by an admin who confirmed it's them. */
    async function act(admin: PageClient, id: string, what: string, fields: Record<string, string> = {}) {
      return admin.submit(`/admin/users/${id}`, `/admin/users/${id}/${what}`, fields);
    }

    it("When there are more than 50 users, then the list shows 50 a page in username order, with next and first links, and search finds by username, display name or email", async () => {
      const { c: ada } = await person("ada", true);
      const store = node.opened.store.accounts;
      for (let i = 0; i < 54; i++) {
        const n = String(i).padStart(2, "0");
        await store.create({
          id: `id-${n}`,
          username: `user${n}`,
          displayName: i === 7 ? "Grace Hopper" : `Person ${n}`,
          passwordHash: "x",
          createdAt: Date.now(),
          ...(i === 9 ? { email: "nine@example.org", emailVerified: true } : {}),
        });
      }
      const first = await ada.get("/admin/users");
      expect(first.status).to.equal(200);
      const one = rows(first.text);
      expect(one).to.have.length(50);
      expect(one[0]).to.equal("ada");
      expect(one).to.deep.equal([...one].sort());
      expect(hrefOf(first.text, "first")).to.equal(undefined);
      const second = await ada.get(hrefOf(first.text, "next")!);
      expect(rows(second.text)).to.deep.equal(["user49", "user50", "user51", "user52", "user53"]);
      expect(hrefOf(second.text, "next")).to.equal(undefined);
      expect(hrefOf(second.text, "first")).to.equal("/admin/users?");
      expect(rows((await ada.get("/admin/users?q=grace")).text)).to.deep.equal(["user07"]);
      const nine = await ada.get("/admin/users?q=NINE%40example");
      expect(rows(nine.text)).to.deep.equal(["user09"]);
      expect(nine.text).to.contain(`nine@example.org (${en["adminUsers.confirmed"]})`);
      expect(rows((await ada.get("/admin/users?q=user5")).text)).to.deep.equal([
        "user50",
        "user51",
        "user52",
        "user53",
      ]);
      expect(rows((await ada.get("/admin/users?q=nobody-here")).text)).to.deep.equal([]);
    });

    it("When the search is 10 KB, then the page says searches are at most 200 characters (400), and lists nothing", async () => {
      const { c: ada } = await person("ada", true);
      const r = await ada.get(`/admin/users?q=${"a".repeat(10_000)}`);
      expect(r.status).to.equal(400);
      expect(r.text).to.contain(en["err.queryTooLong"]);
      expect(rows(r.text)).to.deep.equal([]);
      const odd = await ada.get("/admin/users?q[a]=1&after[]=x&after[]=y");
      expect(odd.status).to.equal(200);
    });

    it("When someone who is not an admin opens the pages or sends an action, then it is a 403 and nothing changes", async () => {
      const { c: bob } = await person("bob");
      const { id } = await person("carol");
      expect((await bob.get("/admin/users")).status).to.equal(403);
      expect((await bob.get(`/admin/users/${id}`)).status).to.equal(403);
      await bob.confirm();
      const r = await bob.post(`/admin/users/${id}/disable`, { _csrf: csrfOf((await bob.get("/account")).text) });
      expect(r.status).to.equal(403);
      expect((await byId(id))!.disabled).to.equal(undefined);
      expect(await audit(id)).to.satisfy((a: Array<{ type: string }>) => a.every((x) => x.type !== "user.disabled"));
    });

    it("When an admin disables a user, then nothing happens without CSRF or a fresh proof; once confirmed, the user's session ends, sign-in is refused, and the audit log names the admin; enabling lets them in again", async () => {
      const { c: ada, id: adaId } = await person("ada", true);
      const { c: bob, id } = await person("bob");
      expect((await ada.post(`/admin/users/${id}/disable`, {})).status).to.equal(403);
      const noProof = await act(ada, id, "disable");
      expect(noProof.status).to.equal(303);
      expect(noProof.headers.location).to.equal(`/confirm?return_to=%2Fadmin%2Fusers%2F${id}`);
      expect((await byId(id))!.disabled).to.equal(undefined);
      expect((await bob.get("/account")).status).to.equal(200);
      await ada.confirm("correct horse battery", `/admin/users/${id}`);
      const done = await act(ada, id, "disable");
      expect(done.status).to.equal(303);
      expect(done.headers.location).to.equal(`/admin/users/${id}?done=disabled`);
      const after = await ada.get(`/admin/users/${id}?done=disabled`);
      expect(after.text).to.contain(en["adminUsers.done.disabled"]);
      expect((await byId(id))!.disabled).to.equal(true);
      expect((await bob.get("/account")).status).to.equal(303);
      const again = await new PageClient(node.url).submit("/signin", "/signin", {
        username: "bob",
        password: "correct horse battery",
      });
      expect(again.status).to.equal(403);
      const disabled = (await audit(id)).filter((a) => a.type === "user.disabled");
      expect(disabled).to.have.length(1);
      expect(disabled[0]!.actor).to.deep.equal({ kind: "admin", id: adaId });
      expect((await act(ada, id, "enable")).headers.location).to.equal(`/admin/users/${id}?done=enabled`);
      expect((await byId(id))!.disabled).to.equal(undefined);
      const back = await new PageClient(node.url).submit("/signin", "/signin", {
        username: "bob",
        password: "correct horse battery",
      });
      expect(back.status).to.equal(303);
      expect((await audit(id)).map((a) => a.type)).to.include("user.enabled");
    });

    it("When an admin signs a user out everywhere, then every session of theirs ends and it is in the audit log; the account stays enabled", async () => {
      const { c: ada, id: adaId } = await person("ada", true);
      const { c: bob, id } = await person("bob");
      const bob2 = new PageClient(node.url);
      await bob2.submit("/signin", "/signin", { username: "bob", password: "correct horse battery" });
      const page = await ada.get(`/admin/users/${id}`);
      expect([...page.text.matchAll(/<li><strong>/g)]).to.have.length(2); // two sessions listed
      await ada.confirm("correct horse battery", `/admin/users/${id}`);
      expect((await act(ada, id, "signout")).headers.location).to.equal(`/admin/users/${id}?done=signedOut`);
      expect((await bob.get("/account")).status).to.equal(303);
      expect((await bob2.get("/account")).status).to.equal(303);
      expect((await ada.get("/account")).status).to.equal(200);
      expect((await byId(id))!.disabled).to.equal(undefined);
      const rec = (await audit(id)).find((a) => a.type === "user.signed_out");
      expect(rec?.actor).to.deep.equal({ kind: "admin", id: adaId });
    });

    it("When an admin resets a user's two-factor, then it is off (the page says so) and in the audit log; a second reset says it was not on", async () => {
      const { c: ada } = await person("ada", true);
      const { c: bob, id } = await person("bob");
      await enroll(bob);
      expect((await ada.get(`/admin/users/${id}`)).text).to.match(/class="admin-user-2fa">On</);
      await ada.confirm("correct horse battery", `/admin/users/${id}`);
      expect((await act(ada, id, "reset-2fa")).headers.location).to.equal(`/admin/users/${id}?done=twoFactorReset`);
      expect(await node.server.services.twoFactor.isOn(id)).to.equal(false);
      expect((await ada.get(`/admin/users/${id}`)).text).to.match(/class="admin-user-2fa">Off</);
      expect((await act(ada, id, "reset-2fa")).headers.location).to.equal(`/admin/users/${id}?done=twoFactorWasOff`);
      expect((await audit(id)).filter((a) => a.type === "user.two_factor_reset")).to.have.length(1);
    });

    it("When mail is not set up and an admin sends a reset mail, then the page says so (409) and nothing is recorded", async () => {
      const { c: ada } = await person("ada", true);
      const { id } = await person("bob");
      await ada.confirm("correct horse battery", `/admin/users/${id}`);
      const r = await act(ada, id, "reset-mail");
      expect(r.status).to.equal(409);
      expect(r.text).to.contain(en["adminUsers.noMail"].replace("{service}", "Sigil"));
      expect((await audit(id)).map((a) => a.type)).to.not.include("user.reset_mail_sent");
    });

    it("When the same disable is sent 50 times at once, then each answers with the user's page, and the user is disabled", async () => {
      const { c: ada } = await person("ada", true);
      const { id } = await person("bob");
      await ada.confirm("correct horse battery", `/admin/users/${id}`);
      const csrf = csrfOf((await ada.get(`/admin/users/${id}`)).text);
      const all = await Promise.all(
        Array.from({ length: 50 }, () => ada.post(`/admin/users/${id}/disable`, { _csrf: csrf })),
      );
      expect(all.map((r) => r.status)).to.deep.equal(Array(50).fill(303));
      expect((await byId(id))!.disabled).to.equal(true);
    });

    it("When an admin tries to disable or delete themself, then the page refuses clearly (409) and nothing changes", async () => {
      const { c: ada, id } = await person("ada", true);
      await ada.confirm("correct horse battery", `/admin/users/${id}`);
      const r = await act(ada, id, "disable");
      expect(r.status).to.equal(409);
      expect(r.text).to.contain(en["adminUsers.self"]);
      const d = await act(ada, id, "delete", { confirm: "yes" });
      expect(d.status).to.equal(409);
      expect(await byId(id)).to.not.equal(null);
      expect((await byId(id))!.disabled).to.equal(undefined);
    });

    it("When an admin deletes a user, then there is a confirm step first; confirmed, the account is gone and the audit log names the admin", async () => {
      const { c: ada, id: adaId } = await person("ada", true);
      const { c: bob, id } = await person("bob");
      await ada.confirm("correct horse battery", `/admin/users/${id}`);
      const confirmPage = await ada.get(`/admin/users/${id}/delete`);
      expect(confirmPage.status).to.equal(200);
      expect(confirmPage.text).to.contain(en["adminUsers.deleteLead"]);
      expect(await byId(id)).to.not.equal(null);
      const noConfirm = await act(ada, id, "delete");
      expect(noConfirm.headers.location).to.equal(`/admin/users/${id}/delete`);
      expect(await byId(id)).to.not.equal(null);
      const r = await ada.submit(`/admin/users/${id}/delete`, `/admin/users/${id}/delete`, { confirm: "yes" });
      expect(r.status).to.equal(200);
      expect(r.text).to.contain(en["adminUsers.done.deleted"].replace("{name}", "bob"));
      expect(await byId(id)).to.equal(null);
      expect((await bob.get("/account")).status).to.equal(303);
      // Nothing names the deleted account any more (CONTRACT §13); the admin's list keeps the deletion.
      expect(await audit(id)).to.deep.equal([]);
      const rec = (await audit(adaId)).find((a) => a.type === "account.deleted");
      expect(rec?.actor).to.deep.equal({ kind: "admin", id: adaId });
      expect(rec).to.not.have.property("user_id");
      expect(JSON.stringify(rec)).to.not.include("bob");
      expect((await ada.get(`/admin/users/${id}`)).status).to.equal(404);
    });

    it("When an admin opens the list and a user's page in each language, then all of it is in that language; an unknown id is a 404 page", async () => {
      const { c: ada } = await person("ada", true);
      const { id } = await person("bob");
      for (const lang of ["en", "de", "es", "fr", "ja"] as Locale[]) {
        for (const path of ["/admin/users", `/admin/users/${id}`, `/admin/users/${id}/delete`]) {
          const r = await ada.get(path, { "accept-language": lang });
          expect(r.status, `${lang} ${path}`).to.equal(200);
          if (lang !== "en") expect(englishLeft(r.text, lang), `${lang} ${path}`).to.deep.equal([]);
        }
        expect((await ada.get("/admin", { "accept-language": lang })).text).to.contain('href="/admin/users"');
      }
      expect((await ada.get("/admin/users/nope")).status).to.equal(404);
      expect((await ada.get(`/admin/users/${"x".repeat(5000)}`)).status).to.equal(404);
    });
  },
  oneBackend("lmdb"),
);

describeBackends(
  "The admin's users pages with mail set up",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    let smtp: TestSmtp;
    before(async () => {
      smtp = await TestSmtp.start();
    });
    after(() => smtp.close());

    it("When an admin sends a user a reset mail, then its link resets the password, and it is in the audit log; a user without a confirmed address gets none (409)", async () => {
      const node = await backend.startNode({
        ADMIN_REQUIRE_2FA: "false",
        SMTP_URL: smtp.url,
        MAIL_FROM: "no-reply@sigil.example",
      });
      const accounts = node.server.services.accounts;
      const ada = new PageClient(node.url);
      await ada.signUp("ada", "correct horse battery");
      const adaId = (await accounts.byUsername("ada"))!.id;
      await accounts.setAdmin(adaId, true);
      await new PageClient(node.url).signUp("bob", "correct horse battery");
      await new PageClient(node.url).signUp("cyd", "correct horse battery");
      const bobId = (await accounts.byUsername("bob"))!.id;
      const cyId = (await accounts.byUsername("cyd"))!.id;
      await node.opened.store.accounts.update(bobId, (u) => ({ ...u, email: "bob@mail.example", emailVerified: true }));
      await ada.confirm("correct horse battery", `/admin/users/${bobId}`);
      const r = await ada.submit(`/admin/users/${bobId}`, `/admin/users/${bobId}/reset-mail`, {});
      expect(r.headers.location).to.equal(`/admin/users/${bobId}?done=mailSent`);
      const mail = await smtp.next("bob@mail.example");
      const link = linkOf(mail);
      const reset = await new PageClient(node.url).submit(`${link.pathname}${link.search}`, "/reset", {
        token: link.searchParams.get("token")!,
        password: "a brand new password",
      });
      expect(reset.status, reset.text.slice(0, 500)).to.equal(200);
      const signin = await new PageClient(node.url).submit("/signin", "/signin", {
        username: "bob",
        password: "a brand new password",
      });
      expect(signin.status).to.equal(303);
      await node.server.services.audit.settled();
      const recs = (await node.server.services.audit.list({ userId: bobId, limit: 50 })).records;
      expect(recs.find((x) => x.type === "user.reset_mail_sent")?.actor).to.deep.equal({ kind: "admin", id: adaId });
      const none = await ada.submit(`/admin/users/${cyId}`, `/admin/users/${cyId}/reset-mail`, {});
      expect(none.status).to.equal(409);
      expect(none.text).to.contain(CATALOGS.en["adminUsers.noAddress"]);
    });
  },
  oneBackend("lmdb"),
);
