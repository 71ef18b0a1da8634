// Standard OAuth client libraries complete the flow against Sigil with configuration alone
// (docs/http-api.md#sign-in-with-sigil, Discovery), each in its own test. The person's part (sign in, consent) is played
// by the page client; everything the app does is the library's.
import { expect } from "chai";
import * as oauth from "oauth4webapi";
import * as client from "openid-client";
import { Strategy as OAuth2Strategy } from "passport-oauth2";
import { AuthorizationCode } from "simple-oauth2";
import { describeBackends } from "./support/backends.js";
import { PageClient, registerApp, type TestApp } from "./support/pages.js";

const REDIRECT = "http://127.0.0.1:8765/callback";

describeBackends("Standard OAuth clients", (backend) => {
  let base: string;
  let app: TestApp;
  let person: PageClient;
  beforeEach(async () => {
    base = (await backend.startNode()).url;
    const dev = new PageClient(base);
    await dev.signUp("devon");
    app = await registerApp(dev, [REDIRECT], "Library App");
    person = new PageClient(base);
    await person.signUp("lib.user", "password123", "Library User");
  });

  /** The person follows the app's authorization URL, allows, and lands back at the app. */
  async function personVisits(authorizationUrl: string | URL): Promise<URL> {
    const u = new URL(authorizationUrl);
    expect(u.origin).to.equal(base);
    let r = await person.get(u.pathname + u.search);
    if (r.status === 200) {
      const hidden: Record<string, string> = { decision: "allow" };
      for (const m of r.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
        hidden[m[1]!] = m[2]!.replace(/&amp;/g, "&");
      r = await person.post("/authorize", hidden);
    }
    expect(r.status, r.text.slice(0, 200)).to.equal(303);
    return new URL(String(r.headers.location));
  }

  it("When the app uses openid-client (v6) via the RFC 8414 document, then it signs the person in", async () => {
    const config = await client.discovery(
      new URL(base),
      app.clientId,
      undefined,
      client.ClientSecretBasic(app.clientSecret),
      {
        algorithm: "oauth2",
        execute: [client.allowInsecureRequests],
      },
    );
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: "profile",
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    });
    const landed = await personVisits(url);
    const tokens = await client.authorizationCodeGrant(config, landed, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.token_type).to.equal("bearer");
    const res = await client.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL(`${base}/auth/user`),
      "GET",
      undefined,
      new Headers({ client_id: app.clientId }),
    );
    expect(await res.json()).to.include({ username: "lib.user", display_name: "Library User" });
  });

  it("When the app uses oauth4webapi, then it signs the person in (iss checked, client_secret_post)", async () => {
    const issuer = new URL(base);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", [oauth.allowInsecureRequests]: true }),
    );
    const c: oauth.Client = { client_id: app.clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "profile",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    }).toString();
    const landed = await personVisits(url);
    const params = oauth.validateAuthResponse(as, c, landed, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      c,
      oauth.ClientSecretPost(app.clientSecret),
      params,
      REDIRECT,
      verifier,
      { [oauth.allowInsecureRequests]: true },
    );
    const result = await oauth.processAuthorizationCodeResponse(as, c, response);
    const me = await oauth.protectedResourceRequest(
      result.access_token,
      "GET",
      new URL(`${base}/auth/user`),
      new Headers({ client_id: app.clientId }),
      null,
      { [oauth.allowInsecureRequests]: true },
    );
    expect(await me.json()).to.include({ username: "lib.user" });
  });

  it("When the app uses passport-oauth2 (with PKCE and state in the session), then it signs the person in", async () => {
    const strategy = new OAuth2Strategy(
      {
        authorizationURL: `${base}/authorize`,
        tokenURL: `${base}/token`,
        clientID: app.clientId,
        clientSecret: app.clientSecret,
        callbackURL: REDIRECT,
        scope: "profile",
        state: true,
        pkce: true,
      },
      (accessToken: string, _refresh: string, profile: unknown, done: (err: unknown, user?: unknown) => void) =>
        done(null, { accessToken, profile }),
    );
    // The one thing every passport provider strategy supplies: how to read the profile.
    strategy.userProfile = (accessToken, done) => {
      fetch(`${base}/auth/user`, { headers: { authorization: `Bearer ${accessToken}`, client_id: app.clientId } }).then(
        async (r) => done(null, await r.json()),
        (e: Error) => done(e),
      );
    };
    const session: Record<string, unknown> = {};
    // What passport's middleware does: give the strategy its actions, then call authenticate.
    const run = (query: Record<string, string>) =>
      new Promise<{ redirect?: string; user?: any }>((resolve, reject) => {
        const s = Object.create(strategy) as OAuth2Strategy & Record<string, unknown>;
        s.redirect = (url: string) => resolve({ redirect: url });
        s.success = (user: unknown) => resolve({ user });
        s.fail = (info: unknown) => reject(new Error(`fail: ${JSON.stringify(info)}`));
        s.error = (err: unknown) => reject(err);
        s.authenticate({ query, session, headers: {}, url: "/" } as never, {});
      });
    const step1 = await run({});
    const landed = await personVisits(step1.redirect!);
    const step2 = await run(Object.fromEntries(landed.searchParams));
    expect(step2.user.profile).to.include({ username: "lib.user" });
  });

  it("When the app uses simple-oauth2 (client_secret_basic), then it signs the person in", async () => {
    const oauthClient = new AuthorizationCode({
      client: { id: app.clientId, secret: app.clientSecret },
      auth: { tokenHost: base, tokenPath: "/token", authorizeHost: base, authorizePath: "/authorize" },
    });
    const url = oauthClient.authorizeURL({ redirect_uri: REDIRECT, scope: "profile", state: "simple-state" });
    const landed = await personVisits(url);
    expect(landed.searchParams.get("state")).to.equal("simple-state");
    const at = await oauthClient.getToken({ code: landed.searchParams.get("code")!, redirect_uri: REDIRECT });
    const accessToken = at.token.access_token as string;
    const r = await fetch(`${base}/auth/user`, {
      headers: { authorization: `Bearer ${accessToken}`, client_id: app.clientId },
    });
    expect(await r.json()).to.include({ username: "lib.user" });
  });
});
