// docs/upstream-providers.md#accounts and docs/operations.md#audit-log: what a sign-in through an
// upstream does to accounts beyond signing in. Linking and unlinking an identity are recorded
// (upstream.linked, upstream.unlinked: method the upstream's id) and shown in the user's "Recent
// activity"; a sign-up and a sign-in through it are recorded with method upstream:<id>, a failed one
// with why (never a code, state or token). An account without a password never loses its last
// way in (a link or a passkey), even to removals sent at once. Sign-ups through an upstream count against /signup's limit
// per address, and SIGNUP=invite makes no account through one.
import { expect } from "chai";
import { describeBackends, oneBackend } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, csrfOf, decodeHtml } from "./support/pages.js";
import { TestUpstream, confirmThroughUpstream, continueWith, pressContinue, usersOf } from "./support/upstream-op.js";
import type { AuditEntry } from "../src/store/port.js";
import { TestSmtp } from "./support/smtp.js";

async function records(node: TestNode, ...types: string[]): Promise<AuditEntry[]> {
  await node.server.services.audit.settled();
  const page = await node.server.services.audit.list({ limit: 200, order: "oldest" });
  return page.records.filter((r) => types.length === 0 || types.includes(r.type));
}

function setUp(
  backend: { startNode(env?: Record<string, string>): Promise<TestNode> },
  env: () => Record<string, string> = () => ({}),
) {
  const at: { up: TestUpstream; node: TestNode } = {} as never;
  beforeEach(async () => {
    at.up = await TestUpstream.start();
    at.node = await backend.startNode({ ...at.up.env(), ...env() });
    at.up.redirectUri = `${at.node.url}/upstream/corp/callback`;
  });
  afterEach(() => at.up.stop().catch(() => undefined));
  return at;
}

describeBackends("Upstream accounts: the last way in, unlinked at once", function (backend) {
  this.timeout(30_000);
  const at = setUp(backend);

  it("When an account without a password unlinks its last two links 50 times at once (25 each), then one goes and one stays", async () => {
    const { up, node } = at;
    const c = new PageClient(node.url);
    expect((await continueWith(c, up)).status).to.equal(303);
    const id = (await node.opened.store.accounts.byUsername("alice"))!.id;
    await node.opened.store.upstreamLinks.link({
      upstream: "corp",
      issuer: up.issuer,
      subject: "u-alice-2",
      userId: id,
      linkedAt: Date.now(),
    });
    await confirmThroughUpstream(c, up);
    const csrf = csrfOf((await c.get("/account")).text);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        c.post("/account/upstreams/unlink", {
          _csrf: csrf,
          issuer: up.issuer,
          subject: i % 2 ? "u-alice" : "u-alice-2",
        }),
      ),
    );
    expect(answers.filter((r) => r.status === 303)).to.have.length(1);
    for (const r of answers.filter((a) => a.status !== 303)) expect(r.status).to.be.oneOf([404, 409]);
    const left = await node.opened.store.upstreamLinks.listForUser(id);
    expect(left).to.have.length(1);
    // The one left is still the way in; the unlink is recorded once.
    up.who = { ...up.who, sub: left[0]!.subject };
    const again = new PageClient(node.url);
    expect((await continueWith(again, up)).status).to.equal(303);
    expect(decodeHtml((await again.get("/account")).text)).to.include("Alice Liddell");
    expect(await usersOf(node)).to.deep.equal(["alice"]);
    expect(await records(node, "upstream.unlinked")).to.have.length(1);
  });
});

/** A passkey of the user's, straight into the store (what it is does not matter here). */
const addPasskey = (node: TestNode, userId: string) =>
  node.opened.store.passkeys.add({
    id: "cred-alice",
    userId,
    name: "Laptop",
    publicKey: "AQID",
    counter: 0,
    deviceType: "multiDevice",
    backedUp: true,
    createdAt: Date.now(),
  });

