// docs/http-api.md#confirming-its-you: every change to how an account is signed in to or recovered
// needs a proof (password, passkey, or with two-factor on a code) made in this browser within
// REAUTH_MAX_AGE. A valid session and CSRF token alone change nothing: the pages go to /confirm and
// come back, the JSON endpoints answer 401 reauth_required. Through the real pages and endpoints,
// on both stores; the store is read afterwards to see that nothing moved.
import { expect } from "chai";
import { describeBackends, oneBackend } from "./support/backends.js";
import { expectContractError } from "./support/fuzz.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, csrfOf, decodeHtml } from "./support/pages.js";
import { PASSKEY_ENV, addSoftPasskey, postCeremony } from "./support/passkeys.js";
import { SoftAuthenticator } from "./support/soft-authenticator.js";
import { codeAt, enroll } from "./support/two-factor.js";

const PASSWORD = "correct horse battery";
const cookieOf = (c: PageClient) => [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the sensitive actions could change, read from the store. */
async function accountState(node: TestNode, username: string) {
  const store = node.opened.store;
  const user = (await store.accounts.byUsername(username))!;
  return {
    email: user.email ?? null,
    passwordHash: user.passwordHash,
    passkeys: (await store.passkeys.listForUser(user.id)).map((p) => p.id).sort(),
    twoFactor: await store.twoFactor.get(user.id),
    recoveryLeft: await store.twoFactor.recoveryCodesLeft(user.id),
  };
}

/** A two-factor set-up page's pending value and secret. */
function setupOf(html: string): { pending: string; secret: string } {
  const pending = decodeHtml(/name="pending" value="([^"]+)"/.exec(html)![1]!);
  const secret = /class="secret totp-secret">([^<]+)</.exec(html)![1]!.replace(/\s/g, "");
  return { pending, secret };
}

/**
 * Sends every sensitive request as `c` (session and CSRF valid) and checks that none ran: each page
 * goes to /confirm (and back to /account), each JSON endpoint answers 401 reauth_required.
 */
async function expectEveryActionRefused(c: PageClient, extra: { passkeyId: string; pending: string }) {
  const confirmAndBack = `/confirm?${new URLSearchParams({ return_to: "/account" })}`;
  const forms: Array<[string, Record<string, string>]> = [
    ["/account/email", { email: "mallory@example.org" }],
    ["/account/password", { new_password: "mallory's own password" }],
    ["/account/2fa/setup", {}],
    ["/account/2fa/setup", { replace: "1" }],
    ["/account/2fa/recovery", {}],
    ["/account/2fa/confirm", { pending: extra.pending, code: "123456" }],
    [`/account/passkeys/${extra.passkeyId}/remove`, {}],
  ];
  for (const [path, fields] of forms) {
    const r = await c.submit("/account", path, fields);
    expect(r.status, `${path}: ${r.text.slice(0, 200)}`).to.equal(303);
    expect(r.headers.location, path).to.equal(confirmAndBack);
  }
  const csrf = csrfOf((await c.get("/account")).text);
  for (const [path, body] of [
    ["/account/passkeys/options", {}],
    ["/account/passkeys", { name: "Mallory", response: { id: "abc", response: {} } }],
  ] as const) {
    const r = await postCeremony(c.base, path, body, { csrf, cookie: cookieOf(c) });
    expect(r.status, `${path}: ${r.text}`).to.equal(401);
    expectContractError(r, path);
    expect(r.json.error).to.equal("reauth_required");
  }
}

