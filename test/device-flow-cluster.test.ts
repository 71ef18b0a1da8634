// Device authorization on a three-master Redis Cluster (src/store/redis/device-codes.ts): a
// request's user code and its record have their own hash tags (two shards, most often); each
// script touches one key, so no CROSSSLOT error, and the flow works end to end.
import { expect } from "chai";
import { describeOnCluster } from "./support/on-cluster.js";
import { decideDevice, pollDevice, startDevice } from "./support/device.js";
import { registerPublicApp } from "./support/grants.js";
import { PageClient } from "./support/pages.js";

describeOnCluster("Device authorization on Redis Cluster", (on) => {
  it("When a CLI starts, polls, its person allows and 50 polls go at once, then one gets the tokens", async () => {
    const node = await on.freshNode();
    const dev = new PageClient(node.url);
    await dev.signUp("devon");
    const cli = await registerPublicApp(dev, ["http://127.0.0.1/cb"], "CLI");
    const id = { client_id: cli.clientId };
    const s = await startDevice(node.url, { ...id, scope: "openid profile offline_access" });
    expect((await pollDevice(node.url, s.device_code, id)).json).to.include({ error: "authorization_pending" });
    expect((await pollDevice(node.url, s.device_code, id)).json).to.include({ error: "slow_down" });
    const alice = new PageClient(node.url);
    await alice.signUp("alice", "password123");
    expect((await decideDevice(alice, s.user_code, "allow")).status).to.equal(200);
    const polls = await Promise.all(Array.from({ length: 50 }, () => pollDevice(node!.url, s.device_code, id)));
    const ok = polls.filter((r) => r.status === 200);
    expect(ok).to.have.length(1);
    expect(ok[0]!.json).to.have.keys("access_token", "token_type", "expires_in", "scope", "refresh_token", "id_token");
  });
});
