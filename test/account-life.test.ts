// docs/http-api.md#account: the sessions list on /account (sign out one, everywhere else), the
// export, and deleting the account — as a person would use them (cookies, CSRF, forms), on both
// stores; deletion is checked against everything the store holds.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { enroll } from "./support/two-factor.js";
import { readyClient, refusal } from "./support/channel.js";
import type { TestNode } from "./support/nodes.js";
import {
  PageClient,
  authorize,
  csrfOf,
  multipart,
  registerApp,
  token,
  userInfo,
  type TestApp,
  signInAs,
} from "./support/pages.js";
import { redisDump } from "./support/redis.js";
import { embeddedDump } from "./support/embedded.js";

const SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";
const PASSWORD = "correct horse battery";
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000b49444154789c6360000200000500017a5eab3f0000000049454e44ae426082",
  "hex",
);

/** The session rows of /account: [public id, text]. */
function sessionRows(html: string): Array<{ id: string; text: string }> {
  const list = /<ul class="list sessions">(.*?)<\/ul>/s.exec(html)?.[1] ?? "";
  return [...list.matchAll(/<li>(.*?)<\/li>/gs)].map((m) => ({
    id: /name="session" value="([^"]+)"/.exec(m[1]!)![1]!,
    text: m[1]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " "),
  }));
}

