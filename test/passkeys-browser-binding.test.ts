// docs/http-api.md#passkeys: a passkey sign-in's challenge is bound to the browser that asked for
// it (a cookie set by POST /signin/passkey/options). An answer brought by another browser — or by
// one without the cookie — is refused as an unknown challenge, counts as a failed sign-in, and
// leaves the asking browser's challenge in place. Through the real endpoints on both stores, with
// a SoftAuthenticator (no browser); addresses are told apart by X-Forwarded-For (TRUST_PROXY).
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import type { TestResponse } from "./support/http.js";
import { PageClient } from "./support/pages.js";
import { PASSKEY_ENV, addSoftPasskey, postCeremony, signInOptions, signInPage } from "./support/passkeys.js";
import { SoftAuthenticator } from "./support/soft-authenticator.js";

const PASSWORD = "correct horse battery";

const expectUnknownChallenge = (r: TestResponse, what: string) => {
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).to.equal(400);
  expect(r.json, what).to.deep.equal({
    error: "invalid_request",
    error_description: "This passkey request expired or was used already; start again.",
  });
  expect(String(r.headers["set-cookie"] ?? ""), what).to.not.contain("sigil.sid=");
};

const expectSignedIn = (r: TestResponse, what: string) => {
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).to.equal(200);
  expect(String(r.headers["set-cookie"]), what).to.contain("sigil.sid=");
};

/** The cookie header without the passkey binding cookie. */
const withoutBinding = (cookie: string) =>
  cookie
    .split("; ")
    .filter((c) => !c.startsWith("sigil.passkey="))
    .join("; ");

describeBackends("A passkey sign-in is bound to the browser that began it", (backend) => {
  let base: string;
  let alice: SoftAuthenticator;

  beforeEach(async () => {
    const node = await backend.startNode({ ...PASSKEY_ENV, TRUST_PROXY: "true" });
    base = node.url;
    const c = new PageClient(base);
    await c.signUp("alice", PASSWORD);
    alice = new SoftAuthenticator(node.config.authUrl);
    await addSoftPasskey(c, alice);
  });

  it("When the options are asked, then the answer sets an HttpOnly, SameSite=Lax cookie living as long as the challenge", async () => {
    const from = await signInPage(base, "203.0.113.30");
    const r = await postCeremony(base, "/signin/passkey/options", {}, from);
    expect(r.status).to.equal(200);
    const set = [r.headers["set-cookie"] ?? []].flat().find((c) => c.startsWith("sigil.passkey="));
    expect(set).to.be.a("string");
    expect(set).to.match(/^sigil\.passkey=[A-Za-z0-9_-]{43};/);
    expect(set).to.match(/; HttpOnly/i);
    expect(set).to.match(/; SameSite=Lax/i);
    expect(set).to.match(/; Max-Age=300/i);
    expect(set).to.match(/; Path=\//i);
  });

  it("When browser A's answer is brought by browser B (or without the cookie), then it is refused as an unknown challenge and A still signs in with it", async function () {
    this.timeout(60_000);
    const a = await signInPage(base, "203.0.113.31");
    const answer = alice.assert(await signInOptions(base, a));
    // B: another browser that loaded /signin, from the same address; then one that began its own ceremony.
    const b = await signInPage(base, "203.0.113.31");
    expectUnknownChallenge(await postCeremony(base, "/signin/passkey", { response: answer }, b), "browser B");
    await signInOptions(base, b);
    expectUnknownChallenge(
      await postCeremony(base, "/signin/passkey", { response: answer }, b),
      "browser B with its own ceremony",
    );
    expectUnknownChallenge(
      await postCeremony(base, "/signin/passkey", { response: answer }, { ...a, cookie: withoutBinding(a.cookie) }),
      "browser A without the cookie",
    );
    expectSignedIn(await postCeremony(base, "/signin/passkey", { response: answer }, a), "browser A");
  });

  it("When one browser begins two ceremonies (autofill, then the button), then an answer to either signs in", async function () {
    this.timeout(60_000);
    const a = await signInPage(base, "203.0.113.32");
    const first = await signInOptions(base, a);
    const second = await signInOptions(base, a);
    expect(second.challenge).to.not.equal(first.challenge);
    expectSignedIn(await postCeremony(base, "/signin/passkey", { response: alice.assert(first) }, a), "the first");
    const again = await signInPage(base, "203.0.113.32");
    const third = await signInOptions(base, again);
    await signInOptions(base, again);
    expectSignedIn(await postCeremony(base, "/signin/passkey", { response: alice.assert(third) }, again), "the third");
  });

  it("When 50 other browsers bring one answer at once, then none signs in, at most 10 are answered as failed and the rest are 429; the asking browser still signs in", async function () {
    this.timeout(120_000);
    const a = await signInPage(base, "203.0.113.33");
    const answer = alice.assert(await signInOptions(base, a));
    const others = await Promise.all(Array.from({ length: 50 }, () => signInPage(base, "203.0.113.34")));
    const results = await Promise.all(
      others.map((b) => postCeremony(base, "/signin/passkey", { response: answer }, b)),
    );
    const statuses = results.map((r) => r.status);
    const failed = statuses.filter((s) => s === 400).length;
    expect(failed, JSON.stringify(statuses)).to.be.within(1, 10);
    expect(failed + statuses.filter((s) => s === 429).length, JSON.stringify(statuses)).to.equal(50);
    // They counted as failed sign-ins of alice from that address: her right passkey is limited there.
    const later = await signInPage(base, "203.0.113.34");
    const limited = await postCeremony(
      base,
      "/signin/passkey",
      { response: alice.assert(await signInOptions(base, later)) },
      later,
    );
    expect(limited.status).to.equal(429);
    expectSignedIn(await postCeremony(base, "/signin/passkey", { response: answer }, a), "browser A");
  });
});
