// The backup part of the store port (src/store/ports/backup.ts) and restore over the ports
// (src/store/backup.ts): one contract, every store. A store's backup, cleared and restored, backs
// up the same again, and what was restored behaves as before: the live refresh token rotates, a
// rotated one is caught as reuse, a revoked CUSTOM TOKEN stays revoked, history (the app's events
// and each of its channels) resumes after its trimmed part and goes on with later ids, an owned
// challenge still solves.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import { restoreItems } from "../src/store/backup.js";
import { BACKUP_KINDS, compareEventIds, type BackupItem, type Store } from "../src/store/port.js";

const HOUR = 3600;
const limits = { maxEvents: 5, ttlSeconds: HOUR };

async function collect(store: Store): Promise<BackupItem[]> {
  const out: BackupItem[] = [];
  for await (const item of store.backup.items()) out.push(item);
  return out;
}

async function* from(items: BackupItem[]): AsyncIterable<BackupItem> {
  yield* items;
}

/** Items in a comparable form: order-free lists sorted, times to whether they expire. */
function normal(items: BackupItem[]): string[] {
  return items
    .map((i) => {
      const c = structuredClone(i);
      if (c.kind === "grant") c.refresh?.used.sort();
      if (c.kind === "two-factor") c.recovery.sort();
      if (c.kind === "group") c.members.sort();
      // A restored audit record gets a new id (its time and order are kept).
      if (c.kind === "audit") c.record.id = "";
      const times = (k: string, v: unknown) =>
        (k === "expiresAt" || k === "markExpiresAt") && typeof v === "number" ? v > 0 : v;
      return JSON.stringify(c, times);
    })
    .sort();
}

/** Each item's expiry (ms), by its line without it. */
function expiries(items: BackupItem[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const i of items) {
    const at = "expiresAt" in i ? i.expiresAt : i.kind === "grant" ? i.markExpiresAt : undefined;
    if (at !== undefined) m.set(normal([i])[0]!, at);
  }
  return m;
}

