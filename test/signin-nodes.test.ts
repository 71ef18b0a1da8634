// Any node serves any user: sessions, apps, codes and tokens live in Redis.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { PageClient, authorize, registerApp, token, userInfo } from "./support/pages.js";

describeBackends(
  "Sign-in across nodes",
  (backend) => {
    it("When a person signs up on one node, then another node knows the session, and codes and tokens work anywhere", async () => {
      const a = await backend.startNode();
      const b = await backend.startNode();
      const onA = new PageClient(a.url);
      await onA.signUp("nadia", "password123", "Nadia");
      const app = await registerApp(onA);
      const onB = new PageClient(b.url);
      for (const [k, v] of onA.cookies) onB.cookies.set(k, v);
      expect((await onB.get("/account")).text).to.contain("Nadia");
      const landed = await authorize(onB, { client_id: app.clientId, redirect_uri: app.redirectUri, state: "s" });
      const t = await token(a.url, {
        code: landed.searchParams.get("code")!,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: app.redirectUri,
      });
      expect(t.status).to.equal(200);
      expect((await userInfo(b.url, t.json.access_token, app.clientId)).json.username).to.equal("nadia");
      const replay = await token(b.url, {
        code: landed.searchParams.get("code")!,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: app.redirectUri,
      });
      expect(replay.json.error).to.equal("invalid_grant");
      expect((await userInfo(a.url, t.json.access_token, app.clientId)).status).to.equal(401);
    });
  },
  ["redis"],
);
