// docs/http-api.md#two-factor, #passkeys: with two-factor on, a password sign-in goes on to the code
// step, while a passkey sign-in (possession and user verification in one) needs no second step.
// Through the real endpoints on both stores, with a SoftAuthenticator's passkey (no browser).
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { PageClient } from "./support/pages.js";
import { PASSKEY_ENV, addSoftPasskey, passkeySignIn } from "./support/passkeys.js";
import { SoftAuthenticator } from "./support/soft-authenticator.js";
import { enroll } from "./support/two-factor.js";

const PASSWORD = "correct horse battery";

describeBackends("A passkey sign-in with two-factor on", (backend) => {
  it("When a user with two-factor on signs in with a passkey, then they are signed in without a code, while their password still leads to the code step", async function () {
    this.timeout(30_000);
    const node = await backend.startNode({ ...PASSKEY_ENV, TRUST_PROXY: "true" });
    const c = new PageClient(node.url);
    expect((await c.signUp("tessa", PASSWORD)).status).to.equal(303);
    const authenticator = new SoftAuthenticator(node.config.authUrl);
    await addSoftPasskey(c, authenticator);
    await enroll(c);
    expect((await c.submit("/account", "/signout", {})).status).to.equal(303);

    // The password: the code step, and not signed in yet.
    const pw = new PageClient(node.url);
    const first = await pw.submit("/signin", "/signin", { username: "tessa", password: PASSWORD });
    expect(first.status).to.equal(303);
    expect(first.headers.location).to.match(/^\/signin\/code/);
    expect((await pw.get("/account")).status).to.not.equal(200);

    // The passkey: signed in at once, and /account opens with that cookie.
    const r = await passkeySignIn(node.url, authenticator, "198.51.100.7");
    expect(r.status, r.text.slice(0, 200)).to.equal(200);
    expect(r.json).to.deep.equal({ redirect: "/account" });
    const cookie = /sigil\.sid=[^;]+/.exec(String(r.headers["set-cookie"]))![0];
    const account = await new PageClient(node.url).get("/account", { cookie });
    expect(account.status).to.equal(200);
    expect(account.text).to.contain("tessa");
  });
});
