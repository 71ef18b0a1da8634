// docs/http-api.md#passkeys, #rate-limits: a refused passkey sign-in counts like a wrong password,
// on the same limits — per address (100 per 15 minutes), and per username and address (10) when
// the answer names a known passkey (its owner's username) — and once a limit is used up every
// sign-in from there, passkey or password, is 429 with Retry-After. Right answers never count.
// Through the real endpoints on both stores, with a passkey of a SoftAuthenticator (no browser);
// addresses are told apart by X-Forwarded-For (TRUST_PROXY).
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import type { TestResponse } from "./support/http.js";
import { csrfOf, PageClient } from "./support/pages.js";
import {
  PASSKEY_ENV,
  addSoftPasskey,
  passkeySignIn,
  postCeremony,
  signInOptions,
  signInPage,
} from "./support/passkeys.js";
import { SoftAuthenticator } from "./support/soft-authenticator.js";

const PASSWORD = "correct horse battery";

/** A password sign-in from `address` through the form. */
async function passwordSignIn(base: string, address: string, username: string, password = PASSWORD) {
  const c = new PageClient(base);
  const page = await c.get("/signin", { "x-forwarded-for": address });
  return c.post("/signin", { _csrf: csrfOf(page.text), username, password }, { "x-forwarded-for": address });
}

const expectRefused = (r: TestResponse, what: string) => {
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).to.equal(400);
  expect(r.json.error, what).to.equal("invalid_request");
};

const expectLimited = (r: TestResponse, what: string) => {
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).to.equal(429);
  expect(r.headers["content-type"], what).to.match(/^application\/json/);
  expect(r.json, what).to.deep.equal({
    error: "rate_limited",
    error_description: "Too many sign-in attempts; try again later.",
  });
  expect(r.headers["retry-after"], what).to.match(/^\d+$/);
  expect(Number(r.headers["retry-after"]), what).to.be.within(1, 900);
};

const expectSignedIn = (r: TestResponse, what: string) => {
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).to.equal(200);
  expect(r.json, what).to.deep.equal({ redirect: "/account" });
  expect(String(r.headers["set-cookie"]), what).to.contain("sigil.sid=");
};

