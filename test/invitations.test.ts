// CONTRACT §14 "Sign-up policy" (docs/pages.md#invitations, issue #24): with SIGNUP=invite, admins
// make single-use invitation links on /admin/invitations (shown once, 7 days, optionally for one
// address) and revoke pending ones; /signup works only with a good link, once, atomically; used,
// revoked, ended or unknown links get a clear page and make nothing. On every store.
import { expect } from "chai";
import { CATALOGS } from "../src/i18n/index.js";
import { Invitations } from "../src/domain/invitations.js";
import { restoreItem } from "../src/store/backup.js";
import type { BackupItem, Store } from "../src/store/port.js";
import { describeBackends, describeStoreContract } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, csrfOf } from "./support/pages.js";

const en = CATALOGS.en;
const PASSWORD = "correct horse battery";
const DAY = 86_400_000;
const linkOf = (html: string) => /id="invitation-link"[^>]*value="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&");
const tokenOf = (link: string) => new URL(link).searchParams.get("invite")!;
const ids = (html: string) => [...html.matchAll(/data-invitation="([^"]+)"/g)].map((m) => m[1]!);

describeStoreContract("Invitations in the store and the domain", function (this: Mocha.Suite, backend) {
  this.timeout(60_000);
  let store: Store;
  let clock: number;
  let invitations: Invitations;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
    clock = Date.now();
    invitations = new Invitations({ store, secret: "s".repeat(32), authUrl: "https://id.example/", now: () => clock });
  });

  it("When an invitation is made, then only its token's hash is stored, it is listed, found by its link, and taken once", async () => {
    const { link, record } = await invitations.create({ createdBy: "u1", email: "Ann@Example.ORG" });
    expect(link).to.match(/^https:\/\/id\.example\/signup\?invite=[\w-]{43}$/);
    const token = tokenOf(link);
    expect(JSON.stringify(await store.invitations.list())).not.to.contain(token);
    expect(record.email).to.equal("Ann@example.org");
    expect(record.expiresAt - record.createdAt).to.equal(7 * DAY);
    expect((await invitations.list()).map((r) => r.id)).to.deep.equal([record.id]);
    expect((await invitations.check(token))?.id).to.equal(record.id);
    expect(await invitations.check("x".repeat(10_000))).to.equal(null);
    expect(await invitations.check(`${token}x`)).to.equal(null);
    const made = await invitations.use(token, "ann@example.org", async (inv) => inv.id);
    expect(made).to.equal(record.id);
    expect(await invitations.check(token)).to.equal(null);
    expect(await invitations.list()).to.deep.equal([]);
    let second: unknown;
    await invitations.use(token, "ann@example.org", async () => 1).catch((e: unknown) => (second = e));
    expect((second as { id?: string }).id).to.equal("err.invitationGone");
  });

  it("When the account cannot be made, or the address is not the invitation's, then the invitation stays usable", async () => {
    const { link } = await invitations.create({ createdBy: "u1", email: "ann@example.org" });
    const token = tokenOf(link);
    const wrong = await invitations.use(token, "bob@example.org", async () => 1).catch((e: { id: string }) => e.id);
    expect(wrong).to.equal("err.invitationEmail");
    const failed = await invitations
      .use(token, "ann@example.org", () => Promise.reject(new Error("username taken")))
      .catch((e: Error) => e.message);
    expect(failed).to.equal("username taken");
    expect(await invitations.check(token)).not.to.equal(null);
  });

  it("When 7 days pass, then the invitation no longer works nor is listed; a revoked one neither", async () => {
    const a = await invitations.create({ createdBy: "u1" });
    const b = await invitations.create({ createdBy: "u1" });
    expect(await invitations.revoke(b.record.id)).to.deep.include({ id: b.record.id });
    expect(await invitations.revoke(b.record.id)).to.equal(null);
    expect(await invitations.revoke("nope")).to.equal(null);
    expect(await invitations.revoke("x".repeat(10_000))).to.equal(null);
    expect(await invitations.check(tokenOf(b.link))).to.equal(null);
    expect((await invitations.list()).map((r) => r.id)).to.deep.equal([a.record.id]);
    clock += 7 * DAY + 1;
    expect(await invitations.check(tokenOf(a.link))).to.equal(null);
    expect(await invitations.list()).to.deep.equal([]);
    const late = await invitations.use(tokenOf(a.link), "", async () => 1).catch((e: { id: string }) => e.id);
    expect(late).to.equal("err.invitationGone");
  });

  it("When one invitation is used 50 times at once, then exactly one use gets it", async () => {
    const { link } = await invitations.create({ createdBy: "u1" });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => invitations.use(tokenOf(link), "", async () => i)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).to.have.length(1);
    for (const r of results.filter((r) => r.status === "rejected"))
      expect((r as PromiseRejectedResult).reason).to.have.property("id", "err.invitationGone");
  });

  it("When the store is backed up, then pending invitations are in it, and a restore makes their links work again", async () => {
    const { link, record } = await invitations.create({ createdBy: "u1", email: "ann@example.org" });
    const used = await invitations.create({ createdBy: "u1" });
    await invitations.use(tokenOf(used.link), "", async () => 1);
    const items: BackupItem[] = [];
    for await (const item of store.backup.items()) items.push(item);
    const inv = items.filter((i) => i.kind === "invitation");
    expect(inv).to.deep.equal([{ kind: "invitation", invitation: record }]);
    expect(JSON.stringify(items)).not.to.contain(tokenOf(link));
    await store.backup.clear();
    expect(await invitations.check(tokenOf(link))).to.equal(null);
    for (const item of inv) expect(await restoreItem(store, item, Date.now(), 86400)).to.equal(true);
    expect((await invitations.check(tokenOf(link)))?.id).to.equal(record.id);
  });
});

