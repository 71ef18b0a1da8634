// CONTRACT §14 "Sign-up policy", SIGNUP_EMAIL_DOMAINS (issue #24; docs/operations.md#sign-up-policy):
// sign-up only at the listed domains, the account held back from apps (/authorize, /developers)
// until its address is confirmed by the mailed link, address changes kept within the domains,
// accounts made by the operator not held back, and the start-up refusals. Through HTTP with the
// real SMTP test server, on every store.
import { expect } from "chai";
import { loadConfig } from "../src/config.js";
import { CATALOGS } from "../src/i18n/index.js";
import { fill } from "../src/i18n/message-ids.js";
import { ALL_BACKENDS, describeBackends } from "./support/backends.js";
import { sigil, sigilProcessWithInput } from "./support/cli.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { PageClient, authorize, csrfOf, decodeHtml, registerApp, type TestApp } from "./support/pages.js";
import { TestSmtp, linkOf } from "./support/smtp.js";

const PASSWORD = "correct horse battery";
const DOMAINS = " A.example, b.example ,";
const LISTED = "a.example, b.example";
const en = CATALOGS.en;
const fr = CATALOGS.fr;
const pathOf = (u: URL) => u.pathname + u.search;
const unique = () => `u${Math.random().toString(36).slice(2, 10)}`;
const text = (html: string) => decodeHtml(html.replace(/<[^>]+>/g, ""));

describe("SIGNUP_EMAIL_DOMAINS at start-up", () => {
  const base = { SECRET: TEST_SECRET, DATA_DIR: ":memory:", SMTP_URL: "smtp://127.0.0.1:2525" };

  it("When it lists domains, then they are trimmed, lower-cased and kept once; unset or empty is no limit", () => {
    const { config } = loadConfig({ ...base, SIGNUP_EMAIL_DOMAINS: " A.Example ,b.example,a.example,, " });
    expect(config.signupEmailDomains).to.deep.equal(["a.example", "b.example"]);
    expect(loadConfig({ ...base }).config.signupEmailDomains).to.deep.equal([]);
    expect(loadConfig({ ...base, SIGNUP_EMAIL_DOMAINS: "" }).config.signupEmailDomains).to.deep.equal([]);
  });

  it("When a listed value is not a domain name, then the node does not start and the error names it", () => {
    for (const bad of [
      "a.example,not a domain",
      "a.example,localhost",
      "x@a.example",
      "a..example",
      "10.0.0.1",
      "a.example:25",
    ]) {
      expect(() => loadConfig({ ...base, SIGNUP_EMAIL_DOMAINS: bad }), bad)
        .to.throw(/^SIGNUP_EMAIL_DOMAINS: ".*" is not a domain name$/)
        .with.property("name", "ConfigError");
    }
    const long = "x".repeat(10_000);
    expect(() => loadConfig({ ...base, SIGNUP_EMAIL_DOMAINS: long })).to.throw(/SIGNUP_EMAIL_DOMAINS: "x{100}" is not/);
  });

  it("When it is set without SMTP_URL, then the node does not start: the addresses could never be confirmed", () => {
    const { SMTP_URL: _, ...noMail } = base;
    expect(() => loadConfig({ ...noMail, SIGNUP_EMAIL_DOMAINS: "a.example" }))
      .to.throw(/^SIGNUP_EMAIL_DOMAINS: needs SMTP_URL/)
      .with.property("name", "ConfigError");
  });
});

