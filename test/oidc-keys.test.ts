// The ID token signing keys (docs/http-api.md#keys), on both stores: made once however many nodes
// start at once, sealed under SECRET, rotated with a publish-first, sign-later delay, and dropped
// from the JWKS only once every token they signed has expired.
import { expect } from "chai";
import { decodeProtectedHeader } from "jose";
import { SigningKeys } from "../src/domain/keys.js";
import { openIdFor } from "../src/domain/oidc-setup.js";
import { describeBackends } from "./support/backends.js";
import { startNode, TEST_SECRET, type TestNode } from "./support/nodes.js";
import { PageClient, registerApp } from "./support/pages.js";
import { jwksOf, signInWith, verifyIdToken } from "./support/oidc.js";

describeBackends("OpenID Connect signing keys", (backend) => {
  let node: TestNode;
  beforeEach(async () => {
    node = await backend.startNode();
  });
  const keysWith = (over: Partial<ConstructorParameters<typeof SigningKeys>[0]> = {}) =>
    new SigningKeys({
      store: node.opened.store,
      secret: TEST_SECRET,
      activationDelay: 3600,
      cacheTtl: 30,
      tokenTtl: 3600,
      ...over,
    });

  it("When 50 nodes need the first key at once, then exactly one key is made", async function () {
    this.timeout(60_000);
    const store = node.opened.store;
    expect(await store.signingKeys.list()).to.have.length(0);
    await Promise.all(Array.from({ length: 50 }, () => keysWith().ensure()));
    const keys = await store.signingKeys.list();
    expect(keys).to.have.length(1);
    // Every one of the 50 signs with that one key.
    const signers = await Promise.all(Array.from({ length: 50 }, () => keysWith().signer()));
    expect(new Set(signers.map((s) => s.kid))).to.deep.equal(new Set([keys[0]!.kid]));
  });

  it("When nodes start as main.ts starts them (5 at once on Redis), then the first makes the key and they all share it", async () => {
    const starting = backend.redis ? 5 : 1; // the embedded store belongs to one node
    const nodes = await Promise.all(
      Array.from({ length: starting }, () =>
        startNode({ ...(backend.redis ? { redisUrl: backend.redis.url } : {}), signingKeyAtStart: true }),
      ),
    );
    try {
      const keys = await nodes[0]!.opened.store.signingKeys.list();
      expect(keys).to.have.length(1);
      for (const n of nodes) expect((await jwksOf(n.url)).set.keys.map((k) => k.kid)).to.deep.equal([keys[0]!.kid]);
    } finally {
      await Promise.all(nodes.map((n) => n.close()));
    }
  });

  it("When 50 first keys are added at once (claim or no claim), then the store keeps exactly one", async () => {
    const store = node.opened.store;
    await store.signingKeys.remove((await store.signingKeys.list()).map((k) => k.kid));
    const fake = (i: number) => ({
      kid: `k${i}`,
      alg: "RS256" as const,
      publicJwk: { kty: "RSA", n: "x", e: "AQAB" },
      sealedPrivateKey: "x",
      createdAt: i,
      activatesAt: i,
    });
    const won = await Promise.all(Array.from({ length: 50 }, (_, i) => store.signingKeys.addFirst(fake(i))));
    expect(won.filter(Boolean)).to.have.length(1);
    expect(await store.signingKeys.list()).to.have.length(1);
    const claims = await Promise.all(Array.from({ length: 50 }, () => store.signingKeys.claimFirst(10)));
    expect(claims.filter(Boolean)).to.have.length(1);
  });

  it("When a node first serves the JWKS, then it makes the key, in the store with the private part sealed, opened only with the same SECRET", async () => {
    expect(await node.opened.store.signingKeys.list()).to.have.length(0); // test nodes skip the start-up step
    const served = (await jwksOf(node.url)).set.keys;
    expect(served).to.have.length(1);
    const [rec] = await node.opened.store.signingKeys.list();
    expect(rec!.kid).to.equal(served[0]!.kid);
    expect(rec).to.not.equal(undefined);
    expect(Object.keys(rec!.publicJwk).sort()).to.deep.equal(["e", "kty", "n"]);
    expect(rec!.sealedPrivateKey).to.not.match(/PRIVATE KEY/);
    expect((await keysWith().signer()).kid).to.equal(rec!.kid);
    // Under another SECRET it cannot be opened: that node signs with a new key instead (test/secret-change.test.ts).
    const other = await keysWith({ secret: "another-secret-0123456789abcdef0123456789" }).signer();
    expect(other.kid).to.not.equal(rec!.kid);
  });

  it("When a key is rotated, then the JWKS lists it at once, while ID tokens keep the old kid until it activates", async () => {
    const base = node.url;
    const dev = new PageClient(base);
    await dev.signUp("devon");
    const app = await registerApp(dev, ["https://rp.example/cb"]);
    const before = (await jwksOf(base)).set.keys.map((k) => k.kid);
    expect(before).to.have.length(1);
    const { kid } = await openIdFor(node.config, node.opened.store).keys.rotate(); // what `sigil keys rotate` runs
    const after = (await jwksOf(base)).set.keys.map((k) => k.kid);
    expect(after).to.have.members([before[0]!, kid]);
    const t = await signInWith(base, dev, app, { scope: "openid" });
    expect(decodeProtectedHeader(t.json.id_token).kid).to.equal(before[0]);
    await verifyIdToken(base, t.json.id_token, app.clientId);
  });

  it("When the new key activates, then nodes sign with it; the old one stays published until its tokens have expired, then goes", async () => {
    let now = Date.now();
    const clock = () => now;
    const keys = keysWith({ activationDelay: 60, cacheTtl: 0, tokenTtl: 600, now: clock });
    const old = (await keys.signer()).kid;
    const { kid } = await keys.rotate();
    expect((await keys.signer()).kid).to.equal(old);
    now += 61_000; // past the activation
    expect((await keys.signer()).kid).to.equal(kid);
    expect((await keys.jwks()).keys.map((k) => k.kid)).to.have.members([old, kid]);
    now += 600_000; // the old key's last tokens have just expired, within the minute of skew
    expect((await keys.jwks()).keys.map((k) => k.kid)).to.include(old);
    now += 61_000;
    expect((await keys.jwks()).keys.map((k) => k.kid)).to.deep.equal([kid]);
    // The next rotation clears it from the store as well.
    const third = await keys.rotate();
    expect((await node.opened.store.signingKeys.list()).map((k) => k.kid)).to.have.members([kid, third.kid]);
  });
});
