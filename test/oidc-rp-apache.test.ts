// Apache httpd with mod_auth_openidc (Debian's apache2 and libapache2-mod-auth-openidc), unmodified,
// protects a folder with Sigil as its OpenID Provider: configuration alone (the discovery URL, a
// client id and secret, a passphrase), as an administrator writes it. The module fetches the
// discovery document and the JWKS itself, trades the code at /token (client_secret_basic),
// validates the ID token (its RS256 signature against /jwks, iss, aud, exp, nonce), reads
// /userinfo, and keeps its own session. Its info hook (`redirect_uri?info=json`) shows what it
// holds. The person's browser is played by cookie-keeping HTTP clients following each redirect.
// Where Apache or the module is not installed the suite says so loudly and skips; in CI it fails.
import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import { describeBackends } from "./support/backends.js";
import { freePort } from "./support/ports.js";
import { http } from "./support/http.js";
import { PageClient, capture, type TestApp } from "./support/pages.js";
import { locationOf, visitSigil } from "./support/rp.js";
import { IN_CI } from "./support/redis.js";

const APACHE = "/usr/sbin/apache2";
const MODULES = "/usr/lib/apache2/modules";
const OPENIDC = join(MODULES, "mod_auth_openidc.so");

function requireApache(ctx: Mocha.Context): void {
  if (existsSync(APACHE) && existsSync(OPENIDC)) return;
  const what = "Apache with mod_auth_openidc (apt-get install -y apache2 libapache2-mod-auth-openidc)";
  if (IN_CI) throw new Error(`${what} is missing: the relying-party suites are mandatory in CI (CI=true)`);
  console.warn(`\n  !!! ${what} is missing: SKIPPING its suite. !!!\n`);
  ctx.skip();
}

interface Apache {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

/** An Apache of its own (its ServerRoot a temporary folder, a free port), in the foreground. */
async function startApache(sigil: string, app: TestApp, port: number, dir: string): Promise<Apache> {
  const url = `http://127.0.0.1:${port}`;
  const docs = join(dir, "htdocs");
  mkdirSync(join(docs, "private"), { recursive: true });
  writeFileSync(join(docs, "private", "index.html"), "<p>behind Sigil</p>\n");
  writeFileSync(join(docs, "signed-out.html"), "<p>signed out</p>\n");
  // The workers run as an unprivileged user (Apache refuses to serve as root): they read the files.
  for (const d of [dir, docs, join(docs, "private")]) chmodSync(d, 0o755);
  chmodSync(join(docs, "private", "index.html"), 0o644);
  chmodSync(join(docs, "signed-out.html"), 0o644);
  const conf = `
ServerRoot ${dir}
Listen 127.0.0.1:${port}
ServerName 127.0.0.1
PidFile ${dir}/httpd.pid
ErrorLog ${dir}/error.log
LogLevel warn auth_openidc:info
Mutex file:${dir} default
LoadModule mpm_event_module ${MODULES}/mod_mpm_event.so
LoadModule authz_core_module ${MODULES}/mod_authz_core.so
LoadModule authz_user_module ${MODULES}/mod_authz_user.so
LoadModule authn_core_module ${MODULES}/mod_authn_core.so
LoadModule dir_module ${MODULES}/mod_dir.so
LoadModule auth_openidc_module ${OPENIDC}
DocumentRoot ${docs}
DirectoryIndex index.html
StartServers 1
ServerLimit 1
ThreadsPerChild 8
MaxRequestWorkers 8

OIDCProviderMetadataURL ${sigil}/.well-known/openid-configuration
OIDCClientID ${app.clientId}
OIDCClientSecret ${app.clientSecret}
OIDCRedirectURI ${url}/private/redirect_uri
OIDCCryptoPassphrase a-passphrase-of-the-test-only
OIDCScope "openid profile"
OIDCInfoHook iat access_token id_token userinfo session
<Location /private>
  AuthType openid-connect
  Require valid-user
</Location>
`;
  const file = join(dir, "httpd.conf");
  writeFileSync(file, conf);
  const proc: ChildProcess = spawn(APACHE, ["-f", file, "-DFOREGROUND"], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  proc.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`apache2 exited ${proc.exitCode}: ${stderr}`);
    const up = await http(url, "/").catch(() => undefined);
    if (up) break;
    if (Date.now() > deadline) throw new Error(`apache2 did not answer: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    dir,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGTERM");
      }),
  };
}

/** The bytes of an answer, as they came (the module's error page is more than node's parser accepts). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => {
      const lines = Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("");
      s.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${lines}Connection: close\r\n\r\n`);
    });
    let got = "";
    s.on("data", (c: Buffer) => (got += c.toString("utf8")));
    s.on("end", () => resolve(got));
    s.on("error", reject);
  });
}

