// docs/http-api.md#security-mails: the confirmed address hears about every change to how the account
// is signed in to or recovered (what, when, the browser, the address, a link to reset the password),
// in the user's language; a mail to an address not yet confirmed carries no text a user chose; a
// password reset can remove every passkey, and its mail names the passkeys left. Real SMTP, both stores.
import { expect } from "chai";
import { describeBackends, oneBackend } from "./support/backends.js";
import { ensurePagesScript } from "./support/client-bundle.js";
import type { TestNode } from "./support/nodes.js";
import { csrfOf, PageClient } from "./support/pages.js";
import { englishLeft } from "./support/page-text.js";
import { PASSKEY_ENV, addSoftPasskey, passkeySignIn } from "./support/passkeys.js";
import { TestSmtp, linkOf, type ReceivedMail } from "./support/smtp.js";
import { SoftAuthenticator } from "./support/soft-authenticator.js";
import { codeAt, enroll } from "./support/two-factor.js";
import { CATALOGS, LOCALES, translator, type Locale } from "../src/i18n/index.js";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";
const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const PASSWORD = "correct horse battery";

/** A browser: a cookie-keeping client that sends its User-Agent with every request. */
class Browser extends PageClient {
  constructor(
    base: string,
    readonly userAgent: string,
    localAddress?: string,
  ) {
    super(base, localAddress);
  }
  override get(path: string, headers: Record<string, string> = {}) {
    return super.get(path, { "user-agent": this.userAgent, ...headers });
  }
  override post(path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}) {
    return super.post(path, fields, { "user-agent": this.userAgent, ...headers });
  }
}

const pathOf = (u: URL) => u.pathname + u.search;

/** The mail says when: one of the seconds between `from` and `to`, as the user's language writes it. */
function expectWhen(mail: ReceivedMail, from: number, to: number, locale: Locale = "en") {
  const { date } = translator(locale);
  const seconds = [];
  for (let s = Math.floor(from / 1000); s <= Math.ceil(to / 1000); s++) seconds.push(date(s * 1000));
  expect(
    seconds.some((d) => mail.text.includes(d)),
    `one of ${seconds.join(" | ")} in:\n${mail.text}`,
  ).to.equal(true);
}

