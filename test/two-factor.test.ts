// docs/http-api.md#two-factor: two-factor with an authenticator app, through the pages as a
// browser without JavaScript uses them, on the embedded store and on Redis. The codes are computed
// here with the same library (otpauth) from the secret the setup page shows.
import { expect } from "chai";
import fc from "fast-check";
import jsqr from "jsqr";
import sharp from "sharp";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil } from "./support/cli.js";
import { verifyIdToken, trade } from "./support/oidc.js";
import { PageClient, csrfOf, decodeHtml, registerApp } from "./support/pages.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { fcOpts, fuzzRuns } from "./support/fuzz.js";
import { codeAt, enroll, type Enrolled } from "./support/two-factor.js";

const PASSWORD = "correct horse battery";
/** jsqr is CommonJS: node hands over module.exports, whose `default` is the decoder. */
const jsQR = jsqr.default;

/** A six-digit code that no step of the accepted window (now ± 30 s, and a bit more) shows. */
function wrongCode(secret: string): string {
  const near = new Set([-60, -30, 0, 30, 60].map((o) => codeAt(secret, o)));
  let n = 123456;
  while (near.has(String(n).padStart(6, "0"))) n = (n + 1) % 1_000_000;
  return String(n).padStart(6, "0");
}

async function signOut(c: PageClient) {
  const r = await c.submit("/account", "/signout", {});
  expect(r.status).to.equal(303);
}

/** The password step; returns where it sent the browser. */
async function password(c: PageClient, username: string, returnTo?: string): Promise<string> {
  const path = returnTo ? `/signin?${new URLSearchParams({ return_to: returnTo })}` : "/signin";
  const r = await c.submit(path, path, { username, password: PASSWORD });
  expect(r.status, r.text.slice(0, 300)).to.equal(303);
  return r.headers.location as string;
}

async function isSignedIn(c: PageClient): Promise<boolean> {
  return (await c.get("/account")).status === 200;
}

