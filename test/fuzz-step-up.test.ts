// docs/http-api.md#confirming-its-you, property-based: for every sensitive route (email, password, two-factor
// set-up, replacement and turning off, new recovery codes, passkeys add and remove, deletion by password or passkey),
// a request with a valid session and CSRF token but no fresh proof — none at all, or one older than
// REAUTH_MAX_AGE — changes nothing in the store, whatever its fields: no 5xx, and the account's
// email, password, passkeys, two-factor secret and recovery codes are as they were. The fields
// include what would work with a proof (a real replacement set-up and its right code, a real
// passkey id), never the password or a current code of the account itself (those are proofs).
// Both stores. FUZZ_RUNS scales the run; FUZZ_SEED replays.
import { expect } from "chai";
import fc from "fast-check";
import { describeBackends } from "./support/backends.js";
import { fcOptsWithin, fuzzRuns } from "./support/fuzz.js";
import { http } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, csrfOf, decodeHtml } from "./support/pages.js";
import { PASSKEY_ENV, addSoftPasskey } from "./support/passkeys.js";
import { SoftAuthenticator } from "./support/soft-authenticator.js";
import { codeAt, enroll } from "./support/two-factor.js";

const RUNS = fuzzRuns(40);
const PASSWORD = "correct horse battery";
const cookieOf = (c: PageClient) => [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");

async function snapshot(node: TestNode, username: string) {
  const store = node.opened.store;
  const user = await store.accounts.byUsername(username);
  if (!user) return null;
  return {
    email: user.email ?? null,
    passwordHash: user.passwordHash,
    passkeys: (await store.passkeys.listForUser(user.id)).map((p) => p.id).sort(),
    twoFactor: await store.twoFactor.get(user.id),
    recoveryLeft: await store.twoFactor.recoveryCodesLeft(user.id),
  };
}

describeBackends("Fuzz: no sensitive change without a fresh proof", (backend) => {
  it("When random requests reach every sensitive route with a valid session and CSRF but no proof, or a stale one, then nothing changes and nothing is a 5xx", async function () {
    this.timeout(Math.max(60_000, RUNS * 1500));
    const node = await backend.startNode({ ...PASSKEY_ENV, REAUTH_MAX_AGE: "1" });
    // stale: signed up, proved, set everything up (a passkey, two-factor, a replacement set-up
    // begun), and its proof then grew old. fresh: signed in later, never proved anything.
    const stale = new PageClient(node.url);
    expect((await stale.signUp("fuzzy", PASSWORD)).status).to.equal(303);
    const key = new SoftAuthenticator(node.config.authUrl);
    const passkeyId = await addSoftPasskey(stale, key);
    const { secret } = await enroll(stale);
    await stale.confirm();
    const replacement = await stale.submit("/account", "/account/2fa/setup", { replace: "1" });
    expect(replacement.status).to.equal(200);
    const pending = decodeHtml(/name="pending" value="([^"]+)"/.exec(replacement.text)![1]!);
    const newSecret = /class="secret totp-secret">([^<]+)</.exec(replacement.text)![1]!.replace(/\s/g, "");
    const fresh = new PageClient(node.url, "127.0.0.2");
    const step = await fresh.submit("/signin", "/signin", { username: "fuzzy", password: PASSWORD });
    const signedIn = await fresh.submit(step.headers.location as string, step.headers.location as string, {
      code: codeAt(secret, 30),
    });
    expect(signedIn.status).to.equal(303);
    await new Promise((r) => setTimeout(r, 1200));
    const before = await snapshot(node, "fuzzy");
    expect(before!.passkeys).to.deep.equal([passkeyId]);

    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 40 }));
    const values: Record<string, fc.Arbitrary<string>> = {
      email: fc.oneof(fc.emailAddress(), text),
      new_password: fc.oneof(
        fc.constant("a new password of mallory's"),
        fc.string({ minLength: 8, maxLength: 20 }),
        text,
      ),
      // Never the account's password: a right one on the deletion form is itself a proof.
      password: fc.oneof(fc.string({ minLength: 8, maxLength: 20 }), text).filter((p) => p !== PASSWORD),
      // The replacement set-up's right code (a different secret from the account's own).
      code: fc.oneof(
        fc.constant("NEW"),
        fc.stringMatching(/^\d{6}$/),
        fc.stringMatching(/^[a-z2-9]{5}-[a-z2-9]{5}$/),
        text,
      ),
      pending: fc.oneof(fc.constant(pending), fc.base64String({ maxLength: 200 }), text),
      replace: fc.constantFrom("1", "0", ""),
      name: text,
    };
    const pair = fc
      .constantFrom(...Object.keys(values))
      .chain((k) => values[k]!.map((v) => [k, v] as [string, string]));
    const request = fc.record({
      who: fc.constantFrom("stale", "fresh"),
      route: fc.constantFrom(
        "/account/email",
        "/account/password",
        "/account/2fa/setup",
        "/account/2fa/confirm",
        "/account/2fa/disable",
        "/account/2fa/recovery",
        `/account/passkeys/${passkeyId}/remove`,
        "/account/delete",
        "json:/account/passkeys/options",
        "json:/account/passkeys",
        "json:/account/delete/passkey",
      ),
      pairs: fc.array(pair, { maxLength: 5 }),
    });
    const statuses = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(request, async (q) => {
        const c = q.who === "stale" ? stale : fresh;
        const csrf = csrfOf((await c.get("/account")).text);
        const fields = Object.fromEntries(
          q.pairs.map(([k, v]) => [k, k === "code" && v === "NEW" ? codeAt(newSecret) : v]),
        );
        let status: number;
        if (q.route.startsWith("json:")) {
          const path = q.route.slice(5);
          const body =
            path === "/account/passkeys/options" ? {} : { ...fields, response: { id: passkeyId, response: {} } };
          const r = await http(node.url, path, {
            method: "POST",
            headers: { "content-type": "application/json", "x-csrf-token": csrf, cookie: cookieOf(c) },
            body: JSON.stringify(body),
          });
          status = r.status;
          if (path !== "/account/delete/passkey") {
            expect(r.status, `${path} ${r.text}`).to.equal(401);
            expect(r.json.error).to.equal("reauth_required");
          }
        } else {
          const r = await c.post(q.route, { ...fields, _csrf: csrf });
          status = r.status;
        }
        statuses.set(`${q.route} ${status}`, (statuses.get(`${q.route} ${status}`) ?? 0) + 1);
        expect(status, q.route).to.be.below(500);
        expect(await snapshot(node, "fuzzy"), `${q.who} ${q.route} ${JSON.stringify(fields)}`).to.deep.equal(before);
      }),
      fcOptsWithin(RUNS, Math.max(50_000, RUNS * 1400)),
    );
    if (process.env.FUZZ_VERBOSE) console.log("      statuses:", Object.fromEntries(statuses));
    // A proof still works: the stale session, confirmed again, changes the email.
    await stale.confirm();
    const r = await stale.submit("/account", "/account/email", { email: "fuzzy@example.org" });
    expect(r.status, r.text.slice(0, 200)).to.be.below(400);
    expect((await snapshot(node, "fuzzy"))!.email).to.equal("fuzzy@example.org");
  });
});
