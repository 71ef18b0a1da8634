// RP-initiated logout (docs/http-api.md#logout), on both stores: with a valid id_token_hint the
// session ends and the browser returns to the app's registered URL with state; without one the
// person is asked first and the end is a signed-out page with a link back to the app, never a
// redirect; an unregistered destination never redirects.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { PageClient, csrfOf, decodeHtml, type TestApp } from "./support/pages.js";
import { signInWith } from "./support/oidc.js";

const REDIRECT = "https://rp.example/cb";
const AFTER = "https://rp.example/signed-out";

describeBackends("OpenID Connect logout", (backend) => {
  let base: string;
  let app: TestApp;
  let alice: PageClient;
  let idToken: string;
  beforeEach(async () => {
    base = (await backend.startNode()).url;
    const dev = new PageClient(base);
    await dev.signUp("devon");
    const r = await dev.submit("/developers", "/developers", {
      name: "Logout RP",
      redirect_uri: REDIRECT,
      post_logout_redirect_uri: `${AFTER}\nhttps://rp.example/bye`,
    });
    expect(r.status).to.equal(201);
    expect(r.text).to.include(AFTER);
    app = {
      clientId: /class="client-id">([^<]+)</.exec(r.text)![1]!,
      clientSecret: /class="secret client-secret">([^<]+)</.exec(r.text)![1]!,
      redirectUri: REDIRECT,
    };
    alice = new PageClient(base);
    await alice.signUp("alice");
    idToken = (await signInWith(base, alice, app, { scope: "openid" })).json.id_token;
  });

  const logout = (params: Record<string, string>) => `/logout?${new URLSearchParams(params)}`;
  const signedIn = async (p: PageClient) => (await p.get("/account")).status === 200;
  const hiddenOf = (html: string) => {
    const hidden: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
      hidden[m[1]!] = decodeHtml(m[2]!);
    return hidden;
  };
  /** The signed-out page's link back to the app (its href), or undefined when it has none. */
  const linkBack = (html: string) => {
    const m = /<a class="back-to-app" href="([^"]*)"/.exec(html);
    return m ? decodeHtml(m[1]!) : undefined;
  };

  it("When the app sends a valid id_token_hint and a registered URL, then the session ends and the browser goes there with state", async () => {
    const r = await alice.get(logout({ id_token_hint: idToken, post_logout_redirect_uri: AFTER, state: "bye-1" }));
    expect(r.status).to.equal(303);
    expect(r.headers.location).to.equal(`${AFTER}?state=bye-1`);
    expect(await signedIn(alice)).to.equal(false);
  });

  it("When the hint is missing, then the person is asked first, and signing out (POST with CSRF) shows a link to the URL, never a redirect", async () => {
    const page = await alice.get(logout({ client_id: app.clientId, post_logout_redirect_uri: AFTER, state: "s2" }));
    expect(page.status).to.equal(200);
    expect(page.text).to.include("Logout RP");
    expect(await signedIn(alice)).to.equal(true);
    const badCsrf = await alice.post("/logout", {
      _csrf: "forged",
      client_id: app.clientId,
      post_logout_redirect_uri: AFTER,
    });
    expect(badCsrf.status).to.equal(403);
    expect(await signedIn(alice)).to.equal(true);
    // A form POST from the app without a hint (and so without _csrf) only asks, as the GET does.
    const posted = await alice.post("/logout", { client_id: app.clientId, post_logout_redirect_uri: AFTER });
    expect(posted.status).to.equal(200);
    expect(posted.text).to.include('action="/logout"');
    expect(await signedIn(alice)).to.equal(true);
    const r = await alice.post("/logout", { ...hiddenOf(page.text), _csrf: csrfOf(page.text) });
    expect(r.status).to.equal(200);
    expect(r.headers.location).to.equal(undefined);
    expect(r.text).to.include("signed out");
    expect(linkBack(r.text)).to.equal(`${AFTER}?state=s2`);
    expect(r.text).to.include("Return to");
    expect(await signedIn(alice)).to.equal(false);
  });

  it("When nobody is signed in and there is no valid hint, then a registered URL is a link on the signed-out page, never a redirect", async () => {
    const stranger = new PageClient(base);
    const requests: Array<Record<string, string>> = [
      { client_id: app.clientId, post_logout_redirect_uri: AFTER, state: "s3" },
      { client_id: app.clientId, post_logout_redirect_uri: AFTER, state: "s3", id_token_hint: `${idToken}x` },
    ];
    for (const params of requests) {
      for (const r of [await stranger.get(logout(params)), await stranger.post("/logout", params)]) {
        expect(r.status).to.equal(200);
        expect(r.headers.location).to.equal(undefined);
        expect(linkBack(r.text)).to.equal(`${AFTER}?state=s3`);
      }
    }
  });

  it("When the app registered a homepage and names no URL, then the signed-out page links to the homepage", async () => {
    const dev = new PageClient(base);
    await dev.signUp("hanna");
    const r = await dev.submit("/developers", "/developers", {
      name: "Home RP",
      redirect_uri: REDIRECT,
      homepage: "https://home.example/start",
    });
    expect(r.status).to.equal(201);
    const clientId = /class="client-id">([^<]+)</.exec(r.text)![1]!;
    const out = await new PageClient(base).get(logout({ client_id: clientId }));
    expect(out.status).to.equal(200);
    expect(linkBack(out.text)).to.equal("https://home.example/start");
    expect(out.text).to.include("home.example");
    // No app named: no link.
    expect(linkBack((await new PageClient(base).get("/logout")).text)).to.equal(undefined);
  });

  it("When the app sends the logout request as a form POST with a valid hint, then it is answered as the GET", async () => {
    const r = await alice.post("/logout", { id_token_hint: idToken, post_logout_redirect_uri: AFTER, state: "p" });
    expect(r.status).to.equal(303);
    expect(r.headers.location).to.equal(`${AFTER}?state=p`);
    expect(await signedIn(alice)).to.equal(false);
  });

  it("When the hint is forged or names someone else, then the person is asked instead", async () => {
    const forged = await alice.get(
      logout({ id_token_hint: `${idToken.slice(0, -3)}abc`, post_logout_redirect_uri: AFTER }),
    );
    expect(forged.status).to.equal(400); // no app is known without a valid hint or client_id
    const asked = await alice.get(logout({ id_token_hint: `${idToken.slice(0, -3)}abc` }));
    expect(asked.status).to.equal(200);
    expect(asked.text).to.include('action="/logout"');
    const bob = new PageClient(base);
    await bob.signUp("bob");
    const other = await bob.get(logout({ id_token_hint: idToken, post_logout_redirect_uri: AFTER }));
    expect(other.status).to.equal(200);
    expect(await signedIn(bob)).to.equal(true);
    // Bob agrees: signed out, with a link back (the hint named Alice, so no redirect).
    const r = await bob.post("/logout", { ...hiddenOf(other.text), _csrf: csrfOf(other.text) });
    expect(r.status).to.equal(200);
    expect(r.headers.location).to.equal(undefined);
    expect(linkBack(r.text)).to.equal(AFTER);
    expect(await signedIn(bob)).to.equal(false);
  });

  it("When the destination is not registered (or not exactly), then a 400 page, no redirect, and the session stays", async () => {
    for (const uri of [`${AFTER}/`, "https://evil.example/", REDIRECT]) {
      const r = await alice.get(logout({ id_token_hint: idToken, post_logout_redirect_uri: uri }));
      expect(r.status, uri).to.equal(400);
      expect(r.headers.location).to.equal(undefined);
    }
    expect(await signedIn(alice)).to.equal(true);
  });

  it("When nobody is signed in, then a valid request just goes to the URL; without one, a signed-out page", async () => {
    const stranger = new PageClient(base);
    const r = await stranger.get(logout({ id_token_hint: idToken, post_logout_redirect_uri: AFTER }));
    expect(r.status).to.equal(303);
    expect(r.headers.location).to.equal(AFTER);
    const plain = await stranger.get("/logout");
    expect(plain.status).to.equal(200);
    expect(plain.text).to.include("signed out");
  });
});
