// docs/http-api.md#pages (accounts and pages), on the embedded store and on Redis.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { http } from "./support/http.js";
import { PageClient, csrfOf, multipart } from "./support/pages.js";

/** A valid 1×1 transparent PNG (pictures are decoded now, and libpng refuses a bad zlib checksum). */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000b49444154789c6360000200000500017a5eab3f0000000049454e44ae426082",
  "hex",
);

describeBackends("Accounts and pages", (backend) => {
  let base: string;
  beforeEach(async () => {
    base = (await backend.startNode()).url;
  });

  describe("When someone signs up", () => {
    it("then they are signed in and continue to return_to", async () => {
      const c = new PageClient(base);
      const r = await c.signUp("alice", "correct horse", "Alice Liddell");
      expect(r.status).to.equal(303);
      expect(r.headers.location).to.equal("/account");
      const acct = await c.get("/account");
      expect(acct.status).to.equal(200);
      expect(acct.text).to.contain("Alice Liddell");
    });

    it("then the password appears in no log line", async () => {
      const node = await backend.startNode();
      const c = new PageClient(node.url);
      await c.signUp("logan", "very-secret-pass-1");
      await c.submit("/signin", "/signin", { username: "logan", password: "very-secret-pass-2" });
      expect(node.logs.length).to.be.above(0);
      expect(node.logs.join("\n")).to.not.match(/very-secret-pass/);
    });

    it("then the session cookie (and the form's CSRF cookie before it) is HttpOnly and SameSite=Lax (and not Secure on http)", async () => {
      const c = new PageClient(base);
      const page = await c.get("/signup");
      const made = await c.post("/signup", { _csrf: csrfOf(page.text), username: "olga", password: "password123" });
      expect(String(page.headers["set-cookie"])).to.match(/^sigil\.csrf=/);
      expect(String(made.headers["set-cookie"])).to.match(/^sigil\.sid=/);
      for (const cookie of [String(page.headers["set-cookie"]), String(made.headers["set-cookie"])]) {
        expect(cookie).to.match(/HttpOnly/i);
        expect(cookie).to.match(/SameSite=Lax/i);
        expect(cookie).to.not.match(/Secure/i);
      }
    });

    it("then usernames are unique whatever their case", async () => {
      expect((await new PageClient(base).signUp("Bob.x")).status).to.equal(303);
      const r = await new PageClient(base).signUp("bob.X");
      expect(r.status).to.equal(409);
      expect(r.text).to.contain("taken");
    });

    for (const [what, fields] of [
      ["a username of 2 characters", { username: "ab", password: "password1" }],
      ["a username with a space", { username: "a b c", password: "password1" }],
      ["a username of 33 characters", { username: "a".repeat(33), password: "password1" }],
      ["a password of 7 characters", { username: "carol", password: "1234567" }],
      ["a password of 129 characters", { username: "carol", password: "p".repeat(129) }],
      ["a display name of 65 characters", { username: "carol", password: "password1", display_name: "é".repeat(65) }],
      [
        "a display name with a control character",
        { username: "carol", password: "password1", display_name: "a\u0007b" },
      ],
    ] as const) {
      it(`then ${what} is refused with 400 and the form again`, async () => {
        const c = new PageClient(base);
        const r = await c.submit("/signup", "/signup", fields);
        expect(r.status).to.equal(400);
        expect(r.text).to.contain('name="username"');
      });
    }

    it("then lengths count code points: a display name of 64 emoji is accepted", async () => {
      const c = new PageClient(base);
      expect((await c.signUp("emoji", "password123", "😀".repeat(64))).status).to.equal(303);
      expect((await c.get("/account")).text).to.contain("😀".repeat(64));
    });

    it("then a form without its CSRF token is refused with 403", async () => {
      const c = new PageClient(base);
      await c.get("/signup");
      const r = await c.post("/signup", { username: "mallory", password: "password1" });
      expect(r.status).to.equal(403);
      const r2 = await c.post("/signup", { username: "mallory", password: "password1", _csrf: "forged" });
      expect(r2.status).to.equal(403);
    });
  });

  describe("When someone signs in", () => {
    it("then the right password signs in and continues to return_to; the sign-up link carries it", async () => {
      await new PageClient(base).signUp("dana", "password123");
      const c = new PageClient(base);
      const page = await c.get("/signin?return_to=%2Fdevelopers");
      expect(page.text).to.contain('href="/signup?return_to=%2Fdevelopers"');
      const r = await c.post("/signin?return_to=%2Fdevelopers", {
        _csrf: csrfOf(page.text),
        username: "DANA",
        password: "password123",
      });
      expect(r.status).to.equal(303);
      expect(r.headers.location).to.equal("/developers");
    });

    it("then a wrong password is refused without saying which part was wrong", async () => {
      await new PageClient(base).signUp("erin", "password123");
      const c = new PageClient(base);
      const r = await c.submit("/signin", "/signin", { username: "erin", password: "wrong-password" });
      expect(r.status).to.equal(401);
      expect(r.text).to.contain("username or password is wrong");
      const r2 = await c.submit("/signin", "/signin", { username: "nobody", password: "wrong-password" });
      expect(r2.status).to.equal(401);
      expect(r2.text).to.contain("username or password is wrong");
    });

    it("then sign-in attempts on one account are throttled (the 11th failure in 15 minutes is 429)", async function () {
      this.timeout(30000);
      await new PageClient(base).signUp("frank", "password123");
      const c = new PageClient(base);
      for (let i = 0; i < 10; i++)
        expect((await c.submit("/signin", "/signin", { username: "frank", password: "nope-nope" })).status).to.equal(
          401,
        );
      const r = await c.submit("/signin", "/signin", { username: "frank", password: "password123" });
      expect(r.status).to.equal(429);
      expect(r.headers["retry-after"]).to.match(/^\d+$/);
    });

    // The per-address limit (the 101st failure in 15 minutes is 429) is test/signin-throttle.test.ts's,
    // on both stores: 100 failed sign-ins cost ~6 s of password hashing per store, once is enough.

    it("then signing out ends the session", async () => {
      const c = new PageClient(base);
      await c.signUp("gina");
      const acct = await c.get("/account");
      const r = await c.post("/signout", { _csrf: csrfOf(acct.text) });
      expect(r.status).to.equal(303);
      const again = await c.get("/account");
      expect(again.status).to.equal(303);
      expect(again.headers.location).to.match(/^\/signin\?return_to=%2Faccount/);
    });
  });

  describe("When the pages are served over https (behind a proxy)", () => {
    it("then the session cookie and the CSRF cookie are Secure too", async () => {
      const node = await backend.startNode({ AUTH_URL: "https://auth.example", TRUST_PROXY: "loopback" });
      const https = { "x-forwarded-proto": "https" };
      const c = new PageClient(node.url);
      const page = await c.get("/signup", https);
      const made = await c.post(
        "/signup",
        { _csrf: csrfOf(page.text), username: "olga", password: "password123" },
        https,
      );
      expect(made.status).to.equal(303);
      expect(String(page.headers["set-cookie"])).to.match(/^__Host-sigil\.csrf=/);
      expect(String(made.headers["set-cookie"])).to.match(/^sigil\.sid=/);
      for (const cookie of [String(page.headers["set-cookie"]), String(made.headers["set-cookie"])]) {
        expect(cookie).to.match(/HttpOnly/i);
        expect(cookie).to.match(/SameSite=Lax/i);
        expect(cookie).to.match(/; Secure/i);
      }
    });
  });

  describe("When return_to points elsewhere", () => {
    for (const evil of [
      "//evil.com",
      "/\\evil.com",
      "https://evil.com/",
      "http:evil.com",
      "/%5Cevil.com",
      "\\\\evil.com",
      "javascript:alert(1)",
      " //evil.com",
    ]) {
      it(`then ${JSON.stringify(evil)} cannot leave the site`, async () => {
        const c = new PageClient(base);
        const page = await c.get(`/signup?return_to=${encodeURIComponent(evil)}`);
        const r = await c.post(`/signup?return_to=${encodeURIComponent(evil)}`, {
          _csrf: csrfOf(page.text),
          username: "henry",
          password: "password123",
        });
        expect(r.status).to.equal(303);
        const loc = String(r.headers.location);
        expect(new URL(loc, base).origin).to.equal(base);
        expect(loc).to.match(/^\/[^/\\]/);
      });
    }
  });

  describe("When pages are served", () => {
    for (const path of ["/signin", "/signup", "/account", "/developers", "/authorize?client_id=nope"]) {
      it(`then ${path} sends frame-ancestors 'none' and Referrer-Policy: no-referrer`, async () => {
        const r = await http(base, path);
        expect(r.headers["content-security-policy"]).to.contain("frame-ancestors 'none'");
        expect(r.headers["referrer-policy"]).to.equal("no-referrer");
      });
    }

    it("then a display name holding HTML is shown as text", async () => {
      const c = new PageClient(base);
      await c.signUp("ivy", "password123", `<script>alert("x")</script><img src=x onerror=alert(1)>`);
      const r = await c.get("/account");
      expect(r.text).to.not.contain("<script>alert");
      expect(r.text).to.not.contain("<img src=x");
      expect(r.text).to.contain("&lt;script>alert(&quot;x&quot;)&lt;/script>");
    });
  });

  describe("When a user edits the account", () => {
    it("then the display name changes", async () => {
      const c = new PageClient(base);
      await c.signUp("jack", "password123", "Jack");
      const r = await c.submit("/account", "/account", { display_name: "Jack Sprat" });
      expect(r.status).to.equal(303);
      expect((await c.get("/account")).text).to.contain("Jack Sprat");
    });

    it("then every user has a generated default picture, served as SVG", async () => {
      const c = new PageClient(base);
      await c.signUp("kate");
      const src = /<img src="([^"]+)"/.exec((await c.get("/account")).text)![1]!;
      const r = await http(base, new URL(src).pathname);
      expect(r.status).to.equal(200);
      expect(r.headers["content-type"]).to.match(/^image\/svg\+xml/);
      expect(r.headers["x-content-type-options"]).to.equal("nosniff");
      expect(r.text).to.match(/^<svg /);
    });

    it("then an uploaded PNG is served back as image/png", async () => {
      const c = new PageClient(base);
      await c.signUp("liam");
      const csrf = csrfOf((await c.get("/account")).text);
      const m = multipart({ _csrf: csrf }, { name: "picture", filename: "me.png", type: "image/png", data: PNG });
      const r = await c.postRaw("/account", m.body, m.type);
      expect(r.status, r.text).to.equal(303);
      const src = /<img src="([^"]+)"/.exec((await c.get("/account")).text)![1]!.replace(/&amp;/g, "&");
      const u = new URL(src);
      const pic = await http(base, u.pathname + u.search);
      expect(pic.headers["content-type"]).to.equal("image/png");
    });

    it("then a file that is not an image (whatever it claims) is refused with 400", async () => {
      const c = new PageClient(base);
      await c.signUp("mia");
      const csrf = csrfOf((await c.get("/account")).text);
      const m = multipart(
        { _csrf: csrf },
        { name: "picture", filename: "x.png", type: "image/png", data: Buffer.from("<svg onload=alert(1)></svg>") },
      );
      expect((await c.postRaw("/account", m.body, m.type)).status).to.equal(400);
    });

    it("then a picture over 1 MB is 413", async () => {
      const c = new PageClient(base);
      await c.signUp("noah");
      const csrf = csrfOf((await c.get("/account")).text);
      const big = Buffer.concat([PNG, Buffer.alloc(1024 * 1024)]);
      const m = multipart({ _csrf: csrf }, { name: "picture", filename: "big.png", type: "image/png", data: big });
      expect((await c.postRaw("/account", m.body, m.type)).status).to.equal(413);
    });
  });
});
