// docs/realtime.md#custom-tokens across nodes: a CUSTOM TOKEN created and revoked on one node's /developers works
// on, and then drops from, another node sharing the Redis.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { readyClient, refusal } from "./support/channel.js";
import { PageClient, registerApp } from "./support/pages.js";

describeBackends(
  "CUSTOM TOKENs on /developers across nodes",
  (backend) => {
    it("When the owner revokes on node A, then the token's socket on node B drops within 1 s", async () => {
      const a = await backend.startNode();
      const b = await backend.startNode();
      const dev = new PageClient(a.url);
      await dev.signUp("devon");
      const app = await registerApp(dev);
      const made = await dev.submit("/developers", `/developers/${app.clientId}/tokens`, { name: "roamer" });
      const token = /class="secret custom-token">([^<]+)</.exec(made.text)![1]!;
      const id = /<tr data-token-id="([^"]+)"/.exec(made.text)![1]!;

      const onB = await readyClient(b.url, { token });
      expect(onB.readies[0]!.app).to.equal(app.clientId);
      expect((await dev.submit("/developers", `/developers/${app.clientId}/tokens/${id}/revoke`, {})).status).to.equal(
        303,
      );
      await onB.waitDisconnect(1000);
      expect((await refusal(b.url, { token })).message).to.equal("invalid_token");
    });
  },
  ["redis"],
);
