// Unmodified relying-party libraries sign a person in over OpenID Connect with configuration
// alone (docs/http-api.md#openid-connect): discovery, PKCE, nonce, and their own validation of the
// ID token against the JWKS. The person's part (sign in, consent) is played by the page client.
import { expect } from "chai";
import * as oauth from "oauth4webapi";
import * as client from "openid-client";
import { describeBackends } from "./support/backends.js";
import { PageClient, authorize, registerApp, type TestApp } from "./support/pages.js";

const REDIRECT = "http://127.0.0.1:8765/callback";

describeBackends("OpenID Connect relying parties", (backend) => {
  let base: string;
  let app: TestApp;
  let person: PageClient;
  let personId: string;
  beforeEach(async () => {
    base = (await backend.startNode()).url;
    const dev = new PageClient(base);
    await dev.signUp("devon");
    app = await registerApp(dev, [REDIRECT], "OIDC App");
    person = new PageClient(base);
    await person.signUp("oidc.user", "password123", "OIDC User");
    personId = "";
  });

  /** The person follows the authorization URL (signing in is done; allows when asked). */
  const personVisits = async (url: URL) => {
    expect(url.origin).to.equal(base);
    return authorize(person, Object.fromEntries(url.searchParams));
  };

  it("When the app uses openid-client (v6) with discovery, PKCE and a nonce, then it validates the ID token and reads userinfo", async () => {
    const config = await client.discovery(
      new URL(base),
      app.clientId,
      undefined,
      client.ClientSecretBasic(app.clientSecret),
      {
        execute: [client.allowInsecureRequests],
      },
    );
    expect(config.serverMetadata().issuer).to.equal(base);
    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: "openid profile email",
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    });
    const landed = await personVisits(url);
    const tokens = await client.authorizationCodeGrant(config, landed, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims).to.include({
      iss: base,
      aud: app.clientId,
      nonce,
      name: "OIDC User",
      preferred_username: "oidc.user",
    });
    expect(claims.amr).to.deep.equal(["pwd"]);
    expect(claims.auth_time).to.be.a("number");
    expect(tokens.scope).to.equal("openid profile email");
    personId = claims.sub;
    const info = await client.fetchUserInfo(config, tokens.access_token, personId);
    expect(info).to.deep.equal({
      sub: personId,
      name: "OIDC User",
      preferred_username: "oidc.user",
      picture: `${base}/pictures/${personId}`,
    });
    // sub is the id of /auth/user (§3), which the same token still reads.
    const me = await fetch(`${base}/auth/user`, {
      headers: { authorization: `Bearer ${tokens.access_token}`, client_id: app.clientId },
    });
    expect((await me.json()).id).to.equal(personId);
  });

  it("When the app uses oauth4webapi (OIDC, client_secret_post), then it validates the ID token and reads userinfo", async () => {
    const issuer = new URL(base);
    const opts = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, opts));
    const c: oauth.Client = { client_id: app.clientId };
    const auth = oauth.ClientSecretPost(app.clientSecret);
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "openid profile",
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    }).toString();
    const landed = await personVisits(url);
    const params = oauth.validateAuthResponse(as, c, landed);
    const response = await oauth.authorizationCodeGrantRequest(as, c, auth, params, REDIRECT, verifier, opts);
    const result = await oauth.processAuthorizationCodeResponse(as, c, response, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    expect(claims).to.include({ iss: base, aud: app.clientId, nonce, preferred_username: "oidc.user" });
    // oauth4webapi checks the signature only when asked: against the JWKS.
    await oauth.validateApplicationLevelSignature(as, response, opts);
    const info = await oauth.userInfoRequest(as, c, result.access_token, opts);
    const body = await oauth.processUserInfoResponse(as, c, claims.sub, info);
    expect(body).to.include({ sub: claims.sub, name: "OIDC User" });
  });
});
