// Auth.js (@auth/core), unmodified, with a generic OpenID Connect provider configured by issuer,
// client id and secret alone: it discovers Sigil, sends PKCE, state and a nonce, trades the code
// with client_secret_basic and checks the ID token with oauth4webapi. Auth.js is framework-free
// (web Request in, Response out), so the test is the app's framework: it hands Auth() each of the
// browser's requests with the browser's cookies for the app's origin, and the person's part on
// Sigil's origin (sign-in done, consent) is the page client's.
import { expect } from "chai";
import { Auth, type AuthConfig } from "@auth/core";
import { describeBackends } from "./support/backends.js";
import { PageClient, registerApp, type TestApp } from "./support/pages.js";
import { visitSigil } from "./support/rp.js";

/** The app's origin: Auth.js needs no server of its own here, only the URLs of its requests. */
const APP = "http://127.0.0.1:3000";
const CALLBACK = `${APP}/auth/callback/sigil`;

/** The browser's cookies for the app's origin, kept from each Response. */
class Jar {
  readonly cookies = new Map<string, string>();
  keep(res: Response): Response {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair!.indexOf("=");
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (value === "" || /max-age=0|expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
  header(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") } : {};
  }
}

function authConfig(base: string, app: TestApp, errors: Error[]): AuthConfig {
  return {
    // Auth.js's errors, kept for the assertions (instead of its console output).
    logger: { error: (e) => errors.push(e) },
    basePath: "/auth",
    secret: "the app's own Auth.js secret, 32+ characters long",
    trustHost: true,
    providers: [
      {
        id: "sigil",
        name: "Sigil",
        type: "oidc",
        issuer: base,
        clientId: app.clientId,
        clientSecret: app.clientSecret,
      },
    ],
    // Auth.js gives its own user a random id; the provider's subject is the account's. These two
    // callbacks (Auth.js's documented way) carry it into the session.
    callbacks: {
      jwt({ token, account }) {
        if (account) token.sigilSub = account.providerAccountId;
        return token;
      },
      session({ session, token }) {
        return { ...session, sigilSub: token.sigilSub };
      },
    },
  };
}

describeBackends("Auth.js signs a person in", (backend) => {
  let base: string;
  let app: TestApp;
  let person: PageClient;
  let config: AuthConfig;
  let jar: Jar;
  let errors: Error[];
  /** One request of the browser to the app, handled by Auth(). */
  const send = async (path: string, init: { method?: string; form?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...jar.header() };
    if (init.form) headers["content-type"] = "application/x-www-form-urlencoded";
    const req = new Request(new URL(path, APP), {
      method: init.method ?? "GET",
      headers,
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    return jar.keep(await Auth(req, config));
  };

  beforeEach(async () => {
    base = (await backend.startNode()).url;
    const dev = new PageClient(base);
    await dev.signUp("devon");
    app = await registerApp(dev, [CALLBACK], "Auth.js App");
    person = new PageClient(base);
    await person.signUp("auth.user", "password123", "Auth User");
    errors = [];
    config = authConfig(base, app, errors);
    jar = new Jar();
  });

  /** Auth.js's sign-in: its CSRF token, then POST /auth/signin/sigil; the redirect to Sigil. */
  const beginSignIn = async () => {
    const { csrfToken } = (await (await send("/auth/csrf")).json()) as { csrfToken: string };
    const res = await send("/auth/signin/sigil", {
      method: "POST",
      form: { csrfToken, callbackUrl: `${APP}/dashboard` },
    });
    expect(res.status).to.equal(302);
    return new URL(res.headers.get("location")!);
  };

  it("When the person allows, then the Auth.js session holds Sigil's sub, name and picture", async () => {
    const toSigil = await beginSignIn();
    expect(toSigil.origin + toSigil.pathname).to.equal(`${base}/authorize`);
    expect(toSigil.searchParams.get("code_challenge_method")).to.equal("S256");
    expect(toSigil.searchParams.get("redirect_uri")).to.equal(CALLBACK);
    const back = await visitSigil(person, toSigil);
    expect(back.origin + back.pathname).to.equal(CALLBACK);
    const done = await send(back.pathname + back.search);
    expect(done.status, await done.clone().text()).to.equal(302);
    expect(done.headers.get("location")).to.equal(`${APP}/dashboard`);
    const session = (await (await send("/auth/session")).json()) as {
      user: { name: string; image: string };
      sigilSub: string;
    };
    expect(session.sigilSub).to.be.a("string").and.not.equal("");
    expect(session.user).to.deep.equal({ name: "Auth User", image: `${base}/pictures/${session.sigilSub}` });
    // The picture the app would show is the person's, served by Sigil (an unknown id is a 404).
    const picture = await fetch(session.user.image);
    expect(picture.status).to.equal(200);
    expect(errors).to.deep.equal([]);
  });

  it("When the person denies, then Auth.js sends the browser back to its sign-in page with the error and there is no session", async () => {
    const toSigil = await beginSignIn();
    const back = await visitSigil(person, toSigil, "deny");
    expect(back.searchParams.get("error")).to.equal("access_denied");
    const done = await send(back.pathname + back.search);
    expect(done.status).to.equal(302);
    const to = new URL(done.headers.get("location")!);
    expect(to.pathname).to.equal("/auth/signin");
    expect(to.searchParams.get("error")).to.equal("OAuthCallbackError");
    expect(errors.map((e) => e.name)).to.deep.equal(["OAuthCallbackError"]);
    expect(await (await send("/auth/session")).json()).to.equal(null);
  });
});
