import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { PageClient, authorize, pkce, registerApp, token, userInfo } from "./support/pages.js";
describeBackends("smoke", (b) => {
  it("flows", async () => {
    const node = await b.startNode();
    const dev = new PageClient(node.url);
    const s = await dev.signUp("devuser");
    expect(s.status, s.text).to.equal(303);
    const app = await registerApp(dev);
    const alice = new PageClient(node.url);
    await alice.signUp("alice", "password123", "Alice <b>L</b>");
    const p = pkce();
    const u = await authorize(alice, { client_id: app.clientId, redirect_uri: app.redirectUri, state: "xyz", response_type: "code", code_challenge: p.challenge, code_challenge_method: "S256" });
    console.log(u.href);
    const t = await token(node.url, { grant_type: "authorization_code", code: u.searchParams.get("code")!, redirect_uri: app.redirectUri, client_id: app.clientId, client_secret: app.clientSecret, code_verifier: p.verifier });
    console.log(t.status, t.json);
    const ui = await userInfo(node.url, t.json.access_token, app.clientId);
    console.log(ui.status, ui.json);
  });
});
