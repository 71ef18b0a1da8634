// CONTRACT §14, docs/cli.md#sigil-users-disable: `sigil users disable|enable --username U`. A disabled
// user cannot sign in by any way (password, passkey, the two-factor step), every page session of
// theirs ends, every access and refresh token stops working (invalid_grant on refresh, invalid_token
// at /auth/user and /userinfo, inactive at /introspect); enabling lets them sign in again while what
// was ended stays ended. Through the pages, the OAuth endpoints and the CLI, on both stores.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil, sigilProcess } from "./support/cli.js";
import { http } from "./support/http.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { PageClient, authorize, basic, csrfOf, registerApp, token, userInfo } from "./support/pages.js";
import { waitFor } from "./support/wait.js";
import { PASSKEY_ENV, addSoftPasskey, passkeySignIn } from "./support/passkeys.js";
import { SoftAuthenticator } from "./support/soft-authenticator.js";
import { codeAt, enroll } from "./support/two-factor.js";

const PASSWORD = "correct horse battery";
const DISABLED = "This account is disabled.";

async function signIn(c: PageClient, username: string, password = PASSWORD, lang?: string) {
  const headers: Record<string, string> = lang ? { "accept-language": lang } : {};
  const page = await c.get("/signin", headers);
  return c.post("/signin", { _csrf: csrfOf(page.text), username, password }, headers);
}