describeBackends("Account life: sessions, export, deletion", (backend) => {
  let node: TestNode;
  beforeEach(async () => {
    node = await backend.startNode();
  });

  describe("When a user is signed in from several browsers", () => {
    it("then /account lists each (browser, address, last seen), marks this one, and signs another out at once", async () => {
      const a = new PageClient(node.url);
      const b = new PageClient(node.url);
      await a.signUp("sally", PASSWORD);
      await signInAs(b, "sally", PASSWORD, SAFARI);
      const page = await a.get("/account", { "user-agent": FIREFOX });
      const rows = sessionRows(page.text);
      expect(rows).to.have.length(2);
      const safari = rows.find((r) => r.text.includes("Safari 17 · iOS"))!;
      expect(safari, page.text).to.not.equal(undefined);
      expect(safari.text).to.contain("127.0.0.1");
      expect(safari.text).to.not.contain("this browser");
      expect(rows.filter((r) => r.text.includes("this browser"))).to.have.length(1);
      // No session id in the page: the cookie's value is nowhere.
      const sid = /^s:([^.]+)\./.exec(decodeURIComponent(b.cookies.get("sigil.sid")!))![1]!;
      expect(page.text).to.not.contain(sid);

      const r = await a.post("/account/sessions/signout", { _csrf: csrfOf(page.text), session: safari.id });
      expect(r.status).to.equal(303);
      expect(r.headers.location).to.equal("/account");
      expect((await b.get("/account")).status).to.equal(303);
      expect(sessionRows((await a.get("/account")).text)).to.have.length(1);
    });

    it("then 'sign out everywhere else' ends every other browser's session and keeps this one", async () => {
      const [a, b, c] = [new PageClient(node.url), new PageClient(node.url), new PageClient(node.url)];
      await a.signUp("evera", PASSWORD);
      await signInAs(b, "evera", PASSWORD, SAFARI);
      await signInAs(c, "evera", PASSWORD, FIREFOX);
      const r = await a.submit("/account", "/account/sessions/signout-others", {});
      expect(r.status).to.equal(303);
      expect((await a.get("/account")).status).to.equal(200);
      for (const other of [b, c]) expect((await other.get("/account")).headers.location).to.match(/^\/signin/);
      const page = await a.get("/account");
      expect(sessionRows(page.text)).to.have.length(1);
      expect(page.text).to.not.contain("/account/sessions/signout-others");
    });

    it("then signing out this browser from the list signs it out", async () => {
      const a = new PageClient(node.url);
      await a.signUp("selfie", PASSWORD);
      const page = await a.get("/account");
      const [row] = sessionRows(page.text);
      const r = await a.post("/account/sessions/signout", { _csrf: csrfOf(page.text), session: row!.id });
      expect(r.headers.location).to.equal("/signin");
      expect((await a.get("/account")).status).to.equal(303);
    });

    it("then a sign-out without its CSRF token is refused and changes nothing", async () => {
      const a = new PageClient(node.url);
      const b = new PageClient(node.url);
      await a.signUp("csrfy", PASSWORD);
      await signInAs(b, "csrfy", PASSWORD, SAFARI);
      const rows = sessionRows((await a.get("/account")).text);
      for (const row of rows)
        expect((await a.post("/account/sessions/signout", { session: row.id })).status).to.equal(403);
      expect((await a.post("/account/sessions/signout-others", {})).status).to.equal(403);
      expect((await b.get("/account")).status).to.equal(200);
    });
  });

  /** A user with a picture, a consent (openid profile) with tokens, and an app with a CUSTOM TOKEN and a live socket. */
  async function richUser(username: string) {
    const dora = new PageClient(node.url);
    await dora.signUp(username, PASSWORD, "Dora D.");
    const page = await dora.get("/account");
    const m = multipart(
      { _csrf: csrfOf(page.text) },
      { name: "picture", filename: "me.png", type: "image/png", data: PNG },
    );
    expect((await dora.postRaw("/account", m.body, m.type)).status).to.equal(303);
    // An email address (this node sends no mail: it is saved unconfirmed, and indexed for /forgot).
    await dora.confirm();
    expect((await dora.submit("/account", "/account/email", { email: `${username}@Mail.Example` })).status).to.equal(
      200,
    );
    // An app someone else owns, which dora allowed.
    const other = new PageClient(node.url);
    await other.signUp(`${username}-dev`, PASSWORD);
    const theirs: TestApp = await registerApp(other, ["https://theirs.example/cb"], "Theirs");
    const back = await authorize(dora, {
      response_type: "code",
      client_id: theirs.clientId,
      redirect_uri: theirs.redirectUri,
      scope: "openid profile offline_access",
      state: "s",
    });
    const t = await token(node.url, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      redirect_uri: theirs.redirectUri,
      client_id: theirs.clientId,
      client_secret: theirs.clientSecret,
    });
    expect(t.status, t.text).to.equal(200);
    const tokens = JSON.parse(t.text) as { access_token: string; refresh_token: string };
    // An app dora owns, with a CUSTOM TOKEN and a live socket.
    const mine = await registerApp(dora, ["https://mine.example/cb", "http://127.0.0.1/cb"], "Mine");
    const made = await dora.submit("/developers", `/developers/${mine.clientId}/tokens`, { name: "ci" });
    const custom = /class="secret custom-token">([^<]+)</.exec(made.text)![1]!;
    const socket = await readyClient(node.url, { token: custom });
    const id = (await node.opened.store.accounts.byUsername(username))!.id;
    // A passkey, as a registration leaves it (test/browser-passkeys.test.ts makes real ones).
    const passkeyId = `cred-${username}`;
    await node.opened.store.passkeys.add({
      id: passkeyId,
      userId: id,
      name: "Laptop",
      publicKey: "pQECAyYgASFYIA",
      counter: 0,
      deviceType: "singleDevice",
      backedUp: false,
      createdAt: Date.now(),
    });
    // In two groups (one of which another user is in too).
    for (const g of ["crew", "all-hands"]) {
      await node.opened.store.groups.create({ name: g, createdAt: Date.now() });
      await node.opened.store.groups.addMember(g, id);
    }
    await node.opened.store.groups.addMember("all-hands", "someone-else");
    return { dora, theirs, tokens, mine, custom, socket, id, passkeyId };
  }

  describe("When a user downloads their data", () => {
    it("then it is a JSON attachment, not cached, with the account, sessions, consents and apps, and no secret", async () => {
      const u = await richUser("exporta");
      const twoFactor = await enroll(u.dora);
      const r = await u.dora.get("/account/export");
      expect(r.status).to.equal(200);
      expect(r.headers["content-type"]).to.match(/^application\/json/);
      expect(r.headers["content-disposition"]).to.match(/^attachment; filename="sigil-exporta\.json"$/);
      expect(r.headers["cache-control"]).to.equal("no-store");
      const data = JSON.parse(r.text);
      expect(data.account).to.include({ id: u.id, username: "exporta", display_name: "Dora D." });
      expect(data.account.picture.url).to.match(new RegExp(`/pictures/${u.id}\\?v=1$`));
      expect(data.account).to.include({ email: "exporta@mail.example", email_verified: false, language: "en" });
      expect(data.sessions).to.have.length(1);
      expect(data.sessions[0]).to.have.keys([
        "id",
        "user_agent",
        "address",
        "signed_in_at",
        "last_seen_at",
        "expires_at",
      ]);
      expect(data.consents).to.deep.equal([
        { client_id: u.theirs.clientId, app_name: "Theirs", scopes: ["openid", "profile", "offline_access"] },
      ]);
      expect(data.apps).to.have.length(1);
      expect(data.apps[0]).to.include({ client_id: u.mine.clientId, name: "Mine", kind: "confidential" });
      expect(data.apps[0].redirect_uris).to.deep.equal(["https://mine.example/cb", "http://127.0.0.1/cb"]);
      expect(data.apps[0].custom_tokens).to.have.length(1);
      expect(data.apps[0].custom_tokens[0]).to.include({ name: "ci", revoked: false });
      expect(data.passkeys).to.have.length(1);
      expect(data.passkeys[0]).to.include({ id: u.passkeyId, name: "Laptop", synced: false, last_used_at: null });
      expect(r.text).to.not.contain("pQECAyYgASFYIA"); // the public key stays out
      expect(data.two_factor).to.include({ enabled: true, recovery_codes_left: 10 });
      expect(data.two_factor.enabled_at).to.match(/^\d{4}-\d\d-\d\dT/);
      expect(data.groups).to.deep.equal(["all-hands", "crew"]);
      const sealed = (await node.opened.store.twoFactor.get(u.id))!.sealedSecret;
      const user = (await node.opened.store.accounts.byId(u.id))!;
      const app = (await node.opened.store.apps.get(u.mine.clientId))!;
      for (const secret of [
        user.passwordHash,
        user.passwordHash.split("$").pop()!,
        PASSWORD,
        app.secretHash,
        u.mine.clientSecret,
        u.custom,
        u.tokens.access_token,
        u.tokens.refresh_token,
        twoFactor.secret,
        sealed,
        ...twoFactor.recovery,
      ]) {
        expect(r.text).to.not.contain(secret);
      }
      expect(r.text).to.not.match(/scrypt|secret_hash|password_hash/i);
      u.socket.close();
    });

    it("then signed out it is a redirect to sign in", async () => {
      const r = await new PageClient(node.url).get("/account/export");
      expect(r.status).to.equal(303);
      expect(r.headers.location).to.match(/^\/signin\?return_to=%2Faccount%2Fexport/);
    });
  });

  describe("When a user deletes their account", () => {
    it("then a wrong password changes nothing (and is limited like sign-in)", async () => {
      const a = new PageClient(node.url, "127.0.0.9");
      await a.signUp("wrongy", PASSWORD);
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++)
        statuses.push((await a.submit("/account", "/account/delete", { password: "nope nope nope" })).status);
      expect(statuses.slice(0, 10)).to.deep.equal(Array(10).fill(401));
      expect(statuses[10]).to.equal(429);
      const r = await a.submit("/account", "/account/delete", { password: "nope nope nope" });
      expect(r.status).to.equal(429);
      expect((await a.get("/account")).status).to.equal(200);
      expect(await node.opened.store.accounts.byUsername("wrongy")).to.not.equal(null);
    });

    it("then the wrong-password answer names the password field", async () => {
      const a = new PageClient(node.url, "127.0.0.10");
      await a.signUp("namey", PASSWORD);
      const r = await a.submit("/account", "/account/delete", { password: "nope nope nope" });
      expect(r.status).to.equal(401);
      expect(r.text).to.contain('href="#password"');
      expect(r.text).to.contain("The password is wrong.");
    });

    it("then everything about them is gone at once: sessions, tokens, the owned app's socket; the username is free", async () => {
      const u = await richUser("deleta");
      const b = new PageClient(node.url);
      await signInAs(b, "deleta", PASSWORD, SAFARI);
      await enroll(u.dora);
      const r = await u.dora.submit("/account", "/account/delete", { password: PASSWORD });
      expect(r.status).to.equal(303);
      expect(r.headers.location).to.equal("/signin");
      await u.socket.waitDisconnect(1000);
      expect((await refusal(node.url, { token: u.custom })).message).to.equal("invalid_token");
      for (const jar of [u.dora, b]) expect((await jar.get("/account")).status).to.equal(303);
      expect((await userInfo(node.url, u.tokens.access_token, u.theirs.clientId)).status).to.equal(401);
      const refreshed = await token(node.url, {
        grant_type: "refresh_token",
        refresh_token: u.tokens.refresh_token,
        client_id: u.theirs.clientId,
        client_secret: u.theirs.clientSecret,
      });
      expect(refreshed.status).to.equal(400);
      // Everything the store holds that names the user, their username or their app.
      const store = node.opened.store;
      expect(await store.accounts.byId(u.id)).to.equal(null);
      expect(await store.accounts.picture(u.id)).to.equal(null);
      expect(await store.sessions.listForUser(u.id)).to.deep.equal([]);
      expect(await store.grants.consents(u.id)).to.deep.equal([]);
      expect(await store.consentScopes.get(u.id, u.theirs.clientId)).to.equal(null);
      expect(await store.apps.listByOwner(u.id)).to.deep.equal([]);
      expect(await store.apps.get(u.mine.clientId)).to.equal(null);
      expect(await store.customTokens.list(u.mine.clientId)).to.deep.equal([]);
      expect(await store.passkeys.listForUser(u.id)).to.deep.equal([]);
      expect(await store.passkeys.byId(u.passkeyId)).to.equal(null);
      expect(await store.twoFactor.get(u.id)).to.equal(null);
      expect(await store.groups.groupsOf(u.id)).to.deep.equal([]);
      expect(await store.groups.members("all-hands")).to.deep.equal(["someone-else"]);
      {
        // Every record of the store (Redis keys and values, or the embedded store's tables).
        const dump = backend.redis ? redisDump(backend.redis) : embeddedDump(store);
        for (const needle of [u.id, "deleta", u.mine.clientId, u.passkeyId, "mail.example"]) {
          // The sign-in throttle's counters stay until their window ends, keyed by a hash (no name in them).
          const hits = dump.split("\n").filter((l) => l.includes(needle) && !l.includes("deleta-dev"));
          expect(hits, needle).to.deep.equal([]);
        }
      }
      // The name is free again.
      expect((await new PageClient(node.url).signUp("deleta", "another password 1")).status).to.equal(303);
    });

    it("then 50 deletion requests at once delete it once, with no server error", async () => {
      const a = new PageClient(node.url);
      await a.signUp("fifty", PASSWORD);
      const page = await a.get("/account");
      const csrf = csrfOf(page.text);
      const rs = await Promise.all(
        Array.from({ length: 50 }, () => a.post("/account/delete", { _csrf: csrf, password: PASSWORD })),
      );
      expect(rs.map((r) => r.status).filter((s) => s >= 500)).to.deep.equal([]);
      // The first one in deletes; the others find the account gone (to /signin), or their session
      // ended with it (a form of a session that no longer exists: 403).
      expect(rs.filter((r) => r.status === 303)).to.not.have.length(0);
      expect(rs.every((r) => r.status === 303 || r.status === 403)).to.equal(true);
      expect(await node.opened.store.accounts.byUsername("fifty")).to.equal(null);
      expect((await new PageClient(node.url).signUp("fifty", PASSWORD)).status).to.equal(303);
    });
  });
});