describeBackends(
  "Confirm it's you (step-up)",
  (backend) => {
    it("When a signed-in session with a valid CSRF token but no proof sends every sensitive form and JSON request, then nothing changes; after confirming with the password the same requests work, and the typed email comes back on the form", async function () {
      this.timeout(60_000);
      const node = await backend.startNode(PASSKEY_ENV);
      const c = new PageClient(node.url);
      expect((await c.signUp("vera", PASSWORD)).status).to.equal(303);
      // A passkey and a set-up begun while confirmed, from another browser of vera's: the targets.
      const other = new PageClient(node.url);
      expect((await other.submit("/signin", "/signin", { username: "vera", password: PASSWORD })).status).to.equal(303);
      const passkeyId = await addSoftPasskey(other, new SoftAuthenticator(node.config.authUrl));
      const setup = setupOf((await other.submit("/account", "/account/2fa/setup", {})).text);
      const before = await accountState(node, "vera");

      await expectEveryActionRefused(c, { passkeyId, pending: setup.pending });
      // The right code for the pending set-up changes nothing either.
      const withCode = await c.submit("/account", "/account/2fa/confirm", {
        pending: setup.pending,
        code: codeAt(setup.secret),
      });
      expect(withCode.status).to.equal(303);
      expect(await accountState(node, "vera")).to.deep.equal(before);

      // /confirm: a wrong password is refused and keeps nothing; the right one goes back to /account.
      const page = await c.get("/confirm?return_to=%2Faccount");
      expect(page.status).to.equal(200);
      const wrong = await c.post("/confirm?return_to=%2Faccount", {
        _csrf: csrfOf(page.text),
        password: "nope nope nope",
      });
      expect(wrong.status).to.equal(401);
      expect(wrong.text).to.contain("The password is wrong.");
      expect((await c.submit("/account", "/account/email", { email: "x@example.org" })).status).to.equal(303);
      const right = await c.confirm();
      expect(right.headers.location).to.equal("/account");
      // The email typed before confirming (a draft kept on the session) is on the form again, once.
      const back = await c.get("/account");
      expect(back.text).to.match(/name="email"[^>]*value="x@example.org"/);
      expect((await c.get("/account")).text).to.not.contain("x@example.org");

      const changed = await c.submit("/account", "/account/email", { email: "vera@example.org" });
      expect(changed.status, changed.text.slice(0, 300)).to.be.oneOf([200, 303]);
      expect((await accountState(node, "vera")).email).to.equal("vera@example.org");
      const removed = await c.submit("/account", `/account/passkeys/${passkeyId}/remove`, {});
      expect(removed.status).to.equal(303);
      expect(removed.headers.location).to.equal("/account#passkeys");
      expect((await accountState(node, "vera")).passkeys).to.deep.equal([]);
      const csrf = csrfOf((await c.get("/account")).text);
      const options = await postCeremony(node.url, "/account/passkeys/options", {}, { csrf, cookie: cookieOf(c) });
      expect(options.status, options.text).to.equal(200);
    });

    it("When the proof is older than REAUTH_MAX_AGE, then every sensitive request is refused again and nothing changes", async function () {
      this.timeout(60_000);
      const node = await backend.startNode({ ...PASSKEY_ENV, REAUTH_MAX_AGE: "1" });
      const c = new PageClient(node.url);
      expect((await c.signUp("walt", PASSWORD)).status).to.equal(303);
      await c.confirm();
      const passkeyId = await addSoftPasskey(c, new SoftAuthenticator(node.config.authUrl));
      await c.confirm();
      const setup = await c.submit("/account", "/account/2fa/setup", {});
      expect(setup.status).to.equal(200);
      const { pending } = setupOf(setup.text);
      const before = await accountState(node, "walt");
      await sleep(1200);
      await expectEveryActionRefused(c, { passkeyId, pending });
      expect(await accountState(node, "walt")).to.deep.equal(before);
    });

    it("When a confirmed user changes their password on /account, then it is changed, every other browser is signed out and this one stays; a password that breaks the rules changes nothing", async function () {
      this.timeout(60_000);
      const node = await backend.startNode();
      const c = new PageClient(node.url);
      expect((await c.signUp("pavel", PASSWORD)).status).to.equal(303);
      const other = new PageClient(node.url);
      expect((await other.submit("/signin", "/signin", { username: "pavel", password: PASSWORD })).status).to.equal(
        303,
      );
      await c.confirm();
      const before = await accountState(node, "pavel");
      const short = await c.submit("/account", "/account/password", { new_password: "short" });
      expect(short.status).to.equal(400);
      expect(short.text).to.match(
        /id="new_password"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="new_password"/,
      );
      expect(await accountState(node, "pavel")).to.deep.equal(before);
      const changed = await c.submit("/account", "/account/password", { new_password: "a brand new password" });
      expect(changed.status).to.equal(200);
      expect(changed.text).to.contain("Your password is changed.");
      expect((await c.get("/account")).status).to.equal(200);
      expect((await other.get("/account")).status).to.equal(303);
      const old = await new PageClient(node.url).submit("/signin", "/signin", {
        username: "pavel",
        password: PASSWORD,
      });
      expect(old.status).to.equal(401);
      const fresh = await new PageClient(node.url).submit("/signin", "/signin", {
        username: "pavel",
        password: "a brand new password",
      });
      expect(fresh.status).to.equal(303);
    });

    it("When two-factor is on, then a current code confirms too (a recovery code does not), and a wrong one counts and keeps nothing; confirmed, new recovery codes replace the old", async function () {
      this.timeout(60_000);
      const node = await backend.startNode();
      const c = new PageClient(node.url);
      expect((await c.signUp("xena", PASSWORD)).status).to.equal(303);
      const e = await enroll(c);
      const other = new PageClient(node.url);
      let r = await other.submit("/signin", "/signin", { username: "xena", password: PASSWORD });
      r = await other.submit(r.headers.location as string, r.headers.location as string, {
        code: codeAt(e.secret, 30),
      });
      expect(r.status).to.equal(303);
      const path = "/confirm?return_to=%2Faccount";
      const page = await other.get(path);
      expect(page.text).to.contain('name="code"');
      const recovery = await other.post(path, { _csrf: csrfOf(page.text), method: "code", code: e.recovery[0]! });
      expect(recovery.status).to.equal(401);
      expect(recovery.text).to.contain("The code is wrong.");
      expect((await other.submit("/account", "/account/email", { email: "x@example.org" })).headers.location).to.match(
        /^\/confirm/,
      );
      const ok = await other.post(path, { _csrf: csrfOf(page.text), method: "code", code: codeAt(e.secret, -30) });
      expect(ok.status, ok.text.slice(0, 300)).to.equal(303);
      expect(ok.headers.location).to.equal("/account");
      expect((await other.submit("/account", "/account/email", { email: "xena@example.org" })).status).to.be.oneOf([
        200, 303,
      ]);
      expect((await accountState(node, "xena")).email).to.equal("xena@example.org");
      // The recovery code tried above was not used up.
      expect((await accountState(node, "xena")).recoveryLeft).to.equal(10);
      // New recovery codes (this session's proof is fresh): the old ones stop working.
      const made = await other.submit("/account", "/account/2fa/recovery", {});
      expect(made.status).to.equal(200);
      const fresh = [...made.text.matchAll(/class="secret recovery-code">([^<]+)</g)].map((m) => m[1]!);
      expect(fresh).to.have.length(10);
      const third = new PageClient(node.url);
      const step = (await third.submit("/signin", "/signin", { username: "xena", password: PASSWORD })).headers
        .location as string;
      expect((await third.submit(step, step, { code: e.recovery[1]! })).status).to.equal(401);
      expect((await third.submit(step, step, { code: fresh[0]! })).status).to.equal(303);
    });

    it("When a passkey of the user answers the confirmation ceremony, then the session holds a proof; another user's passkey or a sign-in challenge does not confirm", async function () {
      this.timeout(60_000);
      const node = await backend.startNode(PASSKEY_ENV);
      const c = new PageClient(node.url);
      expect((await c.signUp("yuri", PASSWORD)).status).to.equal(303);
      const key = new SoftAuthenticator(node.config.authUrl);
      await addSoftPasskey(c, key);
      const d = new PageClient(node.url);
      expect((await d.signUp("zora", PASSWORD)).status).to.equal(303);
      const zoraKey = new SoftAuthenticator(node.config.authUrl);
      await addSoftPasskey(d, zoraKey);

      const fresh = new PageClient(node.url);
      expect((await fresh.submit("/signin", "/signin", { username: "yuri", password: PASSWORD })).status).to.equal(303);
      const page = await fresh.get("/confirm?return_to=%2Faccount");
      expect(page.status).to.equal(200);
      const csrf = csrfOf(page.text);
      const from = { csrf, cookie: cookieOf(fresh) };
      // zora's passkey cannot answer yuri's challenge (the options name only yuri's passkeys).
      const o1 = await postCeremony(node.url, "/confirm/passkey/options", {}, from);
      expect(o1.status).to.equal(200);
      const refused = await postCeremony(node.url, "/confirm/passkey", { response: zoraKey.assert(o1.json) }, from);
      expect(refused.status).to.equal(400);
      expectContractError(refused, "another user's passkey");
      let add = await postCeremony(node.url, "/account/passkeys/options", {}, from);
      expect(add.status).to.equal(401);
      // yuri's own passkey confirms, and the session may now add a passkey.
      const o2 = await postCeremony(node.url, "/confirm/passkey/options", {}, from);
      const done = await postCeremony(
        node.url,
        "/confirm/passkey",
        { response: key.assert(o2.json), return_to: "/account" },
        from,
      );
      expect(done.status, done.text).to.equal(200);
      expect(done.json).to.deep.equal({ redirect: "/account" });
      add = await postCeremony(node.url, "/account/passkeys/options", {}, from);
      expect(add.status, add.text).to.equal(200);
    });

    it("When 50 confirmations with a wrong password are sent at once, then at most 10 are answered wrong and the rest 429, and sign-in from there is limited too (the same counters); 50 right ones at once all confirm", async function () {
      this.timeout(120_000);
      const node = await backend.startNode();
      const path = "/confirm?return_to=%2Faccount";
      const wrongUser = new PageClient(node.url);
      expect((await wrongUser.signUp("quinn", PASSWORD)).status).to.equal(303);
      const csrf = csrfOf((await wrongUser.get(path)).text);
      const wrong = await Promise.all(
        Array.from({ length: 50 }, () => wrongUser.post(path, { _csrf: csrf, password: "wrong password!" })),
      );
      const statuses = wrong.map((r) => r.status);
      expect(statuses.filter((s) => s === 401).length).to.be.at.most(10);
      expect(statuses.filter((s) => s !== 401 && s !== 429)).to.deep.equal([]);
      expect(
        (await wrongUser.submit("/account", "/account/email", { email: "q@example.org" })).headers.location,
      ).to.match(/^\/confirm/);
      // The same counters as sign-in: quinn's right password from this address is refused too now.
      const signIn = await new PageClient(node.url).submit("/signin", "/signin", {
        username: "quinn",
        password: PASSWORD,
      });
      expect(signIn.status).to.equal(429);

      const rightUser = new PageClient(node.url, "127.0.0.2");
      expect((await rightUser.signUp("rhea", PASSWORD)).status).to.equal(303);
      const csrf2 = csrfOf((await rightUser.get(path)).text);
      const right = await Promise.all(
        Array.from({ length: 50 }, () => rightUser.post(path, { _csrf: csrf2, password: PASSWORD })),
      );
      expect(right.map((r) => r.status)).to.deep.equal(Array(50).fill(303));
      const changed = await rightUser.submit("/account", "/account/email", { email: "rhea@example.org" });
      expect(changed.status, changed.text.slice(0, 200)).to.be.oneOf([200, 303]);
    });
  },
  oneBackend("lmdb"),
);