describeBackends("Upstream accounts: the last passkey and the last link, removed at once", function (backend) {
  this.timeout(30_000);
  const at = setUp(backend);

  it("When an account without a password unlinks its link while a passkey remains, then the link goes; the passkey, its last way in, is then refused removal and stays", async () => {
    const { up, node } = at;
    const c = new PageClient(node.url);
    expect((await continueWith(c, up)).status).to.equal(303);
    const id = (await node.opened.store.accounts.byUsername("alice"))!.id;
    await addPasskey(node, id);
    await confirmThroughUpstream(c, up);
    const csrf = csrfOf((await c.get("/account")).text);
    const unlink = await c.post("/account/upstreams/unlink", { _csrf: csrf, issuer: up.issuer, subject: "u-alice" });
    expect(unlink.status).to.equal(303);
    const remove = await c.post("/account/passkeys/cred-alice/remove", { _csrf: csrf });
    expect(remove.status).to.equal(409);
    expect(decodeHtml(remove.text)).to.include("This passkey is the last way to sign in to your account");
    expect(await node.opened.store.passkeys.listForUser(id)).to.have.length(1);
  });

  it("When an account without a password removes its one passkey and unlinks its one link 50 times at once (25 each), then one goes and the other stays, refused from then on", async () => {
    const { up, node } = at;
    const c = new PageClient(node.url);
    expect((await continueWith(c, up)).status).to.equal(303);
    const id = (await node.opened.store.accounts.byUsername("alice"))!.id;
    await addPasskey(node, id);
    await confirmThroughUpstream(c, up);
    const csrf = csrfOf((await c.get("/account")).text);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2
          ? c.post("/account/passkeys/cred-alice/remove", { _csrf: csrf })
          : c.post("/account/upstreams/unlink", { _csrf: csrf, issuer: up.issuer, subject: "u-alice" }),
      ),
    );
    expect(answers.filter((r) => r.status === 303)).to.have.length(1);
    for (const r of answers.filter((a) => a.status !== 303)) expect(r.status).to.be.oneOf([404, 409]);
    const links = await node.opened.store.upstreamLinks.listForUser(id);
    const passkeys = await node.opened.store.passkeys.listForUser(id);
    expect(links.length + passkeys.length).to.equal(1);
    // The one left is refused, and the page says why.
    const last =
      links.length === 1
        ? await c.post("/account/upstreams/unlink", { _csrf: csrf, issuer: up.issuer, subject: "u-alice" })
        : await c.post("/account/passkeys/cred-alice/remove", { _csrf: csrf });
    expect(last.status).to.equal(409);
    expect(decodeHtml(last.text)).to.include("the last way to sign in to your account");
    expect(
      (await node.opened.store.upstreamLinks.listForUser(id)).length +
        (await node.opened.store.passkeys.listForUser(id)).length,
    ).to.equal(1);
  });
});

describeBackends(
  "Upstream accounts: the audit log and the security mails",
  function (backend) {
    this.timeout(30_000);
    let smtp: TestSmtp;
    before(async () => {
      smtp = await TestSmtp.start();
    });
    after(() => smtp.close());
    const at = setUp(backend, () => ({ SMTP_URL: smtp.url, MAIL_FROM: "no-reply@sigil.example" }));

    it("When someone signs up through the upstream, links a second identity and unlinks the first, then each is recorded with the upstream, their Recent activity shows it, and their confirmed address hears of it", async () => {
      const { up, node } = at;
      const c = new PageClient(node.url);
      const back = await up.signInThere(await pressContinue(c));
      expect((await c.get(back.pathname + back.search)).status).to.equal(303);
      const id = (await node.opened.store.accounts.byUsername("alice"))!.id;
      // Their address, confirmed (as through /account): the security mails go there.
      await node.opened.store.accounts.update(id, (u) => ({ ...u, email: "alice@home.example", emailVerified: true }));
      await confirmThroughUpstream(c, up);
      // Another identity at the same upstream (the page offers "Add" only for an upstream not linked
      // yet; the form's request is the same).
      up.who = { ...up.who, sub: "u-alice-work", email: "alice@work.example" };
      const link = async () => {
        const there = await up.signInThere(await pressContinue(c, "/account", "/upstream/corp?link=1", false));
        return c.get(there.pathname + there.search);
      };
      expect((await link()).status).to.equal(303);
      // Linking it again changes nothing, so records nothing.
      expect((await link()).status).to.equal(303);
      const html = (await c.get("/account")).text;
      const unlink = await c.post("/account/upstreams/unlink", {
        _csrf: csrfOf(html),
        issuer: up.issuer,
        subject: "u-alice",
      });
      expect(unlink.status).to.equal(303);
      const linkedMail = await smtp.next("alice@home.example");
      expect(linkedMail.subject).to.equal("A sign-in service was linked to your Sigil account");
      expect(linkedMail.text).to.include("Corp SSO was linked to the Sigil account alice");
      const unlinkedMail = await smtp.next("alice@home.example", 1);
      expect(unlinkedMail.subject).to.equal("A sign-in service was unlinked from your Sigil account");
      expect(unlinkedMail.text).to.include("Corp SSO was unlinked from the Sigil account alice");

      const got = await records(node);
      const mine = got.filter((r) => r.user_id === id);
      expect(mine.map((r) => [r.type, r.method])).to.deep.equal([
        ["signup", "upstream:corp"],
        ["signin.succeeded", "upstream:corp"],
        ["upstream.linked", "corp"],
        ["upstream.unlinked", "corp"],
      ]);
      for (const r of mine) {
        expect(r.actor).to.deep.equal({ kind: "user", id });
        expect(r.username).to.equal(r.type === "signin.succeeded" ? undefined : "alice");
      }
      // Never the upstream's code or state, nor its client secret.
      const all = JSON.stringify(got);
      for (const secret of [
        back.searchParams.get("code")!,
        back.searchParams.get("state")!,
        up.env().UPSTREAM_CORP_CLIENT_SECRET!,
      ])
        expect(all).to.not.include(secret);
      // The user's own activity says so, newest first, in their language.
      const activity = decodeHtml((await c.get("/account/activity")).text);
      expect(activity).to.include("Sign-in service unlinked").and.include("Sign-in service linked");
      expect(activity.indexOf("Sign-in service unlinked")).to.be.below(activity.indexOf("Sign-in service linked"));
      c.cookies.set("lang", "de");
      const german = decodeHtml((await c.get("/account/activity")).text);
      expect(german).to.include("Anmeldedienst getrennt").and.include("Anmeldedienst verknüpft");
    });

    it("When a sign-in through the upstream fails (refused there, an answer not to be trusted, a disabled account), then each is a signin.failed with why; a callback without a flow records nothing", async () => {
      const { up, node } = at;
      // The person said no at the upstream: it comes back with an error.
      const c = new PageClient(node.url);
      await pressContinue(c);
      const refused = await c.get("/upstream/corp/callback?error=access_denied&state=x");
      expect(refused.status).to.equal(403);
      // An ID token signed with a key the upstream does not publish.
      up.tamper = "signature";
      expect((await continueWith(new PageClient(node.url), up)).status).to.equal(400);
      up.tamper = undefined;
      // A callback nobody started (replayed, forged): not recorded.
      expect((await new PageClient(node.url).get("/upstream/corp/callback?code=x&state=y")).status).to.equal(400);
      // A disabled account.
      expect((await continueWith(new PageClient(node.url), up)).status).to.equal(303);
      const user = (await node.opened.store.accounts.byUsername("alice"))!;
      await node.opened.store.accounts.update(user.id, (u) => ({ ...u, disabled: true }));
      const disabled = await continueWith(new PageClient(node.url), up);
      expect(disabled.status).to.equal(403);

      const failed = await records(node, "signin.failed");
      expect(failed.map((r) => [r.reason, r.method, r.user_id])).to.deep.equal([
        ["upstream_refused", "upstream:corp", undefined],
        ["upstream_invalid", "upstream:corp", undefined],
        ["disabled", "upstream:corp", user.id],
      ]);
      expect(failed.every((r) => typeof r.address === "string" && typeof r.request_id === "string")).to.equal(true);
    });
  },
  oneBackend("lmdb"),
);