describeBackends(
  "Security mails",
  (backend) => {
    let smtp: TestSmtp;
    let node: TestNode;
    let base: string;

    before(async () => {
      smtp = await TestSmtp.start();
      await ensurePagesScript();
    });
    after(() => smtp.close());

    async function start(env: Record<string, string> = {}) {
      node = await backend.startNode({ SMTP_URL: smtp.url, MAIL_FROM: "no-reply@sigil.example", ...env });
      base = node.url;
    }

    const unique = () => `u${Math.random().toString(36).slice(2, 10)}`;

    /** A person signed up in `browser` with a display name and an address they confirmed. */
    async function confirmedUser(browser: Browser, opts: { lang?: Locale; displayName?: string } = {}) {
      const username = unique();
      const email = `${username}@mail.example`;
      if (opts.lang) await browser.get(`/lang?lang=${opts.lang}&return_to=/signup`);
      const signup = await browser.submit("/signup", "/signup", {
        username,
        password: PASSWORD,
        display_name: opts.displayName ?? "Alice Liddell",
        email,
      });
      expect(signup.status, signup.text).to.equal(303);
      const confirm = await browser.get(pathOf(linkOf(await smtp.next(email))));
      expect(confirm.status).to.equal(200);
      // "Confirm it's you" (the changes below need a fresh proof on the session).
      await browser.confirm(PASSWORD);
      return { username, email };
    }

    /** What every security mail says beside the change: the browser, the address, the reset link. */
    function expectFacts(mail: ReceivedMail, browser: string, address: RegExp) {
      expect(mail.text).to.include(`Browser: ${browser}`);
      expect(mail.text).to.match(new RegExp(`Address: ${address.source}`));
      expect(mail.text).to.include(`${node.config.authUrl}/forgot`);
      expect(mail.html).to.include(`href="${node.config.authUrl}/forgot"`);
    }

    describe("When someone holding only a session cookie takes the account through its email", () => {
      beforeEach(() => start());

      it("then the old address hears of the change at once — the new address, when, the attacker's browser and address, a link to reset — and the new address's confirmation mail carries none of the owner's text", async () => {
        const owner = new Browser(base, FIREFOX);
        const { username, email } = await confirmedUser(owner, { displayName: "Alice Liddell" });

        // The attacker has the cookie, another browser and another address. A session without a
        // fresh proof changes nothing (docs/http-api.md#confirming-its-you); one stolen within
        // REAUTH_MAX_AGE of the owner's confirmation (confirmedUser's) does, and the mail tells.
        const attacker = new Browser(base, CHROME, "127.0.0.2");
        const stale = new Browser(base, CHROME, "127.0.0.2");
        expect((await stale.submit("/signin", "/signin", { username, password: PASSWORD })).status).to.equal(303);
        const refused = await stale.submit("/account", "/account/email", { email: "mallory@evil.example" });
        expect(refused.status).to.equal(303);
        expect(refused.headers.location).to.match(/^\/confirm\?/);
        for (const [k, v] of owner.cookies) attacker.cookies.set(k, v);
        const before = Date.now();
        const change = await attacker.submit("/account", "/account/email", { email: "mallory@evil.example" });
        expect(change.status).to.equal(200);
        const after = Date.now();

        const warning = await smtp.next(email, 1);
        expect(warning.subject).to.equal("The email address of your Sigil account was changed");
        expect(warning.text).to.include("Hello Alice Liddell,");
        expect(warning.text).to.include(`The email address of the Sigil account ${username} was changed`);
        expect(warning.text).to.include("mallory@evil.example");
        expectWhen(warning, before, after);
        expectFacts(warning, "Chrome 131 · Windows", /127\.0\.0\.2/);

        // The rest of the takeover goes on at the attacker's address, which was told nothing of the owner.
        const confirmation = await smtp.next("mallory@evil.example");
        for (const part of [confirmation.subject, confirmation.text, confirmation.html]) {
          expect(part).to.not.include("Alice");
          expect(part).to.not.include(username);
        }
        await attacker.get(pathOf(linkOf(confirmation)));
        await new PageClient(base).submit("/forgot", "/forgot", { identifier: username });
        const resetLink = linkOf(await smtp.next("mallory@evil.example", 1));
        const form = await attacker.get(pathOf(resetLink));
        const reset = await attacker.post("/reset", {
          _csrf: csrfOf(form.text),
          token: resetLink.searchParams.get("token")!,
          password: "mallory owns this now",
        });
        expect(reset.status).to.equal(200);
        const resetMail = await smtp.next("mallory@evil.example", 2);
        expect(resetMail.subject).to.equal("The password of your Sigil account was reset");
        // The owner's address had its warning, and nothing after it went there.
        expect(smtp.count(email)).to.equal(2);
      });

      it("then 50 changes sent at once tell the old address once", async () => {
        const owner = new Browser(base, FIREFOX);
        const { email } = await confirmedUser(owner);
        const csrf = csrfOf((await owner.get("/account")).text);
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            owner.post("/account/email", { _csrf: csrf, email: `new${i}@mail.example` }),
          ),
        );
        // 5 confirmation mails an hour per account, one of them at sign-up: the others are refused.
        expect(answers.filter((a) => a.status === 200)).to.have.length(4);
        expect(answers.filter((a) => a.status === 429)).to.have.length(46);
        await smtp.next(email, 1);
        await new Promise((ok) => setTimeout(ok, 1000));
        expect(smtp.count(email)).to.equal(2);
      });

      it("then removing a confirmed address tells it too", async () => {
        const owner = new Browser(base, FIREFOX);
        const { email } = await confirmedUser(owner);
        const r = await owner.submit("/account", "/account/email", { email: "" });
        expect(r.status).to.equal(200);
        const mail = await smtp.next(email, 1);
        expect(mail.subject).to.equal("The email address of your Sigil account was removed");
        expectFacts(mail, "Firefox 120 · Linux", /(::ffff:)?127\.0\.0\.1/);
      });
    });

    describe("When a confirmed address is removed, in each language", () => {
      beforeEach(() => start());

      it("then the mail about it is in the user's language, with nothing left in English", async function () {
        this.timeout(30_000);
        for (const lang of LOCALES) {
          const person = new Browser(base, FIREFOX);
          const { email } = await confirmedUser(person, { lang });
          await person.submit("/account", "/account/email", { email: "" });
          const mail = await smtp.next(email, 1);
          expect(mail.subject).to.equal(CATALOGS[lang]["mail.emailRemoved.subject"].replace("{service}", "Sigil"));
          expect(mail.html, lang).to.include(`<html lang="${lang}"`);
          expect(mail.text, lang).to.include(`${node.config.authUrl}/forgot`);
          if (lang !== "en") expect(englishLeft(`<p>${mail.subject}</p>${mail.html}`, lang), lang).to.deep.equal([]);
        }
      });
    });

    describe("When two-factor is turned on and off (a French user)", () => {
      beforeEach(() => start());

      it("then each change is mailed in French, with nothing left in English", async () => {
        const person = new Browser(base, FIREFOX);
        const { username, email } = await confirmedUser(person, { lang: "fr" });
        const before = Date.now();
        const { secret } = await enroll(person);
        const on = await smtp.next(email, 1);
        expect(on.subject).to.equal("La connexion en deux étapes a été activée pour votre compte Sigil");
        expect(on.text).to.include(`le compte Sigil ${username}`);
        expect(on.text).to.include("Navigateur : Firefox 120 · Linux");
        expect(on.text).to.include(`${node.config.authUrl}/forgot`);
        expectWhen(on, before, Date.now(), "fr");
        expect(on.html).to.include('<html lang="fr"');
        expect(englishLeft(`<p>${on.subject}</p>${on.html}`, "fr")).to.deep.equal([]);

        const off = await person.submit("/account", "/account/2fa/disable", { code: codeAt(secret, 30) });
        expect(off.status).to.equal(303);
        const offMail = await smtp.next(email, 2);
        expect(offMail.subject).to.equal(CATALOGS.fr["mail.twoFactorOff.subject"].replace("{service}", "Sigil"));
        expect(englishLeft(`<p>${offMail.subject}</p>${offMail.html}`, "fr")).to.deep.equal([]);
      });
    });

    describe("When passkeys are added and removed, and the password is reset", () => {
      beforeEach(() => start(PASSKEY_ENV));

      it("then each passkey added or removed is mailed by name; the reset form offers to remove them all, and the reset mail names those left", async () => {
        const person = new Browser(base, FIREFOX);
        const { username, email } = await confirmedUser(person);
        const key = new SoftAuthenticator(node.config.authUrl);
        await addSoftPasskey(person, key, "Laptop");
        const added = await smtp.next(email, 1);
        expect(added.subject).to.equal("A passkey was added to your Sigil account");
        expect(added.text).to.include(`The passkey “Laptop” was added to the Sigil account ${username}.`);
        expect(added.text).to.include(`${node.config.authUrl}/forgot`);
        await addSoftPasskey(person, key, "Phone");
        await addSoftPasskey(person, key, "Old tablet");
        await smtp.next(email, 3);
        const removed = await person.submit("/account", `/account/passkeys/${key.ids[2]}/remove`, {});
        expect(removed.status).to.equal(303);
        const removedMail = await smtp.next(email, 4);
        expect(removedMail.subject).to.equal("A passkey was removed from your Sigil account");
        expect(removedMail.text).to.include("The passkey “Old tablet” was removed");
        expectFacts(removedMail, "Firefox 120 · Linux", /\S+/);

        // A reset that keeps them: every session ends, the mail names the passkeys left.
        const resetWith = async (fields: Record<string, string>, skip: number) => {
          await new PageClient(base).submit("/forgot", "/forgot", { identifier: username });
          const link = linkOf(await smtp.next(email, skip));
          const stranger = new Browser(base, CHROME);
          const form = await stranger.get(pathOf(link));
          expect(form.status).to.equal(200);
          expect(form.text).to.match(/<input[^>]*type="checkbox"[^>]*name="remove_passkeys"/);
          const done = await stranger.post("/reset", {
            _csrf: csrfOf(form.text),
            token: link.searchParams.get("token")!,
            password: `a new password ${skip}`,
            ...fields,
          });
          expect(done.status).to.equal(200);
          return smtp.next(email, skip + 1);
        };
        const kept = await resetWith({}, 5);
        expect(kept.subject).to.equal("The password of your Sigil account was reset");
        expect(kept.text).to.include("These passkeys can still sign in without the password: “Laptop” and “Phone”.");
        expectFacts(kept, "Chrome 131 · Windows", /\S+/);
        expect((await person.get("/account")).status, "the session ended").to.equal(303);
        expect((await passkeySignIn(base, key, "127.0.0.1")).status).to.equal(200);

        // A reset that removes them: none signs in any more, and the mail says so.
        const cleared = await resetWith({ remove_passkeys: "1" }, 7);
        expect(cleared.text).to.include("Every passkey of the account was removed, as asked.");
        expect(cleared.text).to.not.include("can still sign in");
        expect(cleared.text).to.not.include("Laptop");
        const signIn = await passkeySignIn(base, key, "127.0.0.1");
        expect(signIn.status).to.equal(400);

        // With no passkey left, the form does not offer to remove any.
        await new PageClient(base).submit("/forgot", "/forgot", { identifier: username });
        const form = await new PageClient(base).get(pathOf(linkOf(await smtp.next(email, 9))));
        expect(form.status).to.equal(200);
        expect(form.text).to.not.include("remove_passkeys");
      });

      it("then 50 removals of one passkey sent at once remove it once, and one mail says so", async () => {
        const person = new Browser(base, FIREFOX);
        const { email } = await confirmedUser(person);
        const key = new SoftAuthenticator(node.config.authUrl);
        const id = await addSoftPasskey(person, key, "Laptop");
        await smtp.next(email, 1);
        const csrf = csrfOf((await person.get("/account")).text);
        const answers = await Promise.all(
          Array.from({ length: 50 }, () => person.post(`/account/passkeys/${id}/remove`, { _csrf: csrf })),
        );
        expect(answers.filter((a) => a.status === 303)).to.have.length(1);
        expect(answers.filter((a) => a.status === 404)).to.have.length(49);
        await smtp.next(email, 2);
        // A marker after them: by then every mail the removals made has arrived.
        await person.submit("/account", "/account/email", { email: "" });
        await smtp.next(email, 3);
        expect(smtp.mails.filter((m) => m.to === email && m.subject.includes("removed from"))).to.have.length(1);
      });
    });

    describe("When the account is deleted", () => {
      beforeEach(() => start());

      it("then the confirmed address is told, with no link to reset a password that is gone", async () => {
        const person = new Browser(base, FIREFOX);
        const { username, email } = await confirmedUser(person);
        const r = await person.submit("/account", "/account/delete", { password: PASSWORD });
        expect(r.status).to.equal(303);
        const mail = await smtp.next(email, 1);
        expect(mail.subject).to.equal("Your Sigil account was deleted");
        expect(mail.text).to.include(`The Sigil account ${username} was deleted`);
        expect(mail.text).to.include("Browser: Firefox 120 · Linux");
        expect(mail.text).to.not.include("/forgot");
      });
    });

    describe("When the SMTP server stops answering", () => {
      it("then the change is made all the same, and the log says which mail was not sent, and nothing of it", async () => {
        const own = await TestSmtp.start();
        node = await backend.startNode({ SMTP_URL: own.url, MAIL_FROM: "no-reply@sigil.example" });
        base = node.url;
        const person = new Browser(base, FIREFOX);
        const username = unique();
        const email = `${username}@mail.example`;
        await person.submit("/signup", "/signup", { username, password: PASSWORD, email });
        await person.get(pathOf(linkOf(await own.next(email))));
        await person.confirm(PASSWORD);
        await own.close();
        const r = await person.submit("/account", "/account/email", { email: "" });
        expect(r.status).to.equal(200);
        expect((await person.get("/account")).text).to.not.include(email);
        const deadline = Date.now() + 10_000;
        while (!node.logs.some((l) => l.includes("security mail (emailRemoved): not sent")) && Date.now() < deadline)
          await new Promise((ok) => setTimeout(ok, 50));
        const lines = node.logs.filter((l) => l.includes("security mail"));
        expect(lines).to.have.length(1);
        expect(lines[0]).to.not.include(email);
      });
    });
  },
  oneBackend("redis"),
);