describeBackends("Disabling and enabling a user (sigil users disable|enable)", function (this: Mocha.Suite, backend) {
  this.timeout(120_000);
  let node: TestNode;
  beforeEach(async () => {
    node = await backend.startNode(PASSKEY_ENV);
  });

  // On the embedded store the command runs in this process's CLI worker (support/cli.ts): an
  // in-process command opening the DATA_DIR of this process's node can deadlock LMDB (issue #27).
  const sigil = (...args: string[]) => runSigil({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() }, ...args);

  /** A user signed in in two browsers, an app they allowed, and its access and refresh tokens. */
  async function setUp(username: string) {
    const [a, b] = [new PageClient(node.url), new PageClient(node.url)];
    expect((await a.signUp(username)).status).to.equal(303);
    expect((await signIn(b, username)).status).to.equal(303);
    const made = await sigil(
      "apps",
      "create",
      "--owner",
      username,
      "--name",
      "App",
      "--redirect-uri",
      "https://app.example/cb",
    );
    expect(made.code, made.err).to.equal(0);
    const app = { clientId: made.json.client_id as string, secret: made.json.client_secret as string };
    const tokens = async (c: PageClient) => {
      const url = await authorize(c, {
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: "https://app.example/cb",
        scope: "openid profile offline_access",
      });
      const t = await token(node.url, {
        grant_type: "authorization_code",
        code: url.searchParams.get("code")!,
        client_id: app.clientId,
        client_secret: app.secret,
        redirect_uri: "https://app.example/cb",
      });
      expect(t.status, t.text).to.equal(200);
      return { access: t.json.access_token as string, refresh: t.json.refresh_token as string };
    };
    const refresh = (refreshToken: string) =>
      token(node.url, {
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: app.clientId,
        client_secret: app.secret,
      });
    const introspect = (t: string) =>
      http(node.url, "/introspect", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: basic(app.clientId, app.secret),
        },
        body: new URLSearchParams({ token: t }).toString(),
      });
    const openIdUser = (access: string) =>
      http(node.url, "/userinfo", { headers: { authorization: `Bearer ${access}` } });
    return { app, jars: [a, b], tokens, refresh, introspect, openIdUser };
  }

  it("When an operator disables a user, then it prints {username, disabled: true}, every session and token of theirs ends, and signing in says the account is disabled", async () => {
    const { app, jars, tokens, refresh, introspect, openIdUser } = await setUp("dina");
    const t = await tokens(jars[0]!);
    expect((await userInfo(node.url, t.access, app.clientId)).status).to.equal(200);
    expect((await openIdUser(t.access)).status).to.equal(200);

    const r = await sigil("users", "disable", "--username", "Dina");
    expect(r.code, r.err).to.equal(0);
    expect(r.json).to.deep.equal({ username: "dina", disabled: true });

    for (const c of jars) expect((await c.get("/account")).status).to.equal(303);
    const refused = await refresh(t.refresh);
    expect(refused.status).to.equal(400);
    expect(refused.json.error).to.equal("invalid_grant");
    const atUser = await userInfo(node.url, t.access, app.clientId);
    expect(atUser.status).to.equal(401);
    expect(atUser.json.error).to.equal("invalid_token");
    expect((await openIdUser(t.access)).status).to.equal(401);
    expect((await introspect(t.access)).json).to.deep.equal({ active: false });
    expect((await introspect(t.refresh)).json).to.deep.equal({ active: false });

    // The right password: the page says the account is disabled (in the page's language); a wrong
    // one says only that it is wrong.
    const c = new PageClient(node.url);
    const page = await signIn(c, "dina");
    expect(page.status).to.equal(403);
    expect(page.text).to.contain(DISABLED);
    expect(c.cookies.has("sigil.sid")).to.equal(false);
    expect((await c.get("/account")).status).to.equal(303);
    const de = await signIn(new PageClient(node.url), "dina", PASSWORD, "de");
    expect(de.status).to.equal(403);
    expect(de.text).to.contain("Dieses Konto ist deaktiviert.");
    const wrong = await signIn(new PageClient(node.url), "dina", "not the password");
    expect(wrong.status).to.equal(401);
    expect(wrong.text).to.not.contain(DISABLED);
  });

  it("When a session or token outlives the disabling (made in a race with it), then it is refused all the same", async () => {
    const { app, jars, tokens, refresh, introspect, openIdUser } = await setUp("rhea");
    const t = await tokens(jars[0]!);
    // Only the mark, as a sign-in or a code exchange racing with `users disable` would leave it:
    // the session and the tokens are still stored.
    const user = (await node.opened.store.accounts.byUsername("rhea"))!;
    await node.opened.store.accounts.update(user.id, (u) => ({ ...u, disabled: true }));
    expect(await node.opened.store.sessions.listForUser(user.id)).to.have.length(2);
    for (const c of jars) expect((await c.get("/account")).status).to.equal(303);
    expect((await userInfo(node.url, t.access, app.clientId)).status).to.equal(401);
    expect((await openIdUser(t.access)).status).to.equal(401);
    expect((await introspect(t.access)).json).to.deep.equal({ active: false });
    expect((await introspect(t.refresh)).json).to.deep.equal({ active: false });
    expect((await refresh(t.refresh)).json.error).to.equal("invalid_grant");
  });

  it("When the real program disables and enables a user beside the node, then the node ends their session at once and lets them sign in after", async () => {
    const c = new PageClient(node.url);
    await c.signUp("olaf");
    const env = { SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() };
    const off = await sigilProcess(env, "users", "disable", "--username", "olaf");
    expect(off.code, off.err).to.equal(0);
    expect(off.err).to.equal("");
    expect(off.json).to.deep.equal({ username: "olaf", disabled: true });
    expect((await c.get("/account")).status).to.equal(303);
    expect((await signIn(new PageClient(node.url), "olaf")).status).to.equal(403);
    const on = await sigilProcess(env, "users", "enable", "--username", "olaf");
    expect(on.json).to.deep.equal({ username: "olaf", disabled: false });
    expect((await signIn(new PageClient(node.url), "olaf")).status).to.equal(303);
    const nobody = await runSigil(env, "users", "disable", "--username", "nobody");
    expect(nobody.code).to.equal(1);
    expect(nobody.out).to.equal("");
  });

  it("When the operator enables the user again, then they sign in and get tokens again, while the old sessions and tokens stay ended", async () => {
    const { app, jars, tokens, refresh } = await setUp("enzo");
    const old = await tokens(jars[0]!);
    expect((await sigil("users", "disable", "--username", "enzo")).code).to.equal(0);
    const r = await sigil("users", "enable", "--username", "enzo");
    expect(r.code, r.err).to.equal(0);
    expect(r.json).to.deep.equal({ username: "enzo", disabled: false });

    for (const c of jars) expect((await c.get("/account")).status).to.equal(303);
    expect((await refresh(old.refresh)).status).to.equal(400);
    expect((await userInfo(node.url, old.access, app.clientId)).status).to.equal(401);

    const c = new PageClient(node.url);
    expect((await signIn(c, "enzo")).status).to.equal(303);
    expect((await c.get("/account")).status).to.equal(200);
    const fresh = await tokens(c);
    expect((await userInfo(node.url, fresh.access, app.clientId)).status).to.equal(200);
    expect((await refresh(fresh.refresh)).status).to.equal(200);
  });

  it("When the user is unknown or not named, then it is a usage error; disabling or enabling twice answers the same", async () => {
    await new PageClient(node.url).signUp("ivo");
    const nobody = await sigil("users", "disable", "--username", "nobody");
    expect(nobody.code).to.equal(1);
    expect(nobody.err).to.contain('there is no user "nobody"');
    expect((await sigil("users", "enable", "--username", "nobody")).err).to.contain('there is no user "nobody"');
    const unnamed = await sigil("users", "disable");
    expect(unnamed.code).to.equal(1);
    expect(unnamed.err).to.contain("--username is required");
    expect((await sigil("users", "enable", "--username", "ivo")).json).to.deep.equal({
      username: "ivo",
      disabled: false,
    });
    for (let i = 0; i < 2; i++) {
      expect((await sigil("users", "disable", "--username", "ivo")).json).to.deep.equal({
        username: "ivo",
        disabled: true,
      });
    }
    expect((await signIn(new PageClient(node.url), "ivo")).status).to.equal(403);
    for (let i = 0; i < 2; i++) {
      expect((await sigil("users", "enable", "--username", "ivo")).json).to.deep.equal({
        username: "ivo",
        disabled: false,
      });
    }
    expect((await signIn(new PageClient(node.url), "ivo")).status).to.equal(303);
  });

  it("When 50 disables are sent at once, then each succeeds, and the user is disabled with every session ended", async () => {
    const { jars } = await setUp("fifi");
    const bystander = new PageClient(node.url);
    await bystander.signUp("bert");
    const user = (await node.opened.store.accounts.byUsername("fifi"))!;
    // On the embedded store one process holds the DATA_DIR's environment (support/cli.ts): the 50
    // go through the domain there, through the CLI on Redis.
    const results = backend.redis
      ? (await Promise.all(Array.from({ length: 50 }, () => sigil("users", "disable", "--username", "fifi")))).map(
          (r) => r.json as unknown,
        )
      : (
          await Promise.all(
            Array.from({ length: 50 }, () => node.server.services.accountLife.disable(user, "operator")),
          )
        ).map((u) => ({ username: u!.username, disabled: u!.disabled }));
    for (const r of results) expect(r).to.deep.equal({ username: "fifi", disabled: true });
    expect((await node.opened.store.accounts.byUsername("fifi"))!.disabled).to.equal(true);
    for (const c of jars) expect((await c.get("/account")).status).to.equal(303);
    expect(await node.opened.store.sessions.listForUser(user.id)).to.deep.equal([]);
    expect((await signIn(new PageClient(node.url), "fifi")).status).to.equal(403);
    // Another user's session is not touched.
    expect((await bystander.get("/account")).status).to.equal(200);
  });

  it("When a disabled user answers with their passkey, then no session is made and the answer says the account is disabled; enabled, the passkey signs in", async () => {
    const c = new PageClient(node.url);
    await c.signUp("pia");
    const key = new SoftAuthenticator(node.config.authUrl);
    await addSoftPasskey(c, key);
    expect((await sigil("users", "disable", "--username", "pia")).code).to.equal(0);
    const refused = await passkeySignIn(node.url, key, "127.0.0.1");
    expect(refused.status, refused.text).to.equal(403);
    expect(refused.json.error_description).to.contain(DISABLED);
    expect(String(refused.headers["set-cookie"] ?? "")).to.not.contain("sigil.sid=");
    expect((await sigil("users", "enable", "--username", "pia")).code).to.equal(0);
    const ok = await passkeySignIn(node.url, key, "127.0.0.1");
    expect(ok.status, ok.text).to.equal(200);
    expect(String(ok.headers["set-cookie"])).to.contain("sigil.sid=");
  });

  it("When a user is disabled between the password and the two-factor code, then the right code signs nobody in", async () => {
    const c = new PageClient(node.url);
    await c.signUp("toni");
    const { secret } = await enroll(c);
    const b = new PageClient(node.url);
    const first = await signIn(b, "toni");
    expect(first.status).to.equal(303);
    const second = String(first.headers.location);
    expect(second).to.match(/^\/signin\/code/);
    expect((await sigil("users", "disable", "--username", "toni")).code).to.equal(0);
    const page = await b.get(second);
    const r = await b.post(second, { _csrf: csrfOf(page.text), code: codeAt(secret, 30) });
    expect(r.status).to.equal(403);
    expect(r.text).to.contain(DISABLED);
    expect((await b.get("/account")).status).to.equal(303);
  });
});

