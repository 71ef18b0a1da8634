// docs/http-api.md#account: after an account is deleted, nothing in the store names the user —
// no key or value holds their id, username or email in clear. The user first walks every path
// that leaves a record or a counter behind: mail links (a confirmation link never used, a reset
// link), the mail limits (per account, per recipient), failed password sign-ins, failed two-factor
// codes, a passkey ceremony begun. Then the whole store is read (every Redis key and value; the
// embedded store's every map and counter) and searched. On both stores, with a real SMTP server.
import { decideDevice, startDevice } from "./support/device.js";
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { embeddedDump } from "./support/embedded.js";
import { PageClient, authorize, capture, csrfOf, registerApp } from "./support/pages.js";
import { PASSKEY_ENV, addSoftPasskey, postCeremony } from "./support/passkeys.js";
import { redisDump } from "./support/redis.js";
import { TestSmtp, linkOf } from "./support/smtp.js";
import { SoftAuthenticator } from "./support/soft-authenticator.js";
import { enroll } from "./support/two-factor.js";

const PASSWORD = "correct horse battery";
const pathOf = (u: URL) => u.pathname + u.search;

describeBackends("After an account is deleted, the store names the user nowhere", (backend) => {
  let smtp: TestSmtp;
  before(async () => {
    smtp = await TestSmtp.start();
  });
  after(() => smtp.close());

  it("When a user used the mail, limit, two-factor and passkey paths and deleted the account, then no key or value holds their id, username or email", async function () {
    this.timeout(90_000);
    const node = await backend.startNode({
      ...PASSKEY_ENV,
      SMTP_URL: smtp.url,
      MAIL_FROM: "Sigil <no-reply@sigil.example>",
    });
    const base = node.url;
    const username = `zq${Math.random().toString(36).slice(2, 8)}`;
    const email = `${username}@mail.example`;
    const person = new PageClient(base);
    expect((await person.submit("/signup", "/signup", { username, password: PASSWORD, email })).status).to.equal(303);
    const id = (await node.opened.store.accounts.byUsername(username))!.id;
    // Two confirmation links: the second confirms, the first stays unused (it names the address).
    await smtp.next(email);
    expect((await person.submit("/account", "/account/email/resend", {})).status).to.equal(200);
    expect((await person.get(pathOf(linkOf(await smtp.next(email, 1))))).status).to.equal(200);
    // A reset link, never used (counted per account and per recipient).
    expect((await new PageClient(base).submit("/forgot", "/forgot", { identifier: username })).status).to.equal(200);
    await smtp.next(email, 2);
    // Wrong passwords (counted per username and address).
    for (let i = 0; i < 2; i++) {
      const r = await new PageClient(base).submit("/signin", "/signin", { username, password: "wrong password" });
      expect(r.status).to.equal(401);
    }
    // Two-factor, then a wrong code at sign-in (counted per user), left pending.
    await enroll(person);
    const half = new PageClient(base);
    const signedIn = await half.submit("/signin", "/signin", { username, password: PASSWORD });
    expect(signedIn.status).to.equal(303);
    const codePage = await half.get(String(signedIn.headers.location));
    expect((await half.post("/signin/code", { _csrf: csrfOf(codePage.text), code: "000000" })).status).to.equal(401);
    // A passkey, and a deletion ceremony begun with it (counted per user) but never finished.
    await addSoftPasskey(person, new SoftAuthenticator(node.config.authUrl));
    const cookie = [...person.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const csrf = csrfOf((await person.get("/account")).text);
    expect((await postCeremony(base, "/account/delete/passkey/options", {}, { csrf, cookie })).status).to.equal(200);
    expect((await postCeremony(base, "/account/passkeys/options", {}, { csrf, cookie })).status).to.equal(200);

    // An app the user allowed, with a webhook that does not answer: its user.deleted stays queued.
    const dev = new PageClient(base);
    await dev.signUp("devon");
    const app = await registerApp(dev);
    const hook = await dev.submit("/developers", `/developers/${app.clientId}/events`, {
      webhook_url: "http://127.0.0.1:9/hook",
      backchannel_logout_uri: "http://127.0.0.1:9/bcl",
    });
    capture(/class="secret webhook-secret">([^<]+)</, hook.text, "webhook secret");
    await authorize(person, { response_type: "code", client_id: app.clientId, redirect_uri: app.redirectUri });
    // A device the user connected (docs/http-api.md#device-authorization) that has not polled yet.
    const device = await startDevice(base, { client_id: app.clientId, client_secret: app.clientSecret });
    expect((await decideDevice(person, device.user_code, "allow")).status).to.equal(200);

    const deleted = await person.submit("/account", "/account/delete", { password: PASSWORD });
    expect(deleted.status).to.equal(303);
    expect(await node.opened.store.accounts.byId(id)).to.equal(null);
    await node.server.services.identityEvents.settled();

    const dump = backend.redis ? redisDump(backend.redis) : embeddedDump(node.opened.store);
    expect(dump.length, "the dump reads the store").to.be.above(100);
    expect(dump.match(/msg_/g)?.length ?? 0, "the app's deliveries are queued (sealed)").to.be.at.least(2);
    for (const needle of [id, username, email, encodeURIComponent(email)]) {
      const hits = dump.split("\n").filter((l) => l.includes(needle));
      expect(hits, needle).to.deep.equal([]);
    }
  });
});
