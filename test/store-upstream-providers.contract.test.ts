// The upstream providers added on /admin, in the store (store/ports/upstream-providers.ts): one
// contract, every store. An id is taken once, even by 50 adds at once; a change or a removal of a
// provider that is not there writes nothing; usersOf finds the users linked through one upstream.
// On a Redis Cluster too (one key; usersOf scans every master), with a backup and its restore.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import { describeOnCluster } from "./support/on-cluster.js";
import { restoreItems } from "../src/store/backup.js";
import type { BackupItem, Store, StoredUpstreamRecord } from "../src/store/port.js";

const provider = (id: string, name = id, at = 1): StoredUpstreamRecord => ({
  id,
  kind: "oidc",
  name,
  issuer: `https://${id}.example`,
  clientId: "sigil",
  sealedSecret: `sealed-${name}`,
  createdAt: at,
  updatedAt: at,
});

describeStoreContract("Store contract: upstream providers", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  it("When providers are added, changed and removed, then each id is one provider, listed by id, and nothing is written for one that is not there", async () => {
    const s = store.upstreamProviders;
    expect(await s.list()).to.deep.equal([]);
    expect(await s.add(provider("okta"))).to.equal(true);
    expect(await s.add(provider("corp"))).to.equal(true);
    expect(await s.add(provider("corp", "Other"))).to.equal(false);
    expect(await s.get("corp")).to.deep.equal(provider("corp"));
    expect(await s.get("nope")).to.equal(null);
    expect((await s.list()).map((p) => p.id)).to.deep.equal(["corp", "okta"]);
    const changed = { ...provider("corp", "Corp SSO"), apiUrl: "https://x.example", updatedAt: 2 };
    expect(await s.update(changed)).to.equal(true);
    expect(await s.get("corp")).to.deep.equal(changed);
    expect(await s.update(provider("nope"))).to.equal(false);
    expect(await s.get("nope")).to.equal(null);
    expect(await s.remove("corp")).to.deep.equal(changed);
    expect(await s.remove("corp")).to.equal(null);
    expect(await s.update(changed)).to.equal(false);
    expect((await s.list()).map((p) => p.id)).to.deep.equal(["okta"]);
    // Removed, the id is free again.
    expect(await s.add(provider("corp", "Again"))).to.equal(true);
    expect((await s.get("corp"))?.name).to.equal("Again");
  });

  it("When 50 adds of one id arrive at once, then exactly one is stored", async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.upstreamProviders.add(provider("corp", `n${i}`))),
    );
    expect(results.filter(Boolean)).to.have.length(1);
    const list = await store.upstreamProviders.list();
    expect(list).to.have.length(1);
    expect(list[0]!.name).to.equal(`n${results.indexOf(true)}`);
  });

  it("When users are linked through several upstreams, then usersOf names each user of one upstream once", async () => {
    const link = (upstream: string, subject: string, userId: string, issuer = "https://a.example") =>
      store.upstreamLinks.link({ upstream, issuer, subject, userId, linkedAt: 1 });
    await link("corp", "s1", "u1");
    await link("corp", "s2", "u1", "https://b.example");
    await link("corp", "s3", "u2");
    await link("okta", "s4", "u3");
    expect((await store.upstreamLinks.usersOf("corp")).sort()).to.deep.equal(["u1", "u2"]);
    expect(await store.upstreamLinks.usersOf("okta")).to.deep.equal(["u3"]);
    expect(await store.upstreamLinks.usersOf("nope")).to.deep.equal([]);
    await store.upstreamLinks.removeForUser("u1");
    expect(await store.upstreamLinks.usersOf("corp")).to.deep.equal(["u2"]);
  });
});

describeOnCluster("Upstream providers on Redis Cluster", (on) => {
  it("When providers are added 50 at once, changed, removed, found through their links, backed up and restored, then every step works", async () => {
    const store = (await on.freshNode()).opened.store;
    const adds = await Promise.all(Array.from({ length: 50 }, () => store.upstreamProviders.add(provider("corp"))));
    expect(adds.filter(Boolean)).to.have.length(1);
    expect(await store.upstreamProviders.add(provider("okta"))).to.equal(true);
    expect(await store.upstreamProviders.update({ ...provider("okta", "Okta"), updatedAt: 2 })).to.equal(true);
    expect((await store.upstreamProviders.remove("corp"))?.id).to.equal("corp");
    for (let i = 0; i < 20; i++)
      await store.upstreamLinks.link({
        upstream: "okta",
        issuer: "https://o.example",
        subject: `s${i}`,
        userId: `u${i}`,
        linkedAt: 1,
      });
    expect((await store.upstreamLinks.usersOf("okta")).sort()).to.have.length(20);
    const items: BackupItem[] = [];
    for await (const i of store.backup.items()) items.push(i);
    expect(items.filter((i) => i.kind === "upstream")).to.have.length(1);
    expect((await store.backup.holdings()).upstreams).to.equal(1);
    await store.backup.clear();
    expect(await store.upstreamProviders.list()).to.deep.equal([]);
    await restoreItems(
      store,
      (async function* () {
        yield* items;
      })(),
      3600,
      86400,
    );
    expect(await store.upstreamProviders.list()).to.deep.equal([{ ...provider("okta", "Okta"), updatedAt: 2 }]);
  });
});