/** What a browser's navigation sends (the module answers 401, not a redirect, to what does not look like one). */
const NAVIGATE = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

describeBackends("Apache mod_auth_openidc signs a person in", (backend) => {
  let base: string;
  let apache: Apache | undefined;
  let app: TestApp;
  let dev: PageClient;
  let person: PageClient;
  let browser: PageClient;
  let dir: string;
  before(function () {
    requireApache(this);
  });
  beforeEach(async function () {
    this.timeout(30_000);
    // A test whose title names ES256 runs on a node that signs ID tokens so.
    const alg = /ES256/.test(this.currentTest?.title ?? "") ? "ES256" : "RS256";
    base = (await backend.startNode({ DELIVERY_POLL: "20", ID_TOKEN_SIGNING_ALG: alg })).url;
    dev = new PageClient(base);
    await dev.signUp("devon");
    const port = await freePort();
    // Registered with the page people land on after signing out (the module's logout sends them there).
    const made = await dev.submit("/developers", "/developers", {
      name: "Apache Site",
      redirect_uri: `http://127.0.0.1:${port}/private/redirect_uri`,
      post_logout_redirect_uri: `http://127.0.0.1:${port}/signed-out.html`,
    });
    expect(made.status).to.equal(201);
    app = {
      clientId: capture(/class="client-id">([^<]+)</, made.text, "client id"),
      clientSecret: capture(/class="secret client-secret">([^<]+)</, made.text, "client secret"),
      redirectUri: `http://127.0.0.1:${port}/private/redirect_uri`,
    };
    dir = mkdtempSync(join(tmpdir(), "sigil-apache-"));
    apache = await startApache(base, app, port, dir);
    person = new PageClient(base);
    await person.signUp("apache.user", "password123", "Apache User");
    browser = new PageClient(apache.url); // the same browser, on the site's origin
  });
  afterEach(async () => {
    await apache?.stop();
    apache = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** The person signs in through the site; what the module holds then (its info hook). */
  async function signIn() {
    const toSigil = locationOf(await browser.get("/private/", NAVIGATE), apache!.url);
    const back = await visitSigil(person, toSigil);
    const done = await browser.get(back.pathname + back.search, NAVIGATE);
    expect(done.status, `${done.text}\n${errors()}`).to.equal(302);
    const info = await browser.get("/private/redirect_uri?info=json");
    expect(info.status, info.text).to.equal(200);
    return info.json as { id_token: Record<string, unknown>; userinfo: Record<string, unknown> };
  }

  /** The errors the module logged (its own words when it refuses what the provider sent). */
  const errors = () =>
    readFileSync(join(dir, "error.log"), "utf8")
      .split("\n")
      .filter((l) => /\[auth_openidc:(error|crit|alert|emerg)\]/.test(l))
      .join("\n");

  it("When the person allows, then the folder opens, and the module holds a verified ID token and the userinfo", async () => {
    const toSigil = locationOf(await browser.get("/private/", NAVIGATE), apache!.url);
    expect(toSigil.origin + toSigil.pathname).to.equal(`${base}/authorize`);
    expect(toSigil.searchParams.get("client_id")).to.equal(app.clientId);
    expect(toSigil.searchParams.get("nonce")).to.have.length.greaterThan(10);
    const back = await visitSigil(person, toSigil);
    expect(back.origin + back.pathname).to.equal(`${apache!.url}/private/redirect_uri`);
    const done = await browser.get(back.pathname + back.search, NAVIGATE);
    expect(done.status, `${done.text}\n${errors()}`).to.equal(302);
    expect(new URL(done.headers.location as string, apache!.url).pathname).to.equal("/private/");
    const page = await browser.get("/private/", NAVIGATE);
    expect(page.status).to.equal(200);
    expect(page.text).to.include("behind Sigil");

    const info = await browser.get("/private/redirect_uri?info=json");
    expect(info.status, info.text).to.equal(200);
    const held = info.json as {
      id_token: Record<string, unknown>;
      userinfo: Record<string, unknown>;
      access_token: string;
    };
    // The claims of the ID token the module accepted (after its own checks of signature and claims).
    expect(held.id_token).to.include({ iss: base, aud: app.clientId, nonce: toSigil.searchParams.get("nonce") });
    expect(held.userinfo).to.include({
      sub: held.id_token.sub,
      name: "Apache User",
      preferred_username: "apache.user",
    });
    // The access token it holds works at /userinfo as the app's.
    const ui = await http(base, "/userinfo", { headers: { authorization: `Bearer ${held.access_token}` } });
    expect(ui.status).to.equal(200);
    expect(ui.json.sub).to.equal(held.id_token.sub);
    expect(errors()).to.equal("");
  });

  it("When the provider signs ID tokens with ES256, then the module verifies them too", async () => {
    const held = await signIn();
    expect(held.id_token).to.include({ iss: base, aud: app.clientId });
    expect((await http(base, "/jwks")).json.keys[0]).to.include({ kty: "EC", alg: "ES256" });
    expect((await browser.get("/private/", NAVIGATE)).status).to.equal(200);
    expect(errors()).to.equal("");
  });

  it("When the person denies, then the folder stays closed", async () => {
    const toSigil = locationOf(await browser.get("/private/", NAVIGATE), apache!.url);
    const back = await visitSigil(person, toSigil, "deny");
    expect(back.searchParams.get("error")).to.equal("access_denied");
    expect(back.searchParams.get("state")).to.equal(toSigil.searchParams.get("state"));
    // RFC 9207: the error names its issuer too (oauth4webapi and openid-client require it of a
    // provider that says it sends it). The module reads an answer with "iss" and without "code" as
    // a discovery page's answer, and shows its "Invalid Request" page rather than access_denied
    // (docs/recipes/apache.md); it writes that page with more bytes than its Content-Length, which
    // node's parser refuses, so it is read raw here. What matters to the person: no session.
    expect(back.searchParams.get("iss")).to.equal(base);
    const done = await rawGet(apache!.url, back.pathname + back.search, { ...browser.cookieHeader(), ...NAVIGATE });
    expect(done).to.match(/^HTTP\/1\.1 \d{3} /);
    expect(done).to.not.match(/^Set-Cookie: mod_auth_openidc_session/im);
    const again = await browser.get("/private/", NAVIGATE);
    expect(again.status).to.equal(302); // still sent to sign in
    expect(locationOf(again, apache!.url).origin).to.equal(base);
  });

  it("When the site's logout is used, then the module ends its session, Sigil ends the person's, and the browser lands on the site's page", async () => {
    const toSigil = locationOf(await browser.get("/private/", NAVIGATE), apache!.url);
    const back = await visitSigil(person, toSigil);
    expect((await browser.get(back.pathname + back.search, NAVIGATE)).status).to.equal(302);
    expect((await browser.get("/private/", NAVIGATE)).status).to.equal(200);
    expect((await person.get("/account")).status).to.equal(200);

    // The module's own logout: it forgets its session and sends the browser to Sigil's
    // end_session_endpoint with the ID token as hint and the page to come back to.
    const after = `${apache!.url}/signed-out.html`;
    const out = locationOf(
      await browser.get(`/private/redirect_uri?logout=${encodeURIComponent(after)}`, NAVIGATE),
      apache!.url,
    );
    expect(out.origin + out.pathname).to.equal(`${base}/logout`);
    expect(out.searchParams.get("post_logout_redirect_uri")).to.equal(after);
    expect(out.searchParams.get("id_token_hint")).to.have.length.greaterThan(20);
    const ended = await person.get(out.pathname + out.search);
    expect(ended.status, ended.text.slice(0, 300)).to.equal(303);
    expect(new URL(ended.headers.location as string).href.split("?")[0]).to.equal(after);
    expect((await person.get("/account")).status).to.not.equal(200); // signed out of Sigil
    expect((await browser.get("/private/", NAVIGATE)).status).to.equal(302); // and of the site
    expect(errors()).to.equal("");
  });

  it("When the person signs out of Sigil, then its back-channel logout token ends the module's session (Back-Channel Logout 1.0)", async () => {
    // The module's back-channel endpoint, registered as the app's back-channel logout URL.
    const set = await dev.submit("/developers", `/developers/${app.clientId}/events`, {
      webhook_url: "",
      backchannel_logout_uri: `${apache!.url}/private/redirect_uri?logout=backchannel`,
    });
    expect(set.status).to.equal(200);
    const toSigil = locationOf(await browser.get("/private/", NAVIGATE), apache!.url);
    const back = await visitSigil(person, toSigil);
    expect((await browser.get(back.pathname + back.search, NAVIGATE)).status).to.equal(302);
    expect((await browser.get("/private/", NAVIGATE)).status).to.equal(200);

    expect((await person.submit("/account", "/signout", {})).status).to.equal(303);
    // Sigil POSTs the logout token; the module validates it (signature, iss, aud, iat, events, sid)
    // and removes the session of that sid.
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await browser.get("/private/", NAVIGATE)).status;
    }
    expect(status, errors()).to.equal(302);
    expect(errors()).to.equal("");
  });
});