describeBackends(
  "SIGNUP_EMAIL_DOMAINS on the pages",
  function (this: Mocha.Suite, backend) {
    this.timeout(120_000);
    let smtp: TestSmtp;
    let node: TestNode;
    let app: TestApp;
    let dev: PageClient;
    before(async () => {
      smtp = await TestSmtp.start();
    });
    after(() => smtp.close());

    beforeEach(async () => {
      node = await backend.startNode({ SMTP_URL: smtp.url, SIGNUP_EMAIL_DOMAINS: DOMAINS });
      // A developer made by the operator (not held back) registers the app.
      await node.server.services.accounts.create({ username: "dev", password: PASSWORD });
      dev = new PageClient(node.url);
      expect((await dev.submit("/signin", "/signin", { username: "dev", password: PASSWORD })).status).to.equal(303);
      app = await registerApp(dev);
    });

    const ask = (extra: Record<string, string> = {}) => ({
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      response_type: "code",
      state: "st1",
      ...extra,
    });
    const authorizePath = (extra: Record<string, string> = {}) => `/authorize?${new URLSearchParams(ask(extra))}`;

    async function signUp(c: PageClient, username: string, email: string, headers: Record<string, string> = {}) {
      const page = await c.get("/signup", headers);
      return c.post("/signup", { _csrf: csrfOf(page.text), username, password: PASSWORD, email }, headers);
    }

    it("When the address is outside the domains, a subdomain, none, or 10 KB long, then the form is refused (400) naming the domains, in the page's language, and nothing is made", async () => {
      const c = new PageClient(node.url);
      const page = await c.get("/signup");
      expect(text(page.text)).to.contain(fill(en["signup.emailDomainsHint"], { domains: LISTED }));
      const name = unique();
      for (const email of [`${name}@c.example`, `${name}@sub.a.example`, `${name}@a.example.evil`, ""]) {
        const r = await signUp(c, name, email);
        expect(r.status, email).to.equal(400);
        expect(text(r.text), email).to.contain(fill(en["err.emailDomain"], { domains: LISTED }));
      }
      const long = await signUp(c, name, `${"x".repeat(10_000)}@a.example`);
      expect(long.status).to.equal(400);
      expect(text(long.text)).to.contain(en["err.emailInvalid"]);
      const french = await signUp(c, name, `${name}@c.example`, { "accept-language": "fr" });
      expect(french.status).to.equal(400);
      expect(text(french.text)).to.contain(fill(fr["err.emailDomain"], { domains: LISTED }));
      expect(await node.server.services.accounts.byUsername(name)).to.equal(null);
      await new Promise((ok) => setTimeout(ok, 200)); // a mail sent by mistake would have left by now
      expect(smtp.mails.filter((m) => m.to.startsWith(name))).to.deep.equal([]);
    });

    it("When an in-domain account signs up (domain in capitals), then apps refuse it until the mailed link confirms the address, and then the app gets its code", async () => {
      const name = unique();
      const ann = new PageClient(node.url);
      expect((await signUp(ann, name, `${name}@A.EXAMPLE`)).status).to.equal(303);
      const user = (await node.server.services.accounts.byUsername(name))!;
      expect(user).to.deep.include({ email: `${name}@a.example`, emailVerified: false, confirmEmailFirst: true });
      const mail = await smtp.next(`${name}@a.example`);

      // Sign-in to Sigil itself works; an app gets nothing.
      const held = await ann.get(authorizePath());
      expect(held.status).to.equal(403);
      expect(held.headers.location).to.equal(undefined);
      expect(text(held.text)).to.contain(en["confirmFirst.title"]);
      expect(text(held.text)).to.contain(`${name}@a.example`);
      expect(held.text).to.contain('action="/account/email/resend"');
      const posted = await ann.post("/authorize", { _csrf: csrfOf(held.text), ...ask(), decision: "allow" });
      expect(posted.status).to.equal(403);
      expect(posted.headers.location).to.equal(undefined);
      const silent = await ann.get(authorizePath({ scope: "openid", prompt: "none" }));
      expect(silent.status).to.equal(303);
      const back = new URL(silent.headers.location as string);
      expect(back.searchParams.get("error")).to.equal("interaction_required");
      expect(back.searchParams.get("code")).to.equal(null);
      expect(back.searchParams.get("state")).to.equal("st1");

      // Nor does it register apps.
      const devPage = await ann.get("/developers");
      expect(text(devPage.text)).to.contain(en["dev.confirmEmailFirst"]);
      expect(devPage.text).not.to.contain('<form method="post" action="/developers"');
      const reg = await ann.post("/developers", {
        _csrf: csrfOf(devPage.text),
        name: "Sneaky",
        redirect_uri: "https://sneaky.example/cb",
      });
      expect(reg.status).to.equal(403);
      expect(await node.server.services.apps.listByOwner(user.id)).to.deep.equal([]);

      // The page's button mails a new link; the first one still confirms.
      const resent = await ann.post("/account/email/resend", { _csrf: csrfOf(held.text) });
      expect(resent.status).to.equal(200);
      await smtp.next(`${name}@a.example`, 1);
      expect((await ann.get(pathOf(linkOf(mail)))).status).to.equal(200);

      const code = await authorize(ann, ask());
      expect(code.searchParams.get("code")).to.be.a("string");
      expect(code.searchParams.get("state")).to.equal("st1");
      expect((await registerApp(ann, ["https://ann.example/cb"], "Ann's")).clientId).to.be.a("string");

      // A new address (in the domains) holds it back again until that one is confirmed.
      await ann.confirm(PASSWORD);
      const changed = await ann.submit("/account", "/account/email", { email: `${name}@b.example` });
      expect(changed.status).to.equal(200);
      expect((await ann.get(authorizePath())).status).to.equal(403);
      const second = await smtp.next(`${name}@b.example`);
      expect((await ann.get(pathOf(linkOf(second)))).status).to.equal(200);
      expect((await authorize(ann, ask())).searchParams.get("code")).to.be.a("string");
    });

    it("When sign-up is by invitation, then the invited sign-up too needs an address at the domains (the invitation stays usable after a refusal), and the account is marked to confirm it first", async () => {
      const invited = await backend.startNode({ SMTP_URL: smtp.url, SIGNUP_EMAIL_DOMAINS: DOMAINS, SIGNUP: "invite" });
      const { link } = await invited.server.services.invitations.create({ createdBy: "operator" });
      const url = new URL(link);
      const token = url.searchParams.get("invite")!;
      const name = unique();
      const c = new PageClient(invited.url);
      const page = await c.get(url.pathname + url.search);
      expect(text(page.text)).to.contain(fill(en["signup.emailDomainsHint"], { domains: LISTED }));
      const fields = { _csrf: csrfOf(page.text), invite: token, username: name, password: PASSWORD };
      const refused = await c.post("/signup", { ...fields, email: `${name}@c.example` });
      expect(refused.status).to.equal(400);
      expect(text(refused.text)).to.contain(fill(en["err.emailDomain"], { domains: LISTED }));
      expect(await invited.server.services.invitations.check(token)).not.to.equal(null);
      expect((await c.post("/signup", { ...fields, email: `${name}@b.example` })).status).to.equal(303);
      const user = (await invited.server.services.accounts.byUsername(name))!;
      expect(user).to.deep.include({ email: `${name}@b.example`, emailVerified: false, confirmEmailFirst: true });
      await smtp.next(`${name}@b.example`);
    });

    it("When an invitation is made for an address outside the domains (the console, sigil invitations create), then it is refused naming the domains, and nothing is made", async () => {
      const invited = await backend.startNode({
        SMTP_URL: smtp.url,
        SIGNUP_EMAIL_DOMAINS: DOMAINS,
        SIGNUP: "invite",
        ADMIN_REQUIRE_2FA: "false",
      });
      const name = unique();
      const { accounts } = invited.server.services;
      const ada = await accounts.create({ username: name, password: PASSWORD });
      await accounts.setAdmin(ada.id, true);
      const admin = new PageClient(invited.url);
      expect((await admin.submit("/signin", "/signin", { username: name, password: PASSWORD })).status).to.equal(303);
      await admin.confirm(PASSWORD, "/admin/invitations"); // the admin actions need a fresh "Confirm it's you"
      const refused = await admin.submit("/admin/invitations", "/admin/invitations", { email: "someone@c.example" });
      expect(refused.status).to.equal(400);
      expect(text(refused.text)).to.contain(fill(en["err.emailDomain"], { domains: LISTED }));
      expect(refused.text).to.not.contain("/signup?invite=");
      if (backend.name !== "memory") {
        // The CLI opens the node's store (a store of process memory has no CLI).
        const env = {
          SECRET: TEST_SECRET,
          NODE_ENV: "test",
          SMTP_URL: smtp.url,
          SIGNUP_EMAIL_DOMAINS: DOMAINS,
          ...backend.env(),
        };
        const cli = await sigil(env, "invitations", "create", "--email", "someone@sub.b.example");
        expect(cli.code, cli.err).to.not.equal(0);
        expect(cli.err).to.contain(fill(en["err.emailDomain"], { domains: LISTED }));
      }
      expect(await invited.server.services.invitations.list()).to.deep.equal([]);
      const ok = await admin.submit("/admin/invitations", "/admin/invitations", { email: "someone@B.example" });
      expect(ok.status).to.equal(201);
      expect(await invited.server.services.invitations.list()).to.have.length(1);
    });

    it("When any account changes its address on /account to one outside the domains, then it is refused (400) and the address stays", async () => {
      const name = unique();
      const ann = new PageClient(node.url);
      expect((await signUp(ann, name, `${name}@a.example`)).status).to.equal(303);
      for (const [who, c] of [
        ["dev", dev],
        [name, ann],
      ] as const) {
        await c.confirm(PASSWORD);
        const before = (await node.server.services.accounts.byUsername(who))!;
        for (const email of [`${who}@c.example`, `${who}@x.b.example`, `${"y".repeat(10_000)}@a.example`]) {
          const r = await c.submit("/account", "/account/email", { email });
          expect(r.status, email).to.equal(400);
        }
        const r = await c.submit("/account", "/account/email", { email: `${who}@c.example` });
        expect(text(r.text)).to.contain(fill(en["err.emailDomain"], { domains: LISTED }));
        expect(await node.server.services.accounts.byUsername(who)).to.deep.equal(before);
      }
    });

    it("When the operator makes an account (sigil users create), then it is not held back: apps open to it without any address", async () => {
      const name = unique();
      if (backend.name === "memory") {
        await node.server.services.accounts.create({ username: name, password: PASSWORD });
      } else {
        const env = {
          SECRET: TEST_SECRET,
          NODE_ENV: "test",
          SMTP_URL: smtp.url,
          SIGNUP_EMAIL_DOMAINS: DOMAINS,
          PASSWORD_HASH_COST: "10",
          ...backend.env(),
        };
        const r = await sigilProcessWithInput(PASSWORD, env, "users", "create", "--username", name, "--password", "-");
        expect(r.code, r.err).to.equal(0);
      }
      const user = (await node.server.services.accounts.byUsername(name))!;
      expect(user).not.to.have.property("confirmEmailFirst");
      const c = new PageClient(node.url);
      expect((await c.submit("/signin", "/signin", { username: name, password: PASSWORD })).status).to.equal(303);
      expect((await authorize(c, ask())).searchParams.get("code")).to.be.a("string");
    });

    it("When 50 in-domain sign-ups with one username arrive at once, then exactly one account is made", async () => {
      const name = unique();
      const results = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const c = new PageClient(node.url, `127.0.0.${i + 2}`);
          return (await signUp(c, name, `${name}.${i}@b.example`)).status;
        }),
      );
      expect(results.filter((s) => s === 303)).to.have.length(1);
      expect(results.filter((s) => s !== 303).every((s) => s === 409)).to.equal(true);
      const user = (await node.server.services.accounts.byUsername(name))!;
      expect(user.confirmEmailFirst).to.equal(true);
      expect(user.email).to.match(new RegExp(`^${name}\\.\\d+@b\\.example$`));
    });
  },
  ALL_BACKENDS,
);
