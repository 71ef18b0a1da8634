// After SECRET changes (docs/settings.md, SECRET): the stored signing keys, sealed under the old
// one, cannot be opened; nodes make one new key between them and go on signing ID tokens, and the
// old public keys stay in the JWKS until their tokens have expired. Two-factor set up under the old
// SECRET cannot be checked: a clear 409 until the operator resets it. On both stores.
import { expect } from "chai";
import { decodeProtectedHeader } from "jose";
import * as OTPAuth from "otpauth";
import { SigningKeys } from "../src/domain/keys.js";
import { seal, sealingKey } from "../src/domain/seal.js";
import { keyedHash } from "../src/domain/secrets.js";
import { createServices } from "../src/domain/services.js";
import { describeBackends } from "./support/backends.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { jwksOf, trade, verifyIdToken } from "./support/oidc.js";
import { authorize, decodeHtml, PageClient, registerApp } from "./support/pages.js";

const OLD_SECRET = "the-secret-before-0123456789abcdef0123456789";
const UNOPENABLE = /signing key cannot be opened with this SECRET/;

describeBackends("Signing keys after a SECRET change", (backend) => {
  const keys = (node: TestNode, secret: string, now?: () => number) =>
    new SigningKeys({
      store: node.opened.store,
      secret,
      activationDelay: 3600,
      cacheTtl: 30,
      tokenTtl: 600,
      ...(now ? { now } : {}),
    });

  it("When 50 codes are traded at once for ID tokens on two nodes, then all succeed, signed by one new key; the old key stays published", async function () {
    this.timeout(120_000);
    const a = await backend.startNode();
    // The embedded store belongs to one node: there, all 50 go to it.
    const b = backend.redis ? await backend.startNode() : a;
    // A key made while the deployment ran with the old SECRET.
    const old = (await keys(a, OLD_SECRET).signer()).kid;

    const dev = new PageClient(a.url);
    await dev.signUp("devon");
    const app = await registerApp(dev, ["https://rp.example/cb"]);
    const codes: string[] = [];
    for (let i = 0; i < 50; i++) {
      const landed = await authorize(dev, {
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: "code",
        scope: "openid",
      });
      codes.push(landed.searchParams.get("code")!);
    }
    const answers = await Promise.all(codes.map((code, i) => trade((i % 2 ? b : a).url, app, code)));
    expect(answers.map((r) => r.status)).to.deep.equal(codes.map(() => 200));

    const stored = await a.opened.store.signingKeys.list();
    expect(stored, "the old key and one new key").to.have.length(2);
    const fresh = stored.find((k) => k.kid !== old)!.kid;
    for (const [i, r] of answers.entries()) {
      const idToken = (r.json as { id_token: string }).id_token;
      expect(decodeProtectedHeader(idToken).kid).to.equal(fresh);
      await verifyIdToken((i % 2 ? b : a).url, idToken, app.clientId);
    }
    expect((await jwksOf(b.url)).set.keys.map((k) => k.kid)).to.have.members([old, fresh]);

    // Logged once per node, at error level, naming the key and no key material.
    const nodes = a === b ? [a] : [a, b];
    const lines = nodes.flatMap((n) => n.logs.filter((l) => UNOPENABLE.test(l)));
    expect(lines.length).to.be.within(1, nodes.length);
    for (const n of nodes) expect(n.logs.filter((l) => UNOPENABLE.test(l)).length).to.be.at.most(1);
    for (const l of lines) expect(JSON.parse(l)).to.include({ level: "error", kid: old });
    const sealed = stored.map((k) => k.sealedPrivateKey);
    for (const n of nodes) for (const s of sealed) expect(n.logs.join("\n")).to.not.contain(s);
  });

  it("When the new key has signed for the tokens' lifetime, then the old key leaves the JWKS, and the next replacement drops it from the store", async () => {
    const node = await backend.startNode();
    let now = Date.now();
    const clock = () => now;
    const old = (await keys(node, OLD_SECRET, clock).signer()).kid;
    const current = keys(node, TEST_SECRET, clock);
    const fresh = (await current.signer()).kid;
    expect(fresh).to.not.equal(old);
    expect((await current.jwks()).keys.map((k) => k.kid)).to.have.members([old, fresh]);
    now += (30 + 600) * 1000; // the cache TTL and the token lifetime, within the minute of skew
    expect((await current.jwks()).keys.map((k) => k.kid)).to.include(old);
    now += 61_000;
    expect((await current.jwks()).keys.map((k) => k.kid)).to.deep.equal([fresh]);
    // SECRET changes again: the replacement removes the retired key from the store.
    const third = (await keys(node, OLD_SECRET, clock).signer()).kid;
    expect((await node.opened.store.signingKeys.list()).map((k) => k.kid)).to.have.members([fresh, third]);
  });

  it("When 50 keys are added at once against the same keys read, then exactly one is added", async () => {
    const store = (await backend.startNode()).opened.store;
    const fake = (kid: string) => ({
      kid,
      alg: "RS256" as const,
      publicJwk: { kty: "RSA", n: "x", e: "AQAB" },
      sealedPrivateKey: "x",
      createdAt: 1,
      activatesAt: 1,
    });
    await store.signingKeys.add(fake("k0"));
    const added = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.signingKeys.addUnchanged(fake(`k${i + 1}`), ["k0"])),
    );
    expect(added.filter(Boolean)).to.have.length(1);
    expect(await store.signingKeys.list()).to.have.length(2);
    expect(await store.signingKeys.addUnchanged(fake("k99"), ["k0", "k0"])).to.equal(false);
  });
});