describeBackends("Two-factor", (backend) => {
  let node: TestNode;
  let base: string;
  beforeEach(async () => {
    node = await backend.startNode();
    base = node.url;
  });

  async function enrolledUser(name: string): Promise<{ c: PageClient; e: Enrolled }> {
    const c = new PageClient(base);
    expect((await c.signUp(name, PASSWORD)).status).to.equal(303);
    const e = await enroll(c);
    await signOut(c);
    return { c, e };
  }

  describe("When a user sets two-factor up", () => {
    it("then /account shows it on, and a password sign-in asks for a code before anything is signed in", async () => {
      const c = new PageClient(base);
      await c.signUp("tina", PASSWORD);
      const off = await c.get("/account");
      expect(off.text).to.contain('action="/account/2fa/setup"');
      const e = await enroll(c);
      const on = await c.get("/account");
      expect(on.text).to.contain('action="/account/2fa/disable"');
      expect(on.text).to.contain("Recovery codes left: 10");
      await signOut(c);

      const next = await password(c, "tina");
      expect(next).to.equal("/signin/code?return_to=%2Faccount");
      expect(await isSignedIn(c)).to.equal(false);
      const form = await c.get(next);
      expect(form.status).to.equal(200);
      expect(form.text).to.contain('name="code"');
      expect(form.text).to.contain('autocomplete="one-time-code"');

      const wrong = await c.post(next, { _csrf: csrfOf(form.text), code: wrongCode(e.secret) });
      expect(wrong.status).to.equal(401);
      expect(wrong.text).to.contain("The code is wrong.");
      expect(await isSignedIn(c)).to.equal(false);

      const right = await c.post(next, { _csrf: csrfOf(wrong.text), code: codeAt(e.secret, 30) });
      expect(right.status).to.equal(303);
      expect(right.headers.location).to.equal("/account");
      expect(await isSignedIn(c)).to.equal(true);
    });

    it("then the QR code on the page holds the otpauth URI of the key shown in text", async () => {
      const c = new PageClient(base);
      await c.signUp("quinn", PASSWORD);
      await c.confirm(PASSWORD);
      const setup = await c.submit("/account", "/account/2fa/setup", {});
      const secret = /class="secret totp-secret">([^<]+)</.exec(setup.text)![1]!.replace(/\s/g, "");
      const svg = /<svg[\s\S]*?<\/svg>/.exec(setup.text)![0];
      expect(svg).to.not.match(/style=|<script/);
      const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const read = jsQR(new Uint8ClampedArray(data), info.width, info.height);
      expect(read, "the QR code could not be read").to.not.equal(null);
      const uri = new URL(read!.data);
      expect(uri.protocol).to.equal("otpauth:");
      expect(uri.host).to.equal("totp");
      expect(decodeURIComponent(uri.pathname)).to.equal("/Sigil:quinn");
      expect(uri.searchParams.get("secret")).to.equal(secret);
      expect(uri.searchParams.get("issuer")).to.equal("Sigil");
      expect(uri.searchParams.get("algorithm")).to.equal("SHA1");
      expect(uri.searchParams.get("digits")).to.equal("6");
      expect(uri.searchParams.get("period")).to.equal("30");
    });

    it("then a wrong first code leaves it off, and an expired or forged setup is refused", async () => {
      const c = new PageClient(base);
      await c.signUp("ursula", PASSWORD);
      await c.confirm(PASSWORD);
      const setup = await c.submit("/account", "/account/2fa/setup", {});
      const secret = /class="secret totp-secret">([^<]+)</.exec(setup.text)![1]!.replace(/\s/g, "");
      const pending = decodeHtml(/name="pending" value="([^"]+)"/.exec(setup.text)![1]!);
      const bad = await c.post("/account/2fa/confirm", { _csrf: csrfOf(setup.text), pending, code: wrongCode(secret) });
      expect(bad.status).to.equal(401);
      expect(bad.text).to.contain("totp-secret"); // the same setup again
      const forged = await c.post("/account/2fa/confirm", {
        _csrf: csrfOf(setup.text),
        pending: pending.slice(0, -4) + "AAAA",
        code: codeAt(secret),
      });
      expect(forged.status).to.equal(400);
      expect(forged.text).to.contain("The setup has expired; start again.");
      expect((await c.get("/account")).text).to.contain('action="/account/2fa/setup"');
      await signOut(c);
      expect(await password(c, "ursula")).to.equal("/account");
    });

    it("then setting it up again while it is on is refused, and the key stays the same", async () => {
      const c = new PageClient(base);
      await c.signUp("ruth", PASSWORD);
      const e = await enroll(c);
      const again = await c.submit("/account", "/account/2fa/setup", {});
      expect(again.status).to.equal(409);
      expect(again.text).to.contain("Two-factor is already on.");
      expect(again.text).to.not.contain("totp-secret");
      await signOut(c);
      const next = await password(c, "ruth");
      const r = await c.post(next, { _csrf: csrfOf((await c.get(next)).text), code: codeAt(e.secret, 30) });
      expect(r.status).to.equal(303);
    });

    it("then another user's setup form cannot turn it on for this one", async () => {
      const a = new PageClient(base);
      await a.signUp("vera", PASSWORD);
      await a.confirm(PASSWORD);
      const setup = await a.submit("/account", "/account/2fa/setup", {});
      const secret = /class="secret totp-secret">([^<]+)</.exec(setup.text)![1]!.replace(/\s/g, "");
      const pending = decodeHtml(/name="pending" value="([^"]+)"/.exec(setup.text)![1]!);
      const b = new PageClient(base);
      await b.signUp("walt", PASSWORD);
      await b.confirm(PASSWORD);
      const page = await b.get("/account");
      const r = await b.post("/account/2fa/confirm", { _csrf: csrfOf(page.text), pending, code: codeAt(secret) });
      expect(r.status).to.equal(400);
      expect((await b.get("/account")).text).to.contain('action="/account/2fa/setup"');
    });
  });

  describe("When a code is used", () => {
    it("then the same code is refused a second time", async () => {
      const { c, e } = await enrolledUser("xena");
      const code = codeAt(e.secret, 30);
      const next = await password(c, "xena");
      const form = await c.get(next);
      expect((await c.post(next, { _csrf: csrfOf(form.text), code })).status).to.equal(303);
      await signOut(c);
      const again = await password(c, "xena");
      const form2 = await c.get(again);
      const replay = await c.post(again, { _csrf: csrfOf(form2.text), code });
      expect(replay.status).to.equal(401);
      expect(await isSignedIn(c)).to.equal(false);
    });

    it("then the same code sent 20 times at once signs in once (the replays count as failures)", async () => {
      const { e } = await enrolledUser("yuri");
      const code = codeAt(e.secret, 30);
      const browsers = Array.from({ length: 20 }, () => new PageClient(base));
      const forms = await Promise.all(
        browsers.map(async (b) => {
          const next = await password(b, "yuri");
          return { b, next, csrf: csrfOf((await b.get(next)).text) };
        }),
      );
      const answers = await Promise.all(forms.map((f) => f.b.post(f.next, { _csrf: f.csrf, code })));
      expect(answers.filter((r) => r.status === 303)).to.have.length(1);
      const others = answers.filter((r) => r.status !== 303).map((r) => r.status);
      expect(others.filter((s) => s !== 401 && s !== 429)).to.deep.equal([]);
      expect(others.filter((s) => s === 401).length).to.be.at.most(10);
    });

    it("then each recovery code works once, instead of a code", async () => {
      const { c, e } = await enrolledUser("zora");
      for (const rc of [e.recovery[0]!, e.recovery[1]!.toUpperCase().replace("-", " ")]) {
        const next = await password(c, "zora");
        const form = await c.get(next);
        const r = await c.post(next, { _csrf: csrfOf(form.text), code: rc });
        expect(r.status, rc).to.equal(303);
        await signOut(c);
      }
      const next = await password(c, "zora");
      const form = await c.get(next);
      const used = await c.post(next, { _csrf: csrfOf(form.text), code: e.recovery[0]! });
      expect(used.status).to.equal(401);
      const ok = await c.post(next, { _csrf: csrfOf(used.text), code: e.recovery[2]! });
      expect(ok.status).to.equal(303);
      expect((await c.get("/account")).text).to.contain("Recovery codes left: 7");
    });

    it("then 50 wrong codes at once get at most 10 answers of wrong, and the right code is refused after", async () => {
      const { c, e } = await enrolledUser("abel");
      const next = await password(c, "abel");
      const csrf = csrfOf((await c.get(next)).text);
      const bad = wrongCode(e.secret);
      const answers = await Promise.all(Array.from({ length: 50 }, () => c.post(next, { _csrf: csrf, code: bad })));
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 401).length).to.be.at.most(10);
      expect(statuses.filter((s) => s !== 401 && s !== 429)).to.deep.equal([]);
      const right = await c.post(next, { _csrf: csrf, code: codeAt(e.secret, 30) });
      expect(right.status).to.equal(429);
      expect(right.headers["retry-after"]).to.match(/^\d+$/);
      expect(await isSignedIn(c)).to.equal(false);
    });

    it("then no key, code or recovery code appears in a log line", async () => {
      const { c, e } = await enrolledUser("lena");
      const next = await password(c, "lena");
      const csrf = csrfOf((await c.get(next)).text);
      await c.post(next, { _csrf: csrf, code: wrongCode(e.secret) });
      await c.post(next, { _csrf: csrf, code: e.recovery[3]! });
      const logs = node.logs.join("\n");
      expect(logs).to.not.contain(e.secret);
      expect(logs).to.not.contain(e.recovery[3]!);
      expect(logs).to.not.contain(wrongCode(e.secret));
    });

    it("then random code fields from a half-signed-in browser never answer 5xx nor sign in, and change nothing stored", async function () {
      this.timeout(60_000);
      const { c, e } = await enrolledUser("fuzzy");
      const next = await password(c, "fuzzy");
      const csrf = csrfOf((await c.get(next)).text);
      const right = new Set([-30, 0, 30].map((o) => codeAt(e.secret, o)));
      const value = fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.stringMatching(/^\d{6}$/).filter((v) => !right.has(v)),
        fc.stringMatching(/^[a-z2-9]{5}-[a-z2-9]{5}$/),
        fc.integer({ min: 100, max: 70_000 }).map((n) => "7".repeat(n)),
        fc.constantFrom("", " ", "\u0000", "\ud800", "%ff", "a&b=c"),
      );
      const fields = fc.array(fc.tuple(fc.constantFrom("code", "code[]", "code[x]", "_csrf", "x"), value), {
        maxLength: 4,
      });
      await fc.assert(
        fc.asyncProperty(fields, async (pairs) => {
          const body: Record<string, string[]> = { _csrf: [csrf] };
          for (const [k, v] of pairs) (body[k] ??= []).push(v);
          const r = await c.post(next, body);
          expect(r.status, JSON.stringify(pairs).slice(0, 200)).to.be.oneOf([400, 401, 403, 413, 429]);
        }),
        fcOpts(fuzzRuns(40)),
      );
      expect(await isSignedIn(c)).to.equal(false);
      const stored = node.opened.store.twoFactor;
      const user = (await node.opened.store.accounts.byUsername("fuzzy"))!;
      expect(await stored.get(user.id)).to.not.equal(null);
      expect(await stored.recoveryCodesLeft(user.id)).to.equal(10);
    });

    it("then the code page without a right password first sends back to sign in", async () => {
      const c = new PageClient(base);
      const r = await c.get("/signin/code?return_to=%2Fdevelopers");
      expect(r.status).to.equal(303);
      expect(r.headers.location).to.equal("/signin?return_to=%2Fdevelopers");
      const page = await c.get("/signin");
      const p = await c.post("/signin/code", { _csrf: csrfOf(page.text), code: "123456" });
      expect(p.status).to.equal(303);
      expect(p.headers.location).to.match(/^\/signin\?/);
    });
  });

  describe("When two-factor is turned off", () => {
    it("then it needs a current code or a recovery code, and the next sign-in asks for none", async () => {
      const { c, e } = await enrolledUser("bella");
      const next = await password(c, "bella");
      await c.post(next, { _csrf: csrfOf((await c.get(next)).text), code: codeAt(e.secret, 30) });
      const wrong = await c.submit("/account", "/account/2fa/disable", { code: wrongCode(e.secret) });
      expect(wrong.status).to.equal(401);
      expect(wrong.text).to.contain('action="/account/2fa/disable"');
      const off = await c.submit("/account", "/account/2fa/disable", { code: e.recovery[5]! });
      expect(off.status).to.equal(303);
      expect((await c.get("/account")).text).to.contain('action="/account/2fa/setup"');
      await signOut(c);
      expect(await password(c, "bella")).to.equal("/account");
    });
  });

  describe("When an app signs the user in with OpenID Connect", () => {
    it("then return_to survives the second step and the ID token's amr is pwd, otp, mfa", async () => {
      const dev = new PageClient(base);
      await dev.signUp("devon", PASSWORD);
      const app = await registerApp(dev, ["https://app.example/cb"], "MFA App");
      const { c, e } = await enrolledUser("carla");
      const authorizePath = `/authorize?${new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: "code",
        scope: "openid",
        nonce: "n-1",
      })}`;
      const toSignIn = await c.get(authorizePath);
      expect(toSignIn.status).to.equal(303);
      const signInPath = toSignIn.headers.location as string;
      const returnTo = new URL(signInPath, base).searchParams.get("return_to")!;
      expect(returnTo).to.equal(authorizePath);
      const next = await password(c, "carla", returnTo);
      expect(next).to.equal(`/signin/code?${new URLSearchParams({ return_to: returnTo })}`);
      const back = await c.post(next, { _csrf: csrfOf((await c.get(next)).text), code: codeAt(e.secret, 30) });
      expect(back.headers.location).to.equal(authorizePath);
      let r = await c.get(authorizePath);
      if (r.status === 200) {
        const hidden: Record<string, string> = {};
        for (const m of r.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
          hidden[m[1]!] = decodeHtml(m[2]!);
        r = await c.post("/authorize", { ...hidden, decision: "allow" });
      }
      const code = new URL(r.headers.location as string).searchParams.get("code")!;
      const tokens = await trade(base, app, code);
      expect(tokens.status).to.equal(200);
      const { claims } = await verifyIdToken(base, (tokens.json as { id_token: string }).id_token, app.clientId);
      expect(claims.amr).to.deep.equal(["pwd", "otp", "mfa"]);

      // Without two-factor the same flow says pwd alone.
      const dclaims = await (async () => {
        const t = await (await import("./support/oidc.js")).signInWith(base, dev, app, { scope: "openid" });
        return (await verifyIdToken(base, (t.json as { id_token: string }).id_token, app.clientId)).claims;
      })();
      expect(dclaims.amr).to.deep.equal(["pwd"]);
    });
  });

  if (backend.name === "redis")
    describe("When an operator runs sigil users reset-2fa", () => {
      it("then it prints the username, and the next password sign-in asks for no code", async function () {
        this.timeout(30000);
        const { c } = await enrolledUser("dora");
        const sigil = (args: string[]) =>
          runSigil({ SECRET: TEST_SECRET, NODE_ENV: "test", REDIS_URL: backend.redis!.url }, ...args);
        expect(await password(c, "dora")).to.match(/^\/signin\/code\?/);
        const r = await sigil(["users", "reset-2fa", "--username", "Dora"]);
        expect(r.code, r.err).to.equal(0);
        expect(JSON.parse(r.out)).to.deep.equal({ username: "dora" });
        expect(await password(new PageClient(base), "dora")).to.equal("/account");
        const unknown = await sigil(["users", "reset-2fa", "--username", "nobody"]);
        expect(unknown.code).to.not.equal(0);
        expect(unknown.err).to.contain('there is no user "nobody"');
      });
    });
});