describeBackends("SIGNUP=invite on the pages", function (this: Mocha.Suite, backend) {
  this.timeout(90_000);
  let node: TestNode;
  let admin: PageClient;
  beforeEach(async () => {
    node = await backend.startNode({ SIGNUP: "invite", ADMIN_REQUIRE_2FA: "false" });
    await node.server.services.accounts.create({ username: "ada", password: PASSWORD, displayName: "Ada" });
    const ada = (await node.server.services.accounts.byUsername("ada"))!;
    await node.server.services.accounts.setAdmin(ada.id, true);
    admin = new PageClient(node.url);
    expect((await admin.submit("/signin", "/signin", { username: "ada", password: PASSWORD })).status).to.equal(303);
    await admin.confirm(PASSWORD, "/admin/invitations"); // the admin actions need a fresh "Confirm it's you"
  });

  async function invite(email = ""): Promise<string> {
    const r = await admin.submit("/admin/invitations", "/admin/invitations", { email });
    expect(r.status, r.text.slice(0, 500)).to.equal(201);
    expect(r.text).to.contain(en["adminInvitations.created"]);
    return linkOf(r.text)!;
  }
  async function signUpWith(link: string, username: string, email = "") {
    const c = new PageClient(node.url);
    const page = await c.get(new URL(link).pathname + new URL(link).search);
    if (page.status !== 200) return page;
    return c.post("/signup", {
      _csrf: csrfOf(page.text),
      invite: tokenOf(link),
      username,
      password: PASSWORD,
      display_name: username,
      email,
    });
  }
  const exists = async (u: string) => !!(await node.server.services.accounts.byUsername(u));

  it("When an admin makes an invitation, then its link is shown once, the list shows it without the link, and it makes one account", async () => {
    const link = await invite("ann@example.org");
    expect(
      link.startsWith(`${node.url.replace(/\/$/, "")}/signup?invite=`) || link.includes("/signup?invite="),
    ).to.equal(true);
    const list = await admin.get("/admin/invitations");
    expect(list.status).to.equal(200);
    expect(list.text).not.to.contain(tokenOf(link));
    expect(list.text).to.contain("ann@example.org").and.contain(">ada<");
    expect(ids(list.text)).to.have.length(1);
    const r = await signUpWith(link, "ann", "ann@example.org");
    expect(r.status, r.text.slice(0, 400)).to.equal(303);
    expect(await exists("ann")).to.equal(true);
    expect(ids((await admin.get("/admin/invitations")).text)).to.deep.equal([]);
    const again = await signUpWith(link, "ann2", "ann@example.org");
    expect(again.status).to.equal(410);
    expect(again.text).to.contain(en["err.invitationGone"]);
    expect(await exists("ann2")).to.equal(false);
    await node.server.services.audit.settled();
    const records = (await node.server.services.audit.list({ limit: 50 })).records;
    const types = records.map((x) => x.type);
    expect(types).to.include.members(["invitation.created", "invitation.used", "signup"]);
    expect(JSON.stringify(records)).not.to.contain(tokenOf(link));
  });

  it("When /signup is opened without an invitation, or with a made-up one, then it says sign-up is by invitation, with no form, and a form sent anyway makes nothing", async () => {
    const c = new PageClient(node.url);
    const plain = await c.get("/signup");
    expect(plain.status).to.equal(200);
    expect(plain.text).to.contain(en["signup.inviteTitle"]).and.not.contain('name="password"');
    const bogus = await c.get(`/signup?invite=${"x".repeat(10_000)}`);
    expect(bogus.status).to.equal(410);
    expect(bogus.text).to.contain(en["err.invitationGone"]);
    const r = await c.post("/signup", {
      _csrf: csrfOf((await c.get("/signin")).text),
      username: "eve",
      password: PASSWORD,
    });
    expect(r.status).to.equal(410);
    expect(await exists("eve")).to.equal(false);
  });

  it("When the address is not the invitation's, then the form says so by the email field and the invitation still works; a revoked one does not", async () => {
    const link = await invite("ann@example.org");
    const wrong = await signUpWith(link, "bob", "bob@example.org");
    expect(wrong.status).to.equal(400);
    expect(wrong.text).to.contain(en["err.invitationEmail"]).and.contain('name="invite"');
    expect(await exists("bob")).to.equal(false);
    const other = await invite();
    const id = ids((await admin.get("/admin/invitations")).text).at(-1)!;
    const revoked = await admin.submit("/admin/invitations", `/admin/invitations/${id}/revoke`, {});
    expect(revoked.status).to.equal(200);
    expect(revoked.text).to.contain(en["adminInvitations.revoked"]);
    const unknown = await admin.submit("/admin/invitations", `/admin/invitations/${"z".repeat(10_000)}/revoke`, {});
    expect(unknown.status).to.equal(404);
    const late = await signUpWith(other, "carl");
    expect(late.status).to.equal(410);
    expect(await exists("carl")).to.equal(false);
    expect((await signUpWith(link, "ann", "ann@example.org")).status).to.equal(303);
  });

  it("When one invitation is sent in 50 sign-ups at once, then exactly one account is made and the others are told the link no longer works (or to slow down)", async () => {
    const link = await invite();
    const c = new PageClient(node.url);
    const page = await c.get(new URL(link).pathname + new URL(link).search);
    const csrf = csrfOf(page.text);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        c.post("/signup", { _csrf: csrf, invite: tokenOf(link), username: `racer${i}`, password: PASSWORD }),
      ),
    );
    expect(answers.filter((a) => a.status === 303)).to.have.length(1);
    // The others: the link no longer works (410), or the address's sign-up limit (429) came first.
    for (const a of answers.filter((a) => a.status !== 303)) expect(a.status).to.be.oneOf([410, 429]);
    expect(answers.filter((a) => a.status === 410).length).to.be.greaterThan(0);
    const made = (await Promise.all(Array.from({ length: 50 }, (_, i) => exists(`racer${i}`)))).filter(Boolean);
    expect(made).to.have.length(1);
  });

  it("When someone who is not an admin posts to /admin/invitations, then nothing is made", async () => {
    const c = new PageClient(node.url);
    const r = await c.post("/admin/invitations", { email: "" });
    expect(r.status).to.be.oneOf([303, 403]);
    expect(await node.server.services.invitations.list()).to.deep.equal([]);
  });
});