describeBackends("Two-factor after a SECRET change", (backend) => {
  const PASSWORD = "correct horse battery";
  const RECOVERY = "abcde23456";
  let node: TestNode;
  let person: PageClient;
  let userId: string;

  /** Erin's two-factor as a node under the old SECRET stored it: its key sealed, its recovery codes keyed, under that SECRET. */
  beforeEach(async () => {
    node = await backend.startNode();
    person = new PageClient(node.url);
    expect((await person.signUp("erin", PASSWORD)).status).to.equal(303);
    userId = (await node.opened.store.accounts.byUsername("erin"))!.id;
    const key = new OTPAuth.Secret({ size: 20 }).base32;
    await node.opened.store.twoFactor.enable(
      userId,
      { sealedSecret: seal(sealingKey(OLD_SECRET, "sigil totp secret seal v1"), key, `totp ${userId}`), enabledAt: 1 },
      [keyedHash(OLD_SECRET, "sigil recovery code", userId, RECOVERY)],
    );
  });

  const said = (html: string) => decodeHtml(html).includes("Two-factor cannot be checked for this account");
  const stuck = (n: TestNode) => n.logs.filter((l) => /two-factor key cannot be opened with this SECRET/.test(l));

  it("When the user signs in with their password, then they are told to ask the operator (409, not signed in), and the operator gets a log line naming them", async () => {
    const browser = new PageClient(node.url);
    const r = await browser.submit("/signin", "/signin", { username: "erin", password: PASSWORD });
    expect(r.status).to.equal(409);
    expect(said(r.text)).to.equal(true);
    expect((await browser.get("/account")).status).to.equal(303);
    for (let i = 0; i < 50 && stuck(node).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const [line] = stuck(node);
    expect(JSON.parse(line!)).to.include({ level: "error", username: "erin", user_id: userId });
    expect(node.logs.join("\n")).to.not.contain(PASSWORD);
  });

  it("When they give a code or a recovery code (turning it off on /account), then the same 409, and nothing changes", async () => {
    for (const code of ["123456", RECOVERY]) {
      const r = await person.submit("/account", "/account/2fa/disable", { code });
      expect(r.status).to.equal(409);
      expect(said(r.text)).to.equal(true);
    }
    expect(await node.opened.store.twoFactor.get(userId)).to.not.equal(null);
  });

  it("When the operator resets their two-factor (sigil users reset-2fa), then the password signs them in, and they can set it up again", async () => {
    const services = createServices(node.config, node.opened.store);
    expect(await services.twoFactor.reset(userId)).to.equal(true);
    const browser = new PageClient(node.url);
    const r = await browser.submit("/signin", "/signin", { username: "erin", password: PASSWORD });
    expect(r.status).to.equal(303);
    await browser.confirm();
    expect((await browser.submit("/account", "/account/2fa/setup", {})).status).to.equal(200);
  });
});
