// OpenID Connect Back-Channel Logout 1.0 (docs/events.md#back-channel-logout): when a user's
// session ends, or the account is disabled or deleted, an app with a back-channel logout URL gets
// `logout_token=<JWT>` POSTed as a form, and validates it as an RP does (§2.6, by hand with jose
// against /jwks: openid-client has no back-channel helper): signed by the key and algorithm of the
// ID tokens, iss, aud, iat, exp, jti, the logout event, sub, no nonce. A withdrawn consent sends none.
import { expect } from "chai";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { describeBackends } from "./support/backends.js";
import { sigil } from "./support/cli.js";
import { PageClient, authorize, registerApp, token, type TestApp } from "./support/pages.js";
import type { TestNode } from "./support/nodes.js";
import { Receiver, type Received } from "./support/receiver.js";

const EVENT = "http://schemas.openid.net/event/backchannel-logout";

describeBackends("Back-Channel Logout", (backend) => {
  let node: TestNode;
  let receiver: Receiver;
  afterEach(() => receiver?.close());

  /** Validates a logout token as Back-Channel Logout 1.0 §2.6 tells an RP to; returns its claims. */
  async function validate(r: Received, app: TestApp) {
    expect(r.headers["content-type"]).to.equal("application/x-www-form-urlencoded");
    const form = new URLSearchParams(r.body);
    expect([...form.keys()]).to.deep.equal(["logout_token"]);
    const jwt = form.get("logout_token")!;
    const jwks = createRemoteJWKSet(new URL(`${node.url}/jwks`));
    const { payload, protectedHeader } = await jwtVerify(jwt, jwks, {
      issuer: node.url,
      audience: app.clientId,
      typ: "logout+jwt",
      maxTokenAge: "5 minutes",
    });
    expect(protectedHeader.alg).to.not.equal("none");
    expect(payload.sub, "sub (or sid) present").to.be.a("string");
    expect(payload.events).to.deep.equal({ [EVENT]: {} });
    expect(payload).to.not.have.property("nonce");
    expect(payload.jti).to.be.a("string").and.have.length.greaterThan(10);
    expect(payload.exp! - payload.iat!).to.be.within(1, 300);
    return { payload, protectedHeader };
  }

  it("When the user signs out, and then is disabled, then the app's back-channel URL gets a valid logout token for each (signed like its ID tokens); a withdrawn consent sends none", async () => {
    receiver = await Receiver.start();
    node = await backend.startNode({ DELIVERY_POLL: "20" });
    const dev = new PageClient(node.url);
    await dev.signUp("devon");
    const app = await registerApp(dev);
    const set = await dev.submit("/developers", `/developers/${app.clientId}/events`, {
      webhook_url: "",
      backchannel_logout_uri: receiver.url("/bcl"),
    });
    expect(set.status).to.equal(200);
    const una = new PageClient(node.url);
    await una.signUp("una");
    const sub = (await node.server.services.accounts.byUsername("una"))!.id;
    const params = { response_type: "code", client_id: app.clientId, redirect_uri: app.redirectUri, scope: "openid" };
    await authorize(una, params);
    await una.submit("/account", "/account/consents/withdraw", { client_id: app.clientId });
    // An ID token of the app's, to compare the logout token's key with.
    const back = await authorize(una, params);
    const traded = await token(node.url, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      redirect_uri: app.redirectUri,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    const idToken = (JSON.parse(traded.text) as { id_token: string }).id_token;

    const signOut = Date.now();
    expect((await una.submit("/account", "/signout", {})).status).to.equal(303);
    const [first] = await receiver.until(1);
    // The withdrawal came first: had it sent a token, that one would have come first.
    expect(first!.at, "nothing for the withdrawn consent").to.be.at.least(signOut);
    const one = await validate(first!, app);
    expect(one.payload.sub).to.equal(sub);
    const idHeader = decodeProtectedHeader(idToken);
    expect(one.protectedHeader).to.include({ alg: idHeader.alg, kid: idHeader.kid });

    const cli = await sigil({ ...backend.env(), SECRET: node.config.secret }, "users", "disable", "--username", "una");
    expect(cli.code, cli.err).to.equal(0);
    const got = await receiver.until(2);
    const two = await validate(got[1]!, app);
    expect(two.payload.sub).to.equal(sub);
    expect(two.payload.jti).to.not.equal(one.payload.jti);
    expect(got.map((r) => r.path)).to.deep.equal(["/bcl", "/bcl"]);
  });
});