describeBackends(
  "Disabling a user across nodes",
  (backend) => {
    it("When an operator disables a user, then another node on the same Redis refuses their session and tokens within 1 s", async () => {
      const a = await backend.startNode();
      const b = await backend.startNode();
      const onA = new PageClient(a.url);
      await onA.signUp("nora");
      const app = await registerApp(onA);
      const onB = new PageClient(b.url);
      expect((await signIn(onB, "nora")).status).to.equal(303);
      const landed = await authorize(onA, {
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        scope: "openid profile offline_access",
        response_type: "code",
      });
      const t = await token(a.url, {
        grant_type: "authorization_code",
        code: landed.searchParams.get("code")!,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: app.redirectUri,
      });
      expect(t.status, t.text).to.equal(200);
      expect((await userInfo(b.url, t.json.access_token, app.clientId)).status).to.equal(200);
      expect((await onB.get("/account")).status).to.equal(200);

      const r = await runSigil(
        { SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() },
        "users",
        "disable",
        "--username",
        "nora",
      );
      expect(r.code, r.err).to.equal(0);
      const disabledAt = Date.now();
      await waitFor(
        "node B to refuse the access token",
        async () => {
          return (await userInfo(b.url, t.json.access_token, app.clientId)).status === 401;
        },
        { ms: 1000, everyMs: 20 },
      );
      const userinfo = await http(b.url, "/userinfo", { headers: { authorization: `Bearer ${t.json.access_token}` } });
      expect(userinfo.status).to.equal(401);
      expect((await onB.get("/account")).status).to.equal(303);
      const refresh = await token(b.url, {
        grant_type: "refresh_token",
        refresh_token: t.json.refresh_token,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      });
      expect(refresh.json.error).to.equal("invalid_grant");
      expect(Date.now() - disabledAt).to.be.below(1000);
    });
  },
  ["redis"],
);
