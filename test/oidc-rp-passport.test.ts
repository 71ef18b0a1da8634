// passport-openidconnect, unmodified, in an express app of its own on a second origin, signs a
// person in with configuration alone: the endpoints from Sigil's discovery document, a client id
// and secret (client_secret_post, as its node-oauth sends them), a nonce. It checks the ID token
// its own way (iss, aud, azp, exp, nonce) and reads /userinfo for the profile. The person's
// browser is played by cookie-keeping HTTP clients following each redirect: the app's /login,
// Sigil's consent page, the app's callback.
import { expect } from "chai";
import express from "express";
import session from "express-session";
import { Passport } from "passport";
import OpenIDConnectStrategy from "passport-openidconnect";
import { describeBackends } from "./support/backends.js";
import { PageClient, registerApp, type TestApp } from "./support/pages.js";
import { discovery, locationOf, serveApp, visitSigil, type RpServer } from "./support/rp.js";
import { verifyIdToken } from "./support/oidc.js";

interface SignedIn {
  issuer: string;
  uiProfile: OpenIDConnectStrategy.Profile & { _json?: Record<string, unknown> };
  idProfile: OpenIDConnectStrategy.Profile;
  idToken: string;
  accessToken: string;
}

/** The app: express + express-session + passport, with the strategy configured from discovery. */
async function startRp(base: string, register: (callback: string) => Promise<TestApp>) {
  const meta = await discovery(base);
  const passport = new Passport();
  const web = express();
  const server = await serveApp(web);
  const app = await register(`${server.url}/callback`);
  passport.use(
    "sigil",
    new OpenIDConnectStrategy(
      {
        issuer: meta.issuer,
        authorizationURL: meta.authorization_endpoint,
        tokenURL: meta.token_endpoint,
        userInfoURL: meta.userinfo_endpoint,
        clientID: app.clientId,
        clientSecret: app.clientSecret,
        callbackURL: `${server.url}/callback`,
        scope: ["profile"],
        nonce: "true",
        skipUserProfile: false,
      },
      // The nine-argument form: the /userinfo profile and the ID token's apart.
      (
        issuer: string,
        uiProfile: object,
        idProfile: object,
        _context: object,
        idToken: string | object,
        accessToken: string | object,
        _refreshToken: string,
        _params: object,
        done: OpenIDConnectStrategy.VerifyCallback,
      ) => done(null, { issuer, uiProfile, idProfile, idToken, accessToken }),
    ),
  );
  passport.serializeUser((user, done) => done(null, user));
  passport.deserializeUser((user: Express.User, done) => done(null, user));
  web.use(session({ secret: "the app's own session secret", resave: false, saveUninitialized: false }));
  web.use(passport.session());
  web.get("/login", passport.authenticate("sigil"));
  web.get("/callback", passport.authenticate("sigil", { failureRedirect: "/failed", failureMessage: true }), (_q, s) =>
    s.redirect("/me"),
  );
  web.get("/me", (req, res) => {
    if (!req.user) res.status(401).json({ error: "signed out" });
    else res.json(req.user);
  });
  web.get("/failed", (req, res) => res.json({ messages: (req.session as { messages?: string[] }).messages ?? [] }));
  return { server, app };
}

describeBackends("passport-openidconnect signs a person in", (backend) => {
  let base: string;
  let rp: RpServer | undefined;
  let app: TestApp;
  let person: PageClient;
  let browser: PageClient;
  beforeEach(async () => {
    base = (await backend.startNode()).url;
    const dev = new PageClient(base);
    await dev.signUp("devon");
    const started = await startRp(base, (callback) => registerApp(dev, [callback], "Passport App"));
    rp = started.server;
    app = started.app;
    person = new PageClient(base);
    await person.signUp("pass.user", "password123", "Passport User");
    browser = new PageClient(rp.url); // the same browser, on the app's origin
  });
  afterEach(async () => {
    await rp?.close();
    rp = undefined;
  });

  it("When the person allows, then the app holds a verified ID token and the userinfo profile", async () => {
    const toSigil = locationOf(await browser.get("/login"), rp!.url);
    expect(toSigil.searchParams.get("scope")).to.equal("openid profile");
    expect(toSigil.searchParams.get("nonce")).to.have.length.greaterThan(10);
    const back = await visitSigil(person, toSigil);
    expect(back.origin + back.pathname).to.equal(`${rp!.url}/callback`);
    const done = await browser.get(back.pathname + back.search);
    expect(done.status, done.text).to.equal(302);
    expect(done.headers.location).to.equal("/me");
    const me = await browser.get("/me");
    expect(me.status).to.equal(200);
    const user = me.json as SignedIn;
    expect(user.issuer).to.equal(base);
    // Its own checks passed; the signature is checked here against the JWKS too.
    const { claims } = await verifyIdToken(base, user.idToken, app.clientId);
    expect(claims.nonce).to.equal(toSigil.searchParams.get("nonce"));
    const names = { id: claims.sub, displayName: "Passport User", username: "pass.user" };
    expect(user.idProfile).to.deep.equal(names);
    expect(user.uiProfile).to.include(names);
    // The userinfo profile's _json is Sigil's /userinfo answer for the access token.
    expect(user.uiProfile._json).to.deep.equal({
      sub: claims.sub,
      name: "Passport User",
      preferred_username: "pass.user",
      picture: `${base}/pictures/${claims.sub}`,
    });
  });

  it("When the person denies, then the app's failure route gets access_denied and no one is signed in", async () => {
    const toSigil = locationOf(await browser.get("/login"), rp!.url);
    const back = await visitSigil(person, toSigil, "deny");
    expect(back.searchParams.get("error")).to.equal("access_denied");
    expect(back.searchParams.get("state")).to.equal(toSigil.searchParams.get("state"));
    const done = await browser.get(back.pathname + back.search);
    expect(done.headers.location).to.equal("/failed");
    expect((await browser.get("/me")).status).to.equal(401);
  });
});