describeBackends("Two-factor: one secret at a time", (backend) => {
  it("When two set-ups begun while two-factor was off are both confirmed, then the second is refused (409) and the first secret and recovery codes stay; replacing is its own confirmed step", async function () {
    this.timeout(60_000);
    const node = await backend.startNode();
    const c = new PageClient(node.url);
    expect((await c.signUp("olga", PASSWORD)).status).to.equal(303);
    await c.confirm();
    const first = setupOf((await c.submit("/account", "/account/2fa/setup", {})).text);
    const second = setupOf((await c.submit("/account", "/account/2fa/setup", {})).text);
    const on = await c.post("/account/2fa/confirm", {
      _csrf: csrfOf((await c.get("/account")).text),
      pending: first.pending,
      code: codeAt(first.secret),
    });
    expect(on.status).to.equal(200);
    const before = await accountState(node, "olga");
    const again = await c.post("/account/2fa/confirm", {
      _csrf: csrfOf((await c.get("/account")).text),
      pending: second.pending,
      code: codeAt(second.secret),
    });
    expect(again.status).to.equal(409);
    expect(again.text).to.contain("Two-factor is already on.");
    expect(await accountState(node, "olga")).to.deep.equal(before);

    // Replacing: a set-up with replace=1 (needs a fresh proof, which c holds); its first code
    // swaps the secret; a second replacement begun from the same state then conflicts. (Each time
    // step is used once per user, so the new secret's code is the next step's.)
    const r1 = setupOf((await c.submit("/account", "/account/2fa/setup", { replace: "1" })).text);
    const r2 = setupOf((await c.submit("/account", "/account/2fa/setup", { replace: "1" })).text);
    const replaced = await c.post("/account/2fa/confirm", {
      _csrf: csrfOf((await c.get("/account")).text),
      pending: r1.pending,
      code: codeAt(r1.secret, 30),
    });
    expect(replaced.status, replaced.text.slice(0, 300)).to.equal(200);
    const after = await accountState(node, "olga");
    expect(after.twoFactor!.sealedSecret).to.not.equal(before.twoFactor!.sealedSecret);
    const late = await c.post("/account/2fa/confirm", {
      _csrf: csrfOf((await c.get("/account")).text),
      pending: r2.pending,
      code: codeAt(r2.secret, -30),
    });
    expect(late.status).to.equal(409);
    expect(await accountState(node, "olga")).to.deep.equal(after);
  });

  it("When 20 set-ups begun while off are confirmed at once, then exactly one turns two-factor on and the others change nothing (409; or 401 for a time step used meanwhile, 429 once those failures reach the code limit)", async function () {
    this.timeout(60_000);
    const node = await backend.startNode();
    const c = new PageClient(node.url);
    expect((await c.signUp("pia", PASSWORD)).status).to.equal(303);
    await c.confirm();
    const setups = [];
    for (let i = 0; i < 20; i++) setups.push(setupOf((await c.submit("/account", "/account/2fa/setup", {})).text));
    const csrf = csrfOf((await c.get("/account")).text);
    const answers = await Promise.all(
      setups.map((s) => c.post("/account/2fa/confirm", { _csrf: csrf, pending: s.pending, code: codeAt(s.secret) })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect(statuses.filter((s) => ![200, 401, 409, 429].includes(s))).to.deep.equal([]);
    const codes = answers.find((r) => r.status === 200)!.text;
    expect([...codes.matchAll(/class="secret recovery-code">/g)]).to.have.length(10);
    expect((await accountState(node, "pia")).recoveryLeft).to.equal(10);
  });
});
