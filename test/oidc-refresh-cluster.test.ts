// Refresh tokens, revocation, introspection and public clients on a three-master Redis Cluster:
// every key one script touches shares a hash tag (a CROSSSLOT error would be a 500 here).
import { expect } from "chai";
import { describeOnCluster } from "./support/on-cluster.js";
import { creds, offlinePair, people, postForm, refresh, registerPublicApp } from "./support/grants.js";
import { TEST_SECRET } from "./support/nodes.js";
import { csrfOf, userInfo } from "./support/pages.js";
import { isAuditKey, redisDump } from "./support/redis.js";
import { keyedHash } from "../src/domain/secrets.js";

describeOnCluster("Refresh tokens on Redis Cluster", (on) => {
  it("When grants rotate, are reused 50 at once, revoked, introspected and withdrawn, then all of it works", async () => {
    const node = await on.freshNode();
    const base = node.url;
    const { app, alice, dev } = await people(base);
    const first = await offlinePair(base, alice, app);
    const next = await refresh(base, app, first.refresh);
    expect(next.status, next.text).to.equal(200);
    const all = await Promise.all(Array.from({ length: 50 }, () => refresh(base, app, next.json.refresh_token)));
    expect(all.filter((r) => r.status === 200)).to.have.length(1);
    expect(all.filter((r) => r.json?.error === "invalid_grant")).to.have.length(49);

    const second = await offlinePair(base, alice, app);
    const seen = await postForm(base, "/introspect", { token: second.refresh, ...creds(app) });
    expect(seen.json).to.include({ active: true, token_type: "refresh_token" });
    expect((await postForm(base, "/revoke", { token: second.refresh, ...creds(app) })).status).to.equal(200);
    expect((await userInfo(base, second.access, app.clientId)).status).to.equal(401);

    const third = await offlinePair(base, alice, app);
    const page = await alice.get("/account");
    await alice.post("/account/consents/withdraw", { _csrf: csrfOf(page.text), client_id: app.clientId });
    expect((await refresh(base, app, third.refresh)).json.error).to.equal("invalid_grant");

    const spa = await registerPublicApp(dev, ["https://spa.example/cb"]);
    const pre = await fetch(`${base}/token`, {
      method: "OPTIONS",
      headers: { origin: "https://spa.example", "access-control-request-method": "POST" },
    });
    expect(pre.headers.get("access-control-allow-origin")).to.equal("https://spa.example");
    const pair = await offlinePair(base, alice, spa);
    expect((await refresh(base, spa, pair.refresh)).status).to.equal(200);
  });

  it("When an app with consents, codes and refresh chains is deleted, then no record about it is left on any master", async () => {
    const node = await on.freshNode();
    const base = node.url;
    const { app, other, alice, dev } = await people(base);
    const pairs = [await offlinePair(base, alice, app), await offlinePair(base, alice, app)];
    const next = await refresh(base, app, pairs[0]!.refresh);
    expect(next.status, next.text).to.equal(200);
    const kept = await offlinePair(base, alice, other);
    const r = await dev.submit("/developers", `/developers/${app.clientId}/delete`, {});
    expect(r.status).to.equal(303);
    expect((await refresh(base, other, kept.refresh)).status).to.equal(200);
    const hashes = [
      ...pairs.flatMap((p) => [
        keyedHash(TEST_SECRET, "token", p.access),
        keyedHash(TEST_SECRET, "refresh", p.refresh),
      ]),
      keyedHash(TEST_SECRET, "refresh", next.json.refresh_token),
      keyedHash(TEST_SECRET, "token", next.json.access_token),
    ];
    const left = on.cluster.nodes
      // The audit log keeps the app's trail (docs/operations.md#audit-log).
      .flatMap((n) => redisDump(n, isAuditKey).split("\n"))
      .filter((l) => l.includes(app.clientId) || hashes.some((h) => l.includes(h)));
    expect(left).to.deep.equal([]);
  });
});
