// OpenID Connect Back-Channel Logout 1.0 (docs/events.md#back-channel-logout): when a user's
// session ends, or the account is disabled or deleted, an app with a back-channel logout URL gets
// `logout_token=<JWT>` POSTed as a form, and validates it as an RP does (§2.6, by hand with jose
// against /jwks: openid-client has no back-channel helper): signed by the key and algorithm of the
// ID tokens, iss, aud, iat, exp, jti, the logout event, sub, no nonce. A withdrawn consent sends none.
// One session signed out: the token's sid is the one openid-client read in that browser's ID token.
import { expect } from "chai";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import * as client from "openid-client";
import { describeBackends } from "./support/backends.js";
import { sigil } from "./support/cli.js";
import { PageClient, authorize, registerApp, signInAs, token, type TestApp } from "./support/pages.js";
import type { TestNode } from "./support/nodes.js";
import { Receiver, type Received } from "./support/receiver.js";
import { REDIRECT, rpOf, rpSignIn } from "./support/user-sockets.js";

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
    expect(two.payload, "disabling ends every session: no sid").to.not.have.property("sid");
    expect(got.map((r) => r.path)).to.deep.equal(["/bcl", "/bcl"]);
  });

  it("When a user signed in to the app in several browsers signs out of one, then its logout token's sid is that browser's ID token's sid; ending the others names each; a reset ends all by sub alone", async () => {
    receiver = await Receiver.start();
    node = await backend.startNode({ DELIVERY_POLL: "20" });
    const dev = new PageClient(node.url);
    await dev.signUp("devon");
    const app = await registerApp(dev, [REDIRECT]);
    await dev.submit("/developers", `/developers/${app.clientId}/events`, {
      webhook_url: "",
      backchannel_logout_uri: receiver.url("/bcl"),
    });
    const rp = await rpOf(node, app);
    expect(rp.serverMetadata().backchannel_logout_session_supported).to.equal(true);
    /** The app signs the browser's person in with openid-client, which validates the ID token. */
    const signIn = async (person: PageClient, scope = "openid") => {
      const tokens = await rpSignIn(rp, person, scope);
      return { tokens, sid: tokens.claims()!.sid as string };
    };
    const [a, b, c, d] = [0, 1, 2, 3].map(() => new PageClient(node.url));
    await a!.signUp("una", "correct horse battery");
    for (const [browser, ua] of [
      [b, "Safari"],
      [c, "Firefox"],
    ] as const)
      await signInAs(browser!, "una", "correct horse battery", ua);
    const sub = (await node.server.services.accounts.byUsername("una"))!.id;
    const inA = await signIn(a!, "openid offline_access");
    const [sidB, sidC] = [(await signIn(b!)).sid, (await signIn(c!)).sid];
    expect(inA.sid).to.match(/^[0-9a-f]{32}$/);
    expect(new Set([inA.sid, sidB, sidC]).size, "one sid per browser session").to.equal(3);
    expect((await signIn(a!)).sid, "the same session again: the same sid").to.equal(inA.sid);
    // Nothing of the session cookie in it.
    expect(decodeURIComponent(a!.cookies.get("sigil.sid")!)).to.not.include(inA.sid);
    // A refresh's ID token keeps the sid of the sign-in that began the grant, as auth_time.
    const refreshed = await client.refreshTokenGrant(rp, inA.tokens.refresh_token!);
    expect(refreshed.claims()!.sid).to.equal(inA.sid);

    expect((await a!.submit("/account", "/signout", {})).status).to.equal(303);
    const first = await validate((await receiver.until(1))[0]!, app);
    expect(first.payload).to.include({ sub, sid: inA.sid });

    // The sid is the session's id on /account: B signs C out from its list by it.
    expect((await b!.submit("/account", "/account/sessions/signout", { session: sidC })).status).to.equal(303);
    const second = await validate((await receiver.until(2))[1]!, app);
    expect(second.payload).to.include({ sub, sid: sidC });

    await signInAs(d!, "una", "correct horse battery", "Edge");
    const sidD = (await signIn(d!)).sid;
    expect((await b!.submit("/account", "/account/sessions/signout-others", {})).status).to.equal(303);
    const third = await validate((await receiver.until(3))[2]!, app);
    expect(third.payload, "every other session, each by its sid; B stays").to.include({ sub, sid: sidD });

    const cli = await sigil(
      { ...backend.env(), SECRET: node.config.secret },
      "users",
      "reset-password",
      "--username",
      "una",
      "--password",
      "another horse battery",
    );
    expect(cli.code, cli.err).to.equal(0);
    const fourth = await validate((await receiver.until(4))[3]!, app);
    expect(fourth.payload.sub).to.equal(sub);
    expect(fourth.payload, "every session ended: the user alone").to.not.have.property("sid");
    // Nothing else came before it (each step above waited for its token): none for B, which stays.
    expect(receiver.got).to.have.length(4);
  });
});