describeBackends("Upstream accounts: the sign-up policy", function (backend) {
  this.timeout(60_000);
  const at = setUp(backend);

  it("When 50 people sign up through the upstream from one address at once, then /signup's limit per address holds (30 accounts, the rest 429), and /signup is refused after them; a linked identity still signs in", async () => {
    const { up, node } = at;
    const browsers = Array.from({ length: 50 }, () => new PageClient(node.url));
    const backs: URL[] = [];
    for (const [i, b] of browsers.entries()) {
      up.who = { sub: `u-${i}`, preferred_username: `person${i}`, name: `Person ${i}` };
      backs.push(await up.signInThere(await pressContinue(b)));
    }
    const answers = await Promise.all(browsers.map((b, i) => b.get(backs[i]!.pathname + backs[i]!.search)));
    expect(answers.filter((r) => r.status === 303)).to.have.length(30);
    const throttled = answers.filter((r) => r.status !== 303);
    for (const r of throttled) {
      expect(r.status).to.equal(429);
      expect(Number(r.headers["retry-after"])).to.be.greaterThan(0);
    }
    expect(await usersOf(node)).to.have.length(30);
    expect(await records(node, "signup")).to.have.length(30);
    // The same limiter as /signup: its form is refused too.
    const form = new PageClient(node.url);
    const signup = await form.post("/signup", {
      _csrf: csrfOf((await form.get("/signup")).text),
      username: "latecomer",
      password: "correct horse battery",
    });
    expect(signup.status).to.equal(429);
    expect(Number(signup.headers["retry-after"])).to.be.greaterThan(0);
    expect(await usersOf(node)).to.have.length(30);
    // Someone whose identity is linked signs in: that is no sign-up.
    const signedUp = answers.findIndex((r) => r.status === 303);
    up.who = { sub: `u-${signedUp}`, preferred_username: `person${signedUp}`, name: `Person ${signedUp}` };
    expect((await continueWith(new PageClient(node.url), up)).status).to.equal(303);
  });
});

describeBackends(
  "Upstream accounts: sign-up by invitation",
  function (backend) {
    this.timeout(30_000);
    const at = setUp(backend, () => ({ SIGNUP: "invite" }));

    it("When sign-up is by invitation, then a first sign-in through the upstream makes nothing and says to link it from an account; a linked identity signs in", async () => {
      const { up, node } = at;
      const r = await continueWith(new PageClient(node.url), up);
      expect(r.status).to.equal(403);
      expect(decodeHtml(r.text)).to.include("new accounts cannot be made here now");
      expect(await usersOf(node)).to.deep.equal([]);
      expect(await records(node, "signup")).to.deep.equal([]);
      await node.opened.store.accounts.create({
        id: "u-bob",
        username: "bob",
        displayName: "Bob",
        passwordHash: "",
        createdAt: Date.now(),
      });
      await node.opened.store.upstreamLinks.link({
        upstream: "corp",
        issuer: up.issuer,
        subject: up.who.sub,
        userId: "u-bob",
        linkedAt: Date.now(),
      });
      const c = new PageClient(node.url);
      expect((await continueWith(c, up)).status).to.equal(303);
      expect(decodeHtml((await c.get("/account")).text)).to.include("bob");
    });
  },
  oneBackend("lmdb"),
);
