// Client credentials on a three-master Redis Cluster (docs/http-api.md#client-credentials): 50
// token requests at once, another app's introspection, revocation, and the app's deletion leaving
// no record of its tokens on any master (a CROSSSLOT error would be a 500 here).
import { expect } from "chai";
import { describeOnCluster } from "./support/on-cluster.js";
import { people, postForm } from "./support/grants.js";
import { TEST_SECRET } from "./support/nodes.js";
import { basic, token } from "./support/pages.js";
import { isAuditKey, redisDump } from "./support/redis.js";
import { keyedHash } from "../src/domain/secrets.js";

describeOnCluster("Client credentials on Redis Cluster", (on) => {
  it("When an app gets 50 tokens at once, another app introspects one, it revokes one and is deleted, then all of it works and nothing of its tokens is left", async () => {
    const node = await on.freshNode();
    const base = node.url;
    const { app, other, dev } = await people(base);
    const record = await node.server.services.apps.byClientId(app.clientId);
    await node.server.services.apps.update(record!, { m2mScopes: ["jobs:run"] });
    const auth = { authorization: basic(app.clientId, app.clientSecret) };
    const all = await Promise.all(
      Array.from({ length: 50 }, () => token(base, { grant_type: "client_credentials" }, auth)),
    );
    expect(all.map((r) => r.status)).to.deep.equal(Array(50).fill(200));
    const tokens = all.map((r) => r.json.access_token as string);
    const seen = await postForm(
      base,
      "/introspect",
      { token: tokens[0]! },
      { authorization: basic(other.clientId, other.clientSecret) },
    );
    expect(seen.json).to.include({ active: true, sub: app.clientId, scope: "jobs:run" });
    expect((await postForm(base, "/revoke", { token: tokens[1]! }, auth)).status).to.equal(200);
    const gone = await postForm(base, "/introspect", { token: tokens[1]! }, auth);
    expect(gone.json).to.deep.equal({ active: false });
    expect((await dev.submit("/developers", `/developers/${app.clientId}/delete`, {})).status).to.equal(303);
    const hashes = tokens.map((t) => keyedHash(TEST_SECRET, "token", t));
    const left = on.cluster.nodes
      .flatMap((n) => redisDump(n, isAuditKey).split("\n"))
      .filter((l) => l.includes(app.clientId) || hashes.some((h) => l.includes(h)));
    expect(left).to.deep.equal([]);
  });
});
