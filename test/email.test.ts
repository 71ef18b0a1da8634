// docs/http-api.md#email-and-password-recovery: the email address at sign-up and on /account, its
// confirmation link, /forgot and the reset link, mail over a real SMTP server, on both stores.
import { expect } from "chai";
import { describeBackends, oneBackend } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { offlinePair, people, refresh } from "./support/grants.js";
import { PageClient, csrfOf, decodeHtml, userInfo, type TestApp } from "./support/pages.js";
import { TestSmtp, linkOf } from "./support/smtp.js";
import { http } from "./support/http.js";
import { verifyIdToken } from "./support/oidc.js";
import { englishLeft, pageWords } from "./support/page-text.js";
import { LOCALES } from "../src/i18n/index.js";

const pathOf = (u: URL) => u.pathname + u.search;
const oidcUserinfo = (base: string, access: string) =>
  http(base, "/userinfo", { headers: { authorization: `Bearer ${access}` } });

describeBackends(
  "Email, confirmation and password recovery",
  (backend) => {
    let smtp: TestSmtp;
    let node: TestNode;
    let base: string;

    before(async () => {
      smtp = await TestSmtp.start();
    });
    after(() => smtp.close());

    async function start(env: Record<string, string> = {}) {
      node = await backend.startNode({ SMTP_URL: smtp.url, MAIL_FROM: "Sigil <no-reply@sigil.example>", ...env });
      base = node.url;
    }

    const unique = () => `u${Math.random().toString(36).slice(2, 10)}`;

    async function signUpWithEmail(
      person: PageClient,
      username: string,
      email: string,
      headers: Record<string, string> = {},
    ) {
      const page = await person.get("/signup", headers);
      const r = await person.post(
        "/signup",
        {
          _csrf: csrfOf(page.text),
          username,
          password: "correct horse battery",
          email,
        },
        headers,
      );
      expect(r.status, r.text).to.equal(303);
    }

    async function confirmedUser(username = unique()) {
      const person = new PageClient(base);
      const email = `${username}@Mail.Example`;
      await signUpWithEmail(person, username, email);
      const mail = await smtp.next(`${username}@mail.example`);
      const r = await person.get(pathOf(linkOf(mail)));
      expect(r.status).to.equal(200);
      return { person, username, email: `${username}@mail.example` };
    }

    describe("When a person signs up with an email address", () => {
      beforeEach(() => start());

      it("then a confirmation mail arrives, its link confirms once, and a second use is refused", async () => {
        const person = new PageClient(base);
        const name = unique();
        await signUpWithEmail(person, name, `${name}@Mail.EXAMPLE`);
        const account = await person.get("/account");
        expect(decodeHtml(account.text)).to.include(`${name}@mail.example`);
        expect(pageWords(account.text)).to.include("Not confirmed yet");

        const mail = await smtp.next(`${name}@mail.example`);
        expect(mail.from).to.equal("no-reply@sigil.example");
        expect(mail.user, "the URL's credentials log in").to.equal("mailer");
        expect(mail.subject).to.equal("Confirm your email address for Sigil");
        expect(mail.html).to.include("Confirm my address");
        const link = linkOf(mail);
        expect(link.origin).to.equal(base);
        expect(link.pathname).to.equal("/email/confirm");
        expect(link.searchParams.get("token")).to.match(/^[A-Za-z0-9_-]{43}$/); // 256 bits

        const first = await new PageClient(base).get(pathOf(link));
        expect(first.status).to.equal(200);
        expect(pageWords(first.text)).to.include("Email address confirmed");
        expect(pageWords((await person.get("/account")).text)).to.include("Confirmed");
        const second = await new PageClient(base).get(pathOf(link));
        expect(second.status).to.equal(400);
        expect(pageWords(second.text)).to.include("This link does not work");
      });

      it("then a bad address is refused on the form, and no account is made", async () => {
        const person = new PageClient(base);
        const page = await person.get("/signup");
        const r = await person.post("/signup", {
          _csrf: csrfOf(page.text),
          username: "nomail",
          password: "correct horse battery",
          email: "not an address",
        });
        expect(r.status).to.equal(400);
        expect(r.text).to.match(/id="email"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="email"/);
        expect(pageWords(r.text)).to.include("That email address does not look right.");
        const again = await person.signUp("nomail");
        expect(again.status).to.equal(303);
      });

      it("then scope email gives email and email_verified in /userinfo, false until confirmed", async () => {
        const { app, alice } = await people(base);
        const before = await offlinePairWith(alice, app, "openid email");
        let info = await oidcUserinfo(base, before.access);
        expect(info.json).to.not.have.property("email");
        await alice.confirm("password123");
        const change = await alice.submit("/account", "/account/email", { email: "alice@example.org" });
        expect(change.status).to.equal(200);
        expect(pageWords(change.text)).to.include("We sent a confirmation link to alice@example.org");
        info = await oidcUserinfo(base, before.access);
        expect(info.json.email).to.equal("alice@example.org");
        expect(info.json.email_verified).to.equal(false);
        await alice.get(pathOf(linkOf(await smtp.next("alice@example.org"))));
        info = await oidcUserinfo(base, before.access);
        expect(info.json.email_verified).to.equal(true);
        const { grant } = await import("./support/grants.js");
        const r = await grant(base, alice, app, "openid email");
        const { claims } = await verifyIdToken(base, r.json.id_token as string, app.clientId);
        expect(claims.email).to.equal("alice@example.org");
        expect(claims.email_verified).to.equal(true);
        const { claims: noEmail } = await verifyIdToken(
          base,
          (await grant(base, alice, app, "openid profile")).json.id_token as string,
          app.clientId,
        );
        expect(noEmail).to.not.have.property("email");
      });

      it("then an expired link is refused (EMAIL_CONFIRM_TTL)", async () => {
        await node.close();
        await start({ EMAIL_CONFIRM_TTL: "1" });
        const person = new PageClient(base);
        const name = unique();
        await signUpWithEmail(person, name, `${name}@mail.example`);
        const link = linkOf(await smtp.next(`${name}@mail.example`));
        await new Promise((r) => setTimeout(r, 1100));
        const r = await person.get(pathOf(link));
        expect(r.status).to.equal(400);
        expect(pageWords((await person.get("/account")).text)).to.include("Not confirmed yet");
      });

      it("then a mailbox cannot be flooded: 5 confirmation mails per account an hour, then 429; a port, path or %-escape in the domain is refused", async () => {
        const person = new PageClient(base);
        await person.signUp(unique());
        await person.confirm();
        for (let i = 0; i < 5; i++) {
          const r = await person.submit("/account", "/account/email", { email: `flood${i}@example.org` });
          expect(r.status).to.equal(200);
        }
        const sixth = await person.submit("/account", "/account/email", { email: "flood5@example.org" });
        expect(sixth.status).to.equal(429);
        expect(sixth.headers["retry-after"]).to.match(/^\d+$/);
        expect(pageWords(sixth.text)).to.include("Too many confirmation mails");
        expect(pageWords((await person.get("/account")).text)).to.include("flood4@example.org");
        for (const bad of ["a@x.example:25", "a@x.example/p", "a@x%2Eexample", "a@127.0.0.1", "a@localhost"]) {
          const r = await person.submit("/account", "/account/email", { email: bad });
          expect(r.status, bad).to.equal(400);
        }
      });

      it("then no mail to the address, not yet confirmed, carries text the user chose: no display name, no username (sign-up, /account, sent again)", async () => {
        const lure = "URGENT: verify at https://evil.example/now";
        const person = new PageClient(base);
        const name = unique();
        const page = await person.get("/signup");
        const r = await person.post("/signup", {
          _csrf: csrfOf(page.text),
          username: name,
          password: "correct horse battery",
          display_name: lure,
          email: `${name}@mail.example`,
        });
        expect(r.status, r.text).to.equal(303);
        await person.confirm();
        await person.submit("/account", "/account/email", { email: `${name}@other.example` });
        await person.submit("/account", "/account/email/resend", {});
        const mails = [
          await smtp.next(`${name}@mail.example`),
          await smtp.next(`${name}@other.example`),
          await smtp.next(`${name}@other.example`, 1),
        ];
        for (const mail of mails) {
          for (const part of [mail.subject, mail.text, mail.html]) {
            expect(part).to.not.include("URGENT");
            expect(part).to.not.include("evil.example");
            expect(part).to.not.include(name);
          }
          expect(mail.text.split("\n")[0]).to.equal("Hello,");
          expect(linkOf(mail).pathname).to.equal("/email/confirm");
        }
      });

      it("then the mail is in the page's language (French)", async () => {
        const person = new PageClient(base);
        const name = unique();
        await signUpWithEmail(person, name, `${name}@mail.example`, { "accept-language": "fr" });
        const mail = await smtp.next(`${name}@mail.example`);
        expect(mail.subject).to.equal("Confirmez votre adresse e-mail pour Sigil");
        expect(mail.text).to.include("Bonjour");
        expect(mail.text).to.match(/24\sheures/);
      });
    });

    async function offlinePairWith(person: PageClient, app: TestApp, scope: string) {
      const { grant } = await import("./support/grants.js");
      const r = await grant(base, person, app, scope);
      expect(r.status, r.text).to.equal(200);
      return { access: r.json.access_token as string };
    }

    describe("When someone asks /forgot", () => {
      beforeEach(() => start());

      it("then an unknown name and a known one get the same page", async () => {
        const { username } = await confirmedUser();
        const answer = async (identifier: string) => {
          const r = await new PageClient(base).submit("/forgot", "/forgot", { identifier });
          return { status: r.status, text: pageWords(r.text) };
        };
        const known = await answer(username);
        const unknown = await answer("nobody-here");
        const unknownMail = await answer("nobody@nowhere.example");
        expect(known).to.deep.equal(unknown);
        expect(known).to.deep.equal(unknownMail);
        expect(known.status).to.equal(200);
        expect(known.text).to.include("Check your email");
      });

      it("then the reset link sets the password once, ends the grants, and a French user gets French mail", async () => {
        const { app, alice } = await people(base);
        await alice.get("/lang?lang=fr&return_to=/account");
        await alice.confirm("password123");
        await alice.submit("/account", "/account/email", { email: "alice@example.net" });
        await alice.get(pathOf(linkOf(await smtp.next("alice@example.net"))));
        const pair = await offlinePair(base, alice, app);
        const elsewhere = new PageClient(base);
        const signInPage = await elsewhere.get("/signin");
        await elsewhere.post("/signin", { _csrf: csrfOf(signInPage.text), username: "alice", password: "password123" });
        expect((await elsewhere.get("/account")).status).to.equal(200);
        expect((await alice.get("/account")).status).to.equal(200);

        const r = await new PageClient(base).submit("/forgot", "/forgot", { identifier: "ALICE@example.net" });
        expect(r.status).to.equal(200);
        const mail = await smtp.next("alice@example.net", 1);
        expect(mail.subject).to.equal("Réinitialisez votre mot de passe Sigil");
        expect(mail.text).to.match(/30\sminutes/);
        const link = linkOf(mail);
        expect(link.pathname).to.equal("/reset");

        const stranger = new PageClient(base);
        const form = await stranger.get(pathOf(link));
        expect(form.status).to.equal(200);
        const short = await stranger.post("/reset", {
          _csrf: csrfOf(form.text),
          token: link.searchParams.get("token")!,
          password: "short",
        });
        expect(short.status, "a refused password keeps the link").to.equal(400);
        const done = await stranger.post("/reset", {
          _csrf: csrfOf(form.text),
          token: link.searchParams.get("token")!,
          password: "a brand new password",
        });
        expect(done.status).to.equal(200);
        expect(pageWords(done.text)).to.include("Your password is changed");
        const again = await stranger.post("/reset", {
          _csrf: csrfOf(form.text),
          token: link.searchParams.get("token")!,
          password: "another new password",
        });
        expect(again.status).to.equal(400);

        // Every session of alice ended: the browser she set it up in, and one signed in elsewhere.
        expect((await alice.get("/account")).status).to.equal(303);
        expect((await elsewhere.get("/account")).status).to.equal(303);
        const secret = link.searchParams.get("token")!;
        expect(node.logs.filter((l) => l.includes(secret) || l.includes("/reset?"))).to.deep.equal([]);
        expect((await refresh(base, app, pair.refresh)).json.error).to.equal("invalid_grant");
        expect((await userInfo(base, pair.access, app.clientId)).status).to.equal(401);
        const fresh = new PageClient(base);
        const page = await fresh.get("/signin");
        const signIn = await fresh.post("/signin", {
          _csrf: csrfOf(page.text),
          username: "alice",
          password: "a brand new password",
        });
        expect(signIn.status).to.equal(303);
      });

      it("then an expired reset link is refused (PASSWORD_RESET_TTL) and the password stays", async () => {
        await node.close();
        await start({ PASSWORD_RESET_TTL: "1" });
        const { username, email } = await confirmedUser();
        await new PageClient(base).submit("/forgot", "/forgot", { identifier: username });
        const link = linkOf(await smtp.next(email));
        const stranger = new PageClient(base);
        await new Promise((r) => setTimeout(r, 1100));
        expect((await stranger.get(pathOf(link))).status).to.equal(400);
        const late = await stranger.post("/reset", {
          _csrf: csrfOf((await stranger.get("/forgot")).text),
          token: link.searchParams.get("token")!,
          password: "a brand new password",
        });
        expect(late.status).to.equal(400);
        const c = new PageClient(base);
        const signIn = await c.post("/signin", {
          _csrf: csrfOf((await c.get("/signin")).text),
          username,
          password: "correct horse battery",
        });
        expect(signIn.status, "the old password still signs in").to.equal(303);
      });

      it("then a password changed by one reset link voids the other links sent before it", async () => {
        const { username, email } = await confirmedUser();
        await new PageClient(base).submit("/forgot", "/forgot", { identifier: username });
        const first = linkOf(await smtp.next(email, 1));
        await new PageClient(base).submit("/forgot", "/forgot", { identifier: username });
        const second = linkOf(await smtp.next(email, 2));
        const use = async (link: URL, password: string) => {
          const p = new PageClient(base);
          const form = await p.get(pathOf(link));
          if (form.status !== 200) return form.status;
          return (
            await p.post("/reset", { _csrf: csrfOf(form.text), token: link.searchParams.get("token")!, password })
          ).status;
        };
        expect(await use(second, "the second new password")).to.equal(200);
        expect(await use(first, "the first new password")).to.equal(400);
        expect((await new PageClient(base).get(pathOf(first))).status, "not even the form").to.equal(400);
      });

      it("then 50 uses of one reset link at once: exactly one sets the password", async () => {
        const { username, email } = await confirmedUser();
        await new PageClient(base).submit("/forgot", "/forgot", { identifier: username });
        const link = linkOf(await smtp.next(email, 1));
        const people50 = await Promise.all(
          Array.from({ length: 50 }, async () => {
            const p = new PageClient(base);
            const form = await p.get(pathOf(link));
            return { p, csrf: csrfOf(form.text) };
          }),
        );
        const answers = await Promise.all(
          people50.map(({ p, csrf }, i) =>
            p.post("/reset", { _csrf: csrf, token: link.searchParams.get("token")!, password: `new password ${i}` }),
          ),
        );
        const ok = answers.map((a, i) => [a.status, i] as const).filter(([s]) => s === 200);
        expect(ok).to.have.length(1);
        expect(answers.filter((a) => a.status === 400)).to.have.length(49);
        const winner = ok[0]![1];
        const fresh = new PageClient(base);
        const page = await fresh.get("/signin");
        const signIn = await fresh.post("/signin", {
          _csrf: csrfOf(page.text),
          username,
          password: `new password ${winner}`,
        });
        expect(signIn.status).to.equal(303);
      });

      it("then an account gets at most 3 reset mails an hour, however often it is asked for", async () => {
        const { username, email } = await confirmedUser();
        for (let i = 0; i < 5; i++) await new PageClient(base).submit("/forgot", "/forgot", { identifier: username });
        await smtp.next(email, 3);
        // A marker: a mail to another account sent after those; by then every one of the five was handled.
        const other = await confirmedUser();
        await new PageClient(base).submit("/forgot", "/forgot", { identifier: other.username });
        await smtp.next(other.email, 1);
        expect(smtp.count(email)).to.equal(4); // the confirmation and three reset mails
      });
    });

    describe("When a person uses the email pages in each language", () => {
      beforeEach(() => start());

      it("then every page and every mail is in it, with nothing left in English", async function () {
        this.timeout(20_000);
        for (const lang of LOCALES) {
          const person = new PageClient(base);
          await person.get(`/lang?lang=${lang}&return_to=/signup`);
          const name = `lang_${lang}`;
          const email = `${name}@example.org`;
          const pages: Array<[string, string]> = [];
          const keep = (what: string, html: string) => pages.push([what, html]);
          await signUpWithEmail(person, name, email);
          const confirmMail = await smtp.next(email);
          keep("account, link sent", (await person.submit("/account", "/account/email/resend", {})).text);
          await smtp.next(email, 1); // the second confirmation mail, before the reset mail is asked for
          keep("email confirmed", (await person.get(pathOf(linkOf(confirmMail)))).text);
          keep("forgot", (await person.get("/forgot")).text);
          keep("forgot, sent", (await person.submit("/forgot", "/forgot", { identifier: name })).text);
          const resetMail = await smtp.next(email, 2);
          const link = linkOf(resetMail);
          const form = await person.get(pathOf(link));
          keep("reset form", form.text);
          const token = link.searchParams.get("token")!;
          const refused = await person.post("/reset", { _csrf: csrfOf(form.text), token, password: "short" });
          expect(refused.status).to.equal(400);
          keep("reset refused", refused.text);
          keep(
            "reset done",
            (await person.post("/reset", { _csrf: csrfOf(form.text), token, password: "long enough now" })).text,
          );
          for (const [what, html] of pages) {
            expect(html, `${lang} ${what}`).to.include(`<html lang="${lang}"`);
            if (lang !== "en") expect(englishLeft(html, lang), `${lang} ${what}`).to.deep.equal([]);
          }
          for (const mail of [confirmMail, resetMail]) {
            const html = `<p>${mail.subject}</p>${mail.html}`;
            expect(mail.html).to.include(`<html lang="${lang}"`);
            if (lang !== "en") expect(englishLeft(html, lang), `${lang} mail ${mail.subject}`).to.deep.equal([]);
          }
        }
      });
    });

    describe("When the SMTP server cannot be reached", () => {
      it("then sign-up and /forgot still work, and the log says the mail was not sent, without its link", async () => {
        const closed = await TestSmtp.start();
        const url = closed.url;
        await closed.close();
        node = await backend.startNode({ SMTP_URL: url, MAIL_FROM: "no-reply@sigil.example" });
        base = node.url;
        const person = new PageClient(base);
        await signUpWithEmail(person, "unlucky", "unlucky@example.org");
        const forgot = await new PageClient(base).submit("/forgot", "/forgot", { identifier: "unlucky" });
        expect(forgot.status).to.equal(200);
        const deadline = Date.now() + 5000;
        while (!node.logs.some((l) => l.includes("confirmation mail: not sent")) && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        const failures = node.logs.filter((l) => l.includes("mail: not sent"));
        expect(failures).to.have.length.greaterThan(0);
        expect(node.logs.filter((l) => /token=|\/email\/confirm\?/.test(l))).to.deep.equal([]);
        expect(pageWords((await person.get("/account")).text)).to.include("Not confirmed yet");
      });
    });

    describe("When SMTP_URL is not set", () => {
      beforeEach(async () => {
        node = await backend.startNode({});
        base = node.url;
      });

      it("then /forgot says mail is not set up and to ask the operator; /account stores the address and says so", async () => {
        const forgot = await new PageClient(base).get("/forgot");
        expect(forgot.status).to.equal(200);
        expect(pageWords(forgot.text)).to.include("Sigil cannot send email: it is not set up");
        expect(pageWords(forgot.text)).to.include("sigil users reset-password");
        const person = new PageClient(base);
        await person.signUp("nosmtp");
        const account = await person.get("/account");
        expect(pageWords(account.text)).to.include("cannot send email");
        await person.confirm();
        const saved = await person.submit("/account", "/account/email", { email: "nosmtp@example.org" });
        expect(saved.status).to.equal(200);
        expect(pageWords(saved.text)).to.include("Your email address is saved.");
        expect(pageWords(saved.text)).to.include("Not confirmed yet");
      });
    });
  },
  oneBackend("redis"),
);