describeBackends("Failed passkey sign-ins are limited like wrong passwords", (backend) => {
  let base: string;
  let origin: string;
  let alice: SoftAuthenticator;

  beforeEach(async () => {
    const node = await backend.startNode({ ...PASSKEY_ENV, TRUST_PROXY: "true" });
    base = node.url;
    origin = node.config.authUrl;
    const c = new PageClient(base);
    await c.signUp("alice", PASSWORD);
    alice = new SoftAuthenticator(origin);
    await addSoftPasskey(c, alice);
    await new PageClient(base).signUp("bob", PASSWORD);
  });

  it("When alice's passkey answers wrongly 10 times from one address, then the 11th sign-in from there is 429 with Retry-After — her right passkey and her password too — while other addresses and other users are not affected", async function () {
    this.timeout(60_000);
    const a = "203.0.113.1";
    const spoilt = [
      { badSignature: true },
      { withoutUserVerification: true },
      { userHandle: Buffer.from("someone-else").toString("base64url") },
      { challenge: "never-issued" },
      { badSignature: true },
      { withoutUserVerification: true },
      { badSignature: true },
    ];
    for (const [i, spoil] of spoilt.entries())
      expectRefused(await passkeySignIn(base, alice, a, spoil), `failure ${i + 1}`);
    // A used challenge (8th), and a challenge made for adding a passkey, not signing in (9th).
    const from = await signInPage(base, a);
    const options = await signInOptions(base, from);
    const replayed = alice.assert(options);
    expectSignedIn(await postCeremony(base, "/signin/passkey", { response: replayed }, from), "the right answer");
    expectRefused(await postCeremony(base, "/signin/passkey", { response: replayed }, from), "failure 8 (replayed)");
    const bobPage = new PageClient(base);
    await bobPage.submit("/signin", "/signin", { username: "bob", password: PASSWORD });
    const bobCsrf = csrfOf((await bobPage.get("/account")).text);
    const cookie = [...bobPage.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const registration = await postCeremony(base, "/account/passkeys/options", {}, { csrf: bobCsrf, cookie });
    expectRefused(
      await postCeremony(base, "/signin/passkey", { response: alice.assert(registration.json) }, from),
      "failure 9 (a registration challenge)",
    );
    expectRefused(await passkeySignIn(base, alice, a, { badSignature: true }), "failure 10");

    expectLimited(await passkeySignIn(base, alice, a), "the right passkey after 10 failures");
    expectLimited(await passkeySignIn(base, alice, a, { badSignature: true }), "a wrong one after 10 failures");
    const password = await passwordSignIn(base, a, "alice");
    expect(password.status, "alice's password from the same address").to.equal(429);
    expect(password.headers["retry-after"]).to.match(/^\d+$/);
    // Another address, another user: not limited.
    expectSignedIn(await passkeySignIn(base, alice, "198.51.100.7"), "alice's passkey from another address");
    expect((await passwordSignIn(base, a, "bob")).status, "bob's password from the same address").to.equal(303);
  });

  it("When alice's password is wrong 10 times from one address, then her passkey is refused there too (one limit), and works elsewhere", async function () {
    this.timeout(60_000);
    const a = "203.0.113.2";
    for (let i = 0; i < 10; i++)
      expect((await passwordSignIn(base, a, "alice", "wrong-password")).status).to.equal(401);
    expectLimited(await passkeySignIn(base, alice, a), "alice's passkey after 10 wrong passwords");
    expectSignedIn(await passkeySignIn(base, alice, "203.0.113.3"), "from another address");
  });

  it("When passkeys nobody has are answered 100 times from one address, then every sign-in from there is 429, passkey or password", async function () {
    this.timeout(120_000);
    const a = "203.0.113.4";
    const stranger = new SoftAuthenticator(origin);
    stranger.register({ challenge: "x", user: { id: Buffer.from("nobody").toString("base64url") } });
    for (let batch = 0; batch < 10; batch++) {
      const results = await Promise.all(Array.from({ length: 10 }, () => passkeySignIn(base, stranger, a)));
      for (const r of results) expectRefused(r, "an unknown passkey");
      expect(results[0]!.json.error_description).to.contain("not known here");
    }
    expectLimited(await passkeySignIn(base, stranger, a), "the 101st");
    expectLimited(await passkeySignIn(base, alice, a), "alice's right passkey");
    expect((await passwordSignIn(base, a, "bob")).status, "bob's right password").to.equal(429);
    expectSignedIn(await passkeySignIn(base, alice, "203.0.113.5"), "from another address");
  });

  it("When 50 right passkey sign-ins arrive at once from one address, then every one signs in, and they used up nothing", async function () {
    this.timeout(120_000);
    const a = "203.0.113.6";
    const results = await Promise.all(Array.from({ length: 50 }, () => passkeySignIn(base, alice, a)));
    results.forEach((r, i) => expectSignedIn(r, `sign-in ${i + 1} of 50`));
    // Each is a session of alice's.
    const c = new PageClient(base);
    const sid = /sigil\.sid=([^;]+)/.exec(String(results[49]!.headers["set-cookie"]))![1]!;
    c.cookies.set("sigil.sid", sid);
    expect((await c.get("/account")).status).to.equal(200);
    // Nine failures later the right passkey still signs in, at once too; the tenth failure limits.
    for (let i = 0; i < 9; i++)
      expectRefused(await passkeySignIn(base, alice, a, { badSignature: true }), `failure ${i + 1}`);
    const again = await Promise.all(Array.from({ length: 20 }, () => passkeySignIn(base, alice, a)));
    again.forEach((r, i) => expectSignedIn(r, `after nine failures, sign-in ${i + 1} of 20`));
    expectRefused(await passkeySignIn(base, alice, a, { badSignature: true }), "failure 10");
    expectLimited(await passkeySignIn(base, alice, a), "after the tenth failure");
  });

  it("When 50 wrong passkey answers arrive at once from one address, then at most 10 are answered as failed and the rest are 429", async function () {
    this.timeout(120_000);
    const a = "203.0.113.7";
    const ceremonies = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const from = await signInPage(base, a);
        return { from, options: await signInOptions(base, from) };
      }),
    );
    const results = await Promise.all(
      ceremonies.map(({ from, options }) =>
        postCeremony(base, "/signin/passkey", { response: alice.assert(options, { badSignature: true }) }, from),
      ),
    );
    const statuses = results.map((r) => r.status);
    const failed = statuses.filter((s) => s === 400).length;
    expect(failed, JSON.stringify(statuses)).to.be.within(1, 10);
    expect(failed + statuses.filter((s) => s === 429).length, JSON.stringify(statuses)).to.equal(50);
    for (const r of results) if (r.status === 429) expectLimited(r, "past the limit");
    expectLimited(await passkeySignIn(base, alice, a), "the right passkey afterwards");
    expectSignedIn(await passkeySignIn(base, alice, "203.0.113.8"), "from another address");
  });

  it("When alice's passkey sends a signature counter that did not grow, then it is refused and counted", async function () {
    this.timeout(60_000);
    // A counting authenticator (a security key): its counter is stored and must grow.
    const c = new PageClient(base);
    await c.signUp("carol", PASSWORD);
    const key = new SoftAuthenticator(origin, { counting: true });
    await addSoftPasskey(c, key, "Security key");
    const a = "203.0.113.9";
    expectSignedIn(await passkeySignIn(base, key, a), "counter 1");
    expectSignedIn(await passkeySignIn(base, key, a), "counter 2");
    for (let i = 0; i < 10; i++)
      expectRefused(await passkeySignIn(base, key, a, { counter: 2 }), `counter 2 again (${i + 1})`);
    expectLimited(await passkeySignIn(base, key, a), "counter 3, after 10 failures");
    expectSignedIn(await passkeySignIn(base, key, "203.0.113.10"), "counter 4, from another address");
  });
});
