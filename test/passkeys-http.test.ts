// Passkeys at the HTTP level, on both stores: offered only when AUTH_URL's host is a name (the
// page's script, its CSP, the endpoints), the script served like the stylesheet, and the ceremony
// endpoints' refusals in the JSON API's error format (docs/errors.md), never a page or a 5xx.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { ensurePagesScript } from "./support/client-bundle.js";
import { http, type TestResponse } from "./support/http.js";
import { csrfOf, PageClient } from "./support/pages.js";
import { PASSKEY_ENV, withSetCookies } from "./support/passkeys.js";

/** A JSON POST as the page's script sends it: the client's cookies and the page's CSRF token. */
/** A JSON POST as the page's script sends it; the cookies it sets are kept (the sign-in challenge is bound to one). */
async function postJson(
  c: PageClient,
  path: string,
  body: string,
  csrf: string | undefined,
  type = "application/json",
) {
  const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const r = await http(c.base, path, {
    method: "POST",
    headers: { "content-type": type, cookie, ...(csrf ? { "x-csrf-token": csrf } : {}) },
    body,
  });
  for (const pair of withSetCookies("", r).split("; ").filter(Boolean)) {
    const i = pair.indexOf("=");
    c.cookies.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return r;
}

const expectError = (r: TestResponse, status: number, error: string) => {
  expect(r.status, r.text).to.equal(status);
  expect(r.headers["content-type"]).to.match(/^application\/json/);
  expect(Object.keys(r.json as object).sort()).to.deep.equal(["error", "error_description"]);
  expect(r.json.error).to.equal(error);
};

describeBackends("Passkeys over HTTP", (backend) => {
  before(() => ensurePagesScript());

  it("With an IP-address AUTH_URL no page offers passkeys (no script, no button, no script-src) and the endpoints refuse clearly", async () => {
    const node = await backend.startNode(); // BASE_URL http://127.0.0.1:<port>
    const c = new PageClient(node.url);
    const signin = await c.get("/signin");
    expect(signin.text).to.not.contain("passkey");
    expect(signin.text).to.contain('autocomplete="username"');
    expect(String(signin.headers["content-security-policy"])).to.not.contain("script-src");
    await c.signUp("eeyore");
    const account = await c.get("/account");
    expect(account.status).to.equal(200);
    expect(account.text).to.not.contain("passkey");
    const csrf = csrfOf(account.text);
    for (const path of ["/signin/passkey/options", "/account/passkeys/options", "/account/delete/passkey/options"]) {
      const r = await postJson(c, path, "{}", csrf);
      expectError(r, 404, "not_found");
      expect(r.json.error_description).to.contain("IP address");
    }
  });

  it("With a localhost AUTH_URL the sign-in page loads the passkeys script, which its CSP allows by exact address; the script is cached for good", async () => {
    const node = await backend.startNode(PASSKEY_ENV);
    const c = new PageClient(node.url);
    const signin = await c.get("/signin");
    const src = /<script src="(\/assets\/passkeys\.[A-Za-z0-9_-]{16}\.js)" defer><\/script>/.exec(signin.text)?.[1];
    expect(src, "script tag").to.be.a("string");
    expect(signin.text).to.contain('autocomplete="username webauthn"');
    expect(signin.text).to.match(/<div[^>]*id="passkey-signin"[^>]*hidden/);
    expect(String(signin.headers["content-security-policy"])).to.contain(
      `script-src ${node.config.authUrl}${src}; connect-src 'self'`,
    );
    expect(signin.text).to.not.match(/<script>|<script [^s]|on(click|load)=/);
    const js = await c.get(src!);
    expect(js.status).to.equal(200);
    expect(js.headers["content-type"]).to.equal("application/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).to.equal("public, max-age=31536000, immutable");
    expect((await c.get(src!, { "if-none-match": String(js.headers.etag) })).status).to.equal(304);
    expect((await c.get("/assets/passkeys.AAAAAAAAAAAAAAAA.js")).status).to.equal(404);
    // Other pages stay script-free.
    expect(String((await c.get("/signup")).headers["content-security-policy"])).to.not.contain("script-src");
  });

  it("The ceremony endpoints refuse bad requests in the JSON error format, and change nothing", async () => {
    const node = await backend.startNode(PASSKEY_ENV);
    const c = new PageClient(node.url);
    const csrf = csrfOf((await c.get("/signin")).text);
    expectError(await postJson(c, "/signin/passkey/options", "{}", undefined), 403, "access_denied");
    expectError(await postJson(c, "/signin/passkey/options", "{}", "nope"), 403, "access_denied");
    expectError(
      await postJson(c, "/signin/passkey/options", "a=1", csrf, "application/x-www-form-urlencoded"),
      400,
      "invalid_request",
    );
    expectError(await postJson(c, "/signin/passkey", "{nope", csrf), 400, "invalid_request");
    expectError(await postJson(c, "/signin/passkey", "[1]", csrf), 400, "invalid_request");
    expectError(await postJson(c, "/signin/passkey", JSON.stringify({ response: "x" }), csrf), 400, "invalid_request");
    expectError(await postJson(c, "/signin/passkey", `{"x":"${"a".repeat(70_000)}"}`, csrf), 413, "request_too_large");
    const forged = {
      id: "AAAA",
      rawId: "AAAA",
      type: "public-key",
      response: {
        clientDataJSON: Buffer.from(
          JSON.stringify({ type: "webauthn.get", challenge: "never-issued", origin: node.config.authUrl }),
        ).toString("base64url"),
        authenticatorData: "AAAA",
        signature: "AAAA",
      },
      clientExtensionResults: {},
    };
    const unknown = await postJson(c, "/signin/passkey", JSON.stringify({ response: forged }), csrf);
    expectError(unknown, 400, "invalid_request");
    expect(unknown.json.error_description).to.equal("This passkey request expired or was used already; start again.");
    // A real challenge, answered by a forgery: refused, and the challenge is spent.
    const options = await postJson(c, "/signin/passkey/options", "{}", csrf);
    expect(options.status).to.equal(200);
    expect(options.json).to.include({ rpId: "localhost", userVerification: "required" });
    expect(options.json.allowCredentials ?? []).to.deep.equal([]);
    const again = await postJson(c, "/signin/passkey/options", "{}", csrf);
    expect(again.json.challenge).to.not.equal(options.json.challenge);
    const withChallenge = (challenge: string) => ({
      ...forged,
      response: {
        ...forged.response,
        clientDataJSON: Buffer.from(
          JSON.stringify({ type: "webauthn.get", challenge, origin: node.config.authUrl }),
        ).toString("base64url"),
      },
    });
    const bad = await postJson(
      c,
      "/signin/passkey",
      JSON.stringify({ response: withChallenge(options.json.challenge) }),
      csrf,
    );
    expectError(bad, 400, "invalid_request");
    expect(bad.json.error_description).to.contain("not known here");
    const spent = await postJson(
      c,
      "/signin/passkey",
      JSON.stringify({ response: withChallenge(options.json.challenge) }),
      csrf,
    );
    expect(spent.json.error_description).to.contain("used already");
    expect((await c.get("/account")).status).to.equal(303); // still signed out
    // Adding one needs a session.
    expectError(await postJson(c, "/account/passkeys/options", "{}", csrf), 403, "access_denied");
    expectError(await postJson(c, "/account/delete/passkey/options", "{}", csrf), 403, "access_denied");
    // Other methods.
    const get = await c.get("/signin/passkey");
    expect(get.status).to.equal(405);
    // The six endpoints are in the OpenAPI document.
    const paths = Object.keys((await c.get("/openapi.json")).json.paths as object);
    expect(paths).to.include.members([
      "/account/passkeys/options",
      "/account/passkeys",
      "/signin/passkey/options",
      "/signin/passkey",
      "/account/delete/passkey/options",
      "/account/delete/passkey",
    ]);
    expect(node.logs.filter((l) => /"level":50/.test(l))).to.deep.equal([]);
  });

  it("A form body the pages' parser cannot read (a Content-Encoding that does not match, over 64 KB, a bad charset) sent to a passkey endpoint is refused in the JSON error format, not as a page", async () => {
    const node = await backend.startNode(PASSKEY_ENV);
    const c = new PageClient(node.url);
    await c.signUp("tigger");
    const csrf = csrfOf((await c.get("/account")).text);
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const form = "application/x-www-form-urlencoded";
    for (const path of ["/signin/passkey/options", "/signin/passkey", "/account/passkeys", "/account/delete/passkey"]) {
      const send = (headers: Record<string, string>, body: string) =>
        http(node.url, path, { method: "POST", headers: { cookie, "x-csrf-token": csrf, ...headers }, body });
      expectError(await send({ "content-type": form, "content-encoding": "gzip" }, "a=1"), 400, "invalid_request");
      expectError(await send({ "content-type": `${form}; charset=klingon` }, "a=1"), 400, "invalid_request");
      expectError(await send({ "content-type": form }, `a=${"x".repeat(70_000)}`), 413, "request_too_large");
    }
    expect(node.logs.filter((l) => /"level":50/.test(l))).to.deep.equal([]);
  });

  it("Renaming to an empty name is refused on the page; removing or renaming a passkey the user does not have is a 404", async () => {
    const node = await backend.startNode(PASSKEY_ENV);
    const c = new PageClient(node.url);
    await c.signUp("owl");
    await c.confirm();
    const account = await c.get("/account");
    expect(account.text).to.contain('id="passkeys"');
    expect(account.text).to.contain("You have no passkey yet.");
    const csrf = csrfOf(account.text);
    const rm = await c.post("/account/passkeys/AAAA/remove", { _csrf: csrf });
    expect(rm.status).to.equal(404);
    expect(rm.headers["content-type"]).to.match(/^text\/html/);
    expect((await c.post("/account/passkeys/AAAA/rename", { _csrf: csrf, name: "x" })).status).to.equal(404);
    const empty = await c.post("/account/passkeys/AAAA/rename", { _csrf: csrf, name: "  " });
    expect(empty.status).to.equal(400);
    expect(empty.text).to.contain("A passkey's name is 1 to 64 characters.");
    expect((await c.post("/account/passkeys/AAAA/remove", {})).status).to.equal(403); // no CSRF token
  });
});