describeStoreContract("Store contract: backup and restore", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  /** One of everything a backup holds, made through the ports as the service makes it. */
  async function fill(): Promise<{ eventIds: string[]; newsIds: string[] }> {
    const now = Date.now();
    await store.accounts.create({
      id: "u1",
      username: "ulla",
      displayName: "Ulla",
      passwordHash: "scrypt$x",
      createdAt: now,
      email: "ulla@example.com",
      picture: { type: "image/png", version: 1 },
      admin: true,
    });
    await store.accounts.savePicture("u1", Buffer.from([137, 80, 78, 71, 0, 255]));
    // A disabled account (sigil users disable) stays disabled through a backup and restore.
    await store.accounts.create({
      id: "u2",
      username: "dora",
      displayName: "Dora",
      passwordHash: "scrypt$y",
      createdAt: now,
      disabled: true,
    });
    await store.email.indexEmail("ulla@example.com", "u1");
    await store.apps.create({
      clientId: "app1",
      ownerId: "u1",
      name: "App",
      redirectUris: ["https://a.example/cb"],
      secretHash: "ab",
      // Where it hears about its users: carried whole (the webhook secret as sealed).
      webhookUrl: "https://a.example/hook",
      webhookSecretSealed: "sealed-webhook-secret",
      backchannelLogoutUri: "https://a.example/bcl",
      createdAt: now,
    });
    await store.signingKeys.add({
      kid: "k1",
      alg: "RS256",
      publicJwk: { kty: "RSA", n: "x", e: "AQAB" },
      sealedPrivateKey: "sealed",
      createdAt: now,
      activatesAt: now,
    });
    await store.customTokens.create({ id: "t1", app: "app1", name: "live", createdAt: now, revoked: false });
    await store.customTokens.create({ id: "t2", app: "app1", name: "gone", createdAt: now, revoked: false });
    await store.customTokens.revoke("app1", "t2");
    await store.grants.grantConsent("u1", "app1");
    await store.consentScopes.set("u1", "app1", ["openid", "profile", "offline_access"]);
    await store.passkeys.add({
      id: "cred1",
      userId: "u1",
      name: "Laptop",
      publicKey: "pk",
      counter: 3,
      deviceType: "multiDevice",
      backedUp: true,
      createdAt: now,
    });
    await store.upstreamLinks.link({
      upstream: "corp",
      issuer: "https://sso.corp.example",
      subject: "s-1",
      userId: "u1",
      email: "u1@corp.example",
      linkedAt: now,
    });
    // An upstream provider added on /admin (its client secret as sealed).
    await store.upstreamProviders.add({
      id: "corp",
      kind: "oidc",
      name: "Corp SSO",
      issuer: "https://sso.corp.example",
      clientId: "sigil",
      sealedSecret: "sealed-client-secret",
      createdAt: now,
      updatedAt: now,
    });
    await store.twoFactor.enable("u1", { sealedSecret: "s", enabledAt: now }, ["h1", "h2", "h3"]);
    // A group with a member, and an empty one.
    await store.groups.create({ name: "ops", createdAt: now });
    await store.groups.addMember("ops", "u1");
    await store.groups.create({ name: "empty", createdAt: now });
    // A pending sign-up invitation (only its token's hash is stored).
    const invitation = {
      id: "inv1",
      tokenHash: "th1",
      email: "ann@example.org",
      createdBy: "u1",
      createdAt: now,
      expiresAt: now + 7 * 86_400_000,
    };
    await store.invitations.save(invitation);
    await store.challenges.create("c1", { question: "q", answerHash: "ah", owner: "app1", createdAt: now }, HOUR);
    // A grant with a chain rotated twice, and its access token; a revoked grant and its token.
    const code = { clientId: "app1", userId: "u1", redirectUri: "https://a.example/cb", redirectUriGiven: true };
    const record = {
      grantId: "g1",
      userId: "u1",
      clientId: "app1",
      scope: ["openid", "offline_access"],
      grantExpiresAt: now + 2 * HOUR * 1000,
    };
    for (const g of ["g1", "g2"]) {
      await store.grants.saveCode(g, { ...code, scope: record.scope }, 60, 3 * HOUR);
      await store.grants.takeCode(g, HOUR);
      await store.grants.saveToken(
        `a-${g}`,
        { userId: "u1", clientId: "app1", codeHash: g, scope: record.scope },
        HOUR,
      );
    }
    await store.grants.startRefresh("r1", record, now);
    await store.grants.rotateRefresh("r1", "app1", "r2", now);
    await store.grants.rotateRefresh("r2", "app1", "r3", now);
    await store.grants.revokeGrant("g2", HOUR);
    // A history longer than its limit: trimmed (exactly here, or by Redis's approximate trim).
    const eventIds: string[] = [];
    for (let i = 0; i < 110; i++)
      eventIds.push((await store.events.append("app1", { key: "c1", correct: i % 2 === 0, at: "t" }, limits)).id);
    // Channels: one trimmed past its limit (in batches, as POST /realtime/publish stores them), one
    // short, one emptied by time (its ids go on from its last), and a message of each kind of data.
    const newsIds: string[] = [];
    for (let i = 0; i < 11; i++) {
      const batch = Array.from({ length: 10 }, (_, j) => ({
        channel: "news",
        data: JSON.stringify({ n: i * 10 + j }),
        at: "t",
      }));
      newsIds.push(...(await store.channels.publish("app1", batch, limits)));
    }
    await store.channels.publish(
      "app1",
      [
        { channel: "user:u1", data: '"hello"', at: "2026-11-27T05:00:00.000Z" },
        { channel: "user:u1", data: '{"deep":[1,{"x":null}],"s":"ü ☃"}', at: "2026-11-27T05:00:01.000Z" },
      ],
      limits,
    );
    await store.channels.publish("app1", [{ channel: "old.news", data: "1", at: "t" }], limits);
    // A read with a time cut past now trims everything (no waiting for the clock).
    await store.channels.readAfter("app1", "old.news", "0-0", 10, { maxEvents: 5, ttlSeconds: -1 });
    // Audit records, one of them in the user's list, two in one millisecond (their order is kept).
    await store.audit.append(
      [
        { time: now - 60_000, type: "signup", user_id: "u1", request_id: "r-1" },
        { time: now, type: "signin.failed", reason: "unknown_user", request_id: "r-2" },
        { time: now, type: "signin.succeeded", user_id: "u1", method: "password", request_id: "r-3" },
      ],
      HOUR,
    );
    return { eventIds, newsIds };
  }

  it("When a store is backed up, cleared and restored, then its backup is the same again, and the restored records behave as before", async () => {
    const { eventIds, newsIds } = await fill();
    const before = await collect(store);
    const kinds = new Set(before.map((i) => i.kind));
    // One of every kind a backup holds.
    expect([...kinds].sort()).to.deep.equal([...BACKUP_KINDS].sort());
    // The revoked grant and its token are left out.
    expect(before.filter((i) => i.kind === "grant").map((i) => (i as { grantId: string }).grantId)).to.deep.equal([
      "g1",
    ]);
    expect(before.filter((i) => i.kind === "access-token")).to.have.length(1);
    const readBefore = await store.events.readAfter("app1", eventIds[eventIds.length - 3]!, 10, limits);
    const channelReads = async () =>
      Promise.all([
        store.channels.readAfter("app1", "news", newsIds[newsIds.length - 4]!, 10, limits),
        store.channels.readAfter("app1", "news", "0-0", 10, limits),
        store.channels.readAfter("app1", "user:u1", "0-0", 10, limits),
        store.channels.readAfter("app1", "old.news", "0-0", 10, limits),
      ]);
    const channelsBefore = await channelReads();
    expect(channelsBefore[0].messages.map((m) => m.id)).to.deep.equal(newsIds.slice(-3));
    expect(channelsBefore[1].complete, "news was trimmed").to.equal(false);
    expect(channelsBefore[3]).to.include({ complete: false }).and.have.property("messages").that.is.empty;
    expect(
      before.filter((i) => i.kind === "channel-history").map((i) => (i as { channel: string }).channel),
    ).to.deep.equal(["news", "old.news", "user:u1"]);

    expect(Object.values(await store.backup.holdings()).some((n) => n > 0)).to.equal(true);
    await store.backup.clear();
    expect(await store.backup.holdings()).to.deep.equal({
      users: 0,
      apps: 0,
      signingKeys: 0,
      challenges: 0,
      groups: 0,
      upstreams: 0,
    });
    expect(await collect(store)).to.deep.equal([]);
    expect(await store.accounts.byUsername("ulla")).to.equal(null);
    expect(await store.accounts.list({ limit: 10 })).to.deep.equal([]);
    expect(await store.accounts.list({ limit: 10, query: "ulla" })).to.deep.equal([]);

    const counts = await restoreItems(store, from(before), HOUR, 86400);
    expect(counts.dropped).to.equal(0);
    const after = await collect(store);
    expect(normal(after)).to.deep.equal(normal(before));
    expect(await store.apps.get("app1")).to.include({
      webhookUrl: "https://a.example/hook",
      webhookSecretSealed: "sealed-webhook-secret",
      backchannelLogoutUri: "https://a.example/bcl",
    });
    // Lifetimes are kept to the second.
    const was = expiries(before);
    for (const [line, at] of expiries(after)) expect(Math.abs(at - was.get(line)!), line).to.be.at.most(2000);

    const audited = async (userId?: string) =>
      (await store.audit.list({ limit: 10, order: "oldest", ...(userId ? { userId } : {}) })).records.map(
        (r) => r.request_id,
      );
    expect(await audited()).to.deep.equal(["r-1", "r-2", "r-3"]);
    expect(await audited("u1")).to.deep.equal(["r-1", "r-3"]);
    expect((await store.accounts.byUsername("ulla"))!.id).to.equal("u1");
    expect((await store.accounts.byUsername("dora"))!.disabled).to.equal(true);
    expect((await store.accounts.byUsername("ulla"))!.disabled).to.equal(undefined);
    // An admin stays one, and the list of users (its index) holds the restored user.
    expect((await store.accounts.list({ limit: 10 })).map((u) => [u.username, u.admin])).to.deep.equal([
      ["dora", undefined],
      ["ulla", true],
    ]);
    // The search of users finds the restored users by their words again (its index is rebuilt).
    expect((await store.accounts.list({ limit: 10, query: "ulla@example" })).map((u) => u.id)).to.deep.equal(["u1"]);
    expect((await store.accounts.list({ limit: 10, query: "dor" })).map((u) => u.username)).to.deep.equal(["dora"]);
    expect([...(await store.accounts.picture("u1"))!]).to.deep.equal([137, 80, 78, 71, 0, 255]);
    expect(await store.email.usersByEmail("ulla@example.com")).to.deep.equal(["u1"]);
    expect(await store.twoFactor.recoveryCodesLeft("u1")).to.equal(3);
    expect(await store.groups.groupsOf("u1")).to.deep.equal(["ops"]);
    expect(await store.groups.members("empty")).to.deep.equal([]);
    expect(await store.invitations.take("th1")).to.deep.include({ id: "inv1", email: "ann@example.org" });
    expect(await store.twoFactor.useRecoveryCode("u1", "h2")).to.equal(true);
    expect((await store.passkeys.byId("cred1"))!.counter).to.equal(3);
    expect(await store.upstreamLinks.byIdentity("https://sso.corp.example", "s-1")).to.include({ userId: "u1" });
    expect(await store.upstreamProviders.get("corp")).to.include({
      name: "Corp SSO",
      sealedSecret: "sealed-client-secret",
    });
    expect((await store.customTokens.get("app1", "t2"))!.revoked).to.equal(true);
    expect((await store.customTokens.get("app1", "t1"))!.revoked).to.equal(false);
    expect(await store.grants.token("a-g1", "app1")).to.include({ codeHash: "g1" });
    expect(await store.grants.token("a-g2", "app1")).to.equal(null);
    // History: the same events after restore, and new ids go on after the last. No read from an id
    // issued before the restore is complete (the restore horizon: what came after the backup is
    // not here), though it was before.
    const notComplete = <T extends { complete: boolean }>(r: T): T => ({ ...r, complete: false });
    expect(readBefore.complete, "complete before the restore").to.equal(true);
    expect(await store.events.readAfter("app1", eventIds[eventIds.length - 3]!, 10, limits)).to.deep.equal(
      notComplete(readBefore),
    );
    // The channels too: the same reads (ids, order, data), none complete, and each goes on after its last.
    expect(channelsBefore[0].complete, "complete before the restore").to.equal(true);
    expect(await channelReads()).to.deep.equal(channelsBefore.map(notComplete));
    const later = (a: string, b: string) => compareEventIds(a, b) > 0;
    const [nextNews] = await store.channels.publish("app1", [{ channel: "news", data: "1", at: "t" }], limits);
    expect(later(nextNews!, newsIds.at(-1)!), `${nextNews} after ${newsIds.at(-1)}`).to.equal(true);
    const oldLast = (before.find((i) => i.kind === "channel-history" && i.channel === "old.news") as { last: string })
      .last;
    const [nextOld] = await store.channels.publish("app1", [{ channel: "old.news", data: "2", at: "t" }], limits);
    expect(later(nextOld!, oldLast), `${nextOld} after ${oldLast}`).to.equal(true);
    // The app's deletion forgets the restored channels with it.
    await store.channels.deleteAll("app1");
    expect((await store.channels.readAfter("app1", "user:u1", "0-0", 10, limits)).messages).to.deep.equal([]);
    expect((await store.events.readAfter("app1", "0-0", 10, limits)).complete).to.equal(false);
    const solved = await store.challenges.solve(
      { key: "c1", address: "198.51.100.1", answerHash: "ah", at: "now" },
      { limits: { perAddress: 10, perAddressWindow: 60, perKey: 10, perKeyWindow: 60 }, history: limits },
    );
    expect(solved).to.have.property("status", "counted");
    const next = (solved as { event?: { id: string } }).event!.id;
    const [nm, ns] = next.split("-").map(Number) as [number, number];
    const [lm, ls] = eventIds[eventIds.length - 1]!.split("-").map(Number) as [number, number];
    expect(nm > lm || (nm === lm && ns > ls), `${next} after ${eventIds.at(-1)}`).to.equal(true);
    // The chain: the live token rotates; a rotated one is reuse, which ends the grant.
    expect((await store.grants.rotateRefresh("r3", "app1", "r4", Date.now())).kind).to.equal("rotated");
    expect((await store.grants.rotateRefresh("r1", "app1", "r5", Date.now())).kind).to.equal("reused");
    expect((await store.grants.rotateRefresh("r4", "app1", "r6", Date.now())).kind).to.equal("revoked");
  });
});
