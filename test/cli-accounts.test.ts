// docs/cli.md: `sigil users reset-password` and `sigil users delete` (in this process, support/cli.ts)
// against a private Redis, or beside the node on the embedded store's DATA_DIR, with the node
// showing what they did.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil } from "./support/cli.js";
import { embeddedDump } from "./support/embedded.js";
import { redisDump } from "./support/redis.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { readyClient, refusal } from "./support/channel.js";
import { PageClient, authorize, csrfOf, token } from "./support/pages.js";
import { TestSmtp, linkOf } from "./support/smtp.js";
import { enroll } from "./support/two-factor.js";

describeBackends("CLI: users reset-password and delete", function (this: Mocha.Suite, backend) {
  this.timeout(120_000);
  let node: TestNode;
  beforeEach(async () => {
    node = await backend.startNode();
  });

  const sigil = (...args: string[]) => runSigil({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() }, ...args);

  async function signIn(c: PageClient, username: string, password: string) {
    const page = await c.get("/signin");
    return (await c.post("/signin", { _csrf: csrfOf(page.text), username, password })).status;
  }

  /** A user (CLI) signed in in two browsers, with an app (CLI) they allowed and a refresh token. */
  async function setUp(username: string) {
    expect((await sigil("users", "create", "--username", username, "--password", "old password 1")).code).to.equal(0);
    const app = await sigil(
      "apps",
      "create",
      "--owner",
      username,
      "--name",
      "Own",
      "--redirect-uri",
      "https://own.example/cb",
    );
    expect(app.code, app.err).to.equal(0);
    const [a, b] = [new PageClient(node.url), new PageClient(node.url)];
    for (const c of [a, b]) expect(await signIn(c, username, "old password 1")).to.equal(303);
    const url = await authorize(a, {
      response_type: "code",
      client_id: app.json.client_id,
      redirect_uri: "https://own.example/cb",
      scope: "openid offline_access",
    });
    const t = await token(node.url, {
      grant_type: "authorization_code",
      code: url.searchParams.get("code")!,
      client_id: app.json.client_id,
      client_secret: app.json.client_secret,
      redirect_uri: "https://own.example/cb",
    });
    expect(t.status, t.text).to.equal(200);
    const refresh = () =>
      token(node.url, {
        grant_type: "refresh_token",
        refresh_token: t.json.refresh_token,
        client_id: app.json.client_id,
        client_secret: app.json.client_secret,
      });
    return { app: app.json, jars: [a, b], refresh };
  }

  it("When an operator resets a password, then it prints the username, every session ends and refresh tokens are refused", async () => {
    const { jars, refresh } = await setUp("rita");
    const r = await sigil("users", "reset-password", "--username", "Rita", "--password", "new password 2");
    expect(r.code, r.err).to.equal(0);
    expect(r.json).to.deep.equal({ username: "rita" });
    for (const c of jars) expect((await c.get("/account")).status).to.equal(303);
    expect((await refresh()).status).to.equal(400);
    expect(await signIn(new PageClient(node.url), "rita", "old password 1")).to.equal(401);
    expect(await signIn(new PageClient(node.url), "rita", "new password 2")).to.equal(303);
  });

  it("When the new password breaks a rule or the user is unknown, then it says so and changes nothing", async () => {
    const { jars } = await setUp("rudi");
    const short = await sigil("users", "reset-password", "--username", "rudi", "--password", "short");
    expect(short.code).to.equal(1);
    expect(short.err).to.contain("Passwords are 8 to 128 characters.");
    const nobody = await sigil("users", "reset-password", "--username", "nobody", "--password", "long enough 1");
    expect(nobody.code).to.equal(1);
    expect(nobody.err).to.contain('there is no user "nobody"');
    expect((await sigil("users", "delete")).err).to.contain("--username is required");
    for (const c of jars) expect((await c.get("/account")).status).to.equal(200);
  });

  it("When an operator deletes a user, then it prints the username and nothing of the user or their app is left", async () => {
    const { app, jars, refresh } = await setUp("dana");
    const made = await sigil("tokens", "create", "--app", app.client_id, "--name", "ops");
    expect(made.code, made.err).to.equal(0);
    const socket = await readyClient(node.url, { token: made.json.token });
    const userId = (await node.opened.store.accounts.byUsername("dana"))!.id;
    const r = await sigil("users", "delete", "--username", "dana");
    expect(r.code, r.err).to.equal(0);
    expect(r.json).to.deep.equal({ username: "dana" });
    await socket.waitDisconnect(1000);
    expect((await refusal(node.url, { token: made.json.token })).message).to.equal("invalid_token");
    for (const c of jars) expect((await c.get("/account")).status).to.equal(303);
    // The app is gone with its owner: its client authentication fails.
    expect((await refresh()).status).to.equal(401);
    // Every record left in the store (Redis keys and values, or every table of the embedded store):
    // none names the user, their username or their app (but Redis's throttle counters, windows of
    // at most 15 minutes kept on purpose: docs/http-api.md#account; the refresh attempt above made one).
    const dump = (backend.redis ? redisDump(backend.redis) : embeddedDump(node.opened.store))
      .split("\n")
      .filter((l) => l && !l.startsWith("sigil:rl:"));
    for (const needle of ["dana", userId, app.client_id]) {
      expect(
        dump.filter((l) => l.includes(needle)),
        needle,
      ).to.deep.equal([]);
    }
    expect((await sigil("users", "delete", "--username", "dana")).err).to.contain('there is no user "dana"');
    expect((await sigil("users", "create", "--username", "dana", "--password", "another one 1")).code).to.equal(0);
  });

  describe("When the user has a confirmed email address", () => {
    let smtp: TestSmtp;
    before(async () => {
      smtp = await TestSmtp.start();
    });
    after(() => smtp.close());

    /** The command with the test's SMTP server as SMTP_URL. */
    const sigilMailing = (...args: string[]) =>
      runSigil({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env(), SMTP_URL: smtp.url }, ...args);

    it("then each operator's change is mailed to it, saying the operator made it, before the command ends", async () => {
      await backend.closeNodes();
      node = await backend.startNode({ SMTP_URL: smtp.url, MAIL_FROM: "no-reply@sigil.example" });
      const c = new PageClient(node.url);
      const signup = await c.submit("/signup", "/signup", {
        username: "olga",
        password: "old password 1",
        email: "olga@mail.example",
      });
      expect(signup.status).to.equal(303);
      const confirm = linkOf(await smtp.next("olga@mail.example"));
      expect((await c.get(confirm.pathname + confirm.search)).status).to.equal(200);
      await enroll(c, "old password 1");
      await smtp.next("olga@mail.example", 1);
      const expectMail = (n: number, subject: string) => {
        const mail = smtp.mails.filter((m) => m.to === "olga@mail.example")[n];
        expect(mail?.subject, `mail ${n}`).to.equal(subject);
        expect(mail!.text).to.include("By: the operator of Sigil (command line)");
      };
      const reset = await sigilMailing("users", "reset-password", "--username", "olga", "--password", "new password 2");
      expect(reset.code, reset.err).to.equal(0);
      expectMail(2, "The password of your Sigil account was changed");
      const off = await sigilMailing("users", "reset-2fa", "--username", "olga");
      expect(off.code, off.err).to.equal(0);
      expectMail(3, "Two-factor sign-in was turned off for your Sigil account");
      const gone = await sigilMailing("users", "delete", "--username", "olga");
      expect(gone.code, gone.err).to.equal(0);
      expectMail(4, "Your Sigil account was deleted");
    });
  });
});
