// Authlib (Python; Debian's python3-authlib), unmodified, signs a person in with configuration alone
// (the discovery document, a client id and secret, the redirect URL): its OAuth2Session with PKCE
// and a nonce, client_secret_basic at /token, its own checks of the ID token (the signature
// against /jwks, iss, aud, exp, iat, nonce, at_hash: CodeIDToken), /userinfo, and a refresh with a
// new ID token. The app is test/support/authlib-rp.py; the person's browser is played by a
// cookie-keeping HTTP client. Where Python's Authlib is not installed the suite says so loudly and
// skips; in CI it fails.
import { expect } from "chai";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describeBackends } from "./support/backends.js";
import { PageClient, registerApp } from "./support/pages.js";
import { visitSigil } from "./support/rp.js";
import { IN_CI } from "./support/redis.js";

const PYTHON = "/usr/bin/python3";
const SCRIPT = fileURLToPath(new URL("./support/authlib-rp.py", import.meta.url));

function requireAuthlib(ctx: Mocha.Context): void {
  const probe = spawnSync(PYTHON, ["-c", "import authlib, requests"], { stdio: "ignore" });
  if (probe.status === 0) return;
  const what = "Python's Authlib (apt-get install -y python3-authlib python3-requests)";
  if (IN_CI) throw new Error(`${what} is missing: the relying-party suites are mandatory in CI (CI=true)`);
  console.warn(`\n  !!! ${what} is missing: SKIPPING its suite. !!!\n`);
  ctx.skip();
}

/** The app, started: the lines it prints, one at a time, and a way to answer. */
function startApp(args: string[]) {
  const proc: ChildProcess = spawn(PYTHON, [SCRIPT, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  return {
    proc,
    async next(): Promise<Record<string, any>> {
      const line = await lines.next();
      if (line.done) throw new Error(`the Authlib app ended: ${stderr}`);
      return JSON.parse(line.value) as Record<string, any>;
    },
    answer: (s: string) => proc.stdin!.write(`${s}\n`),
  };
}

describeBackends("Authlib signs a person in", (backend) => {
  let app: ReturnType<typeof startApp> | undefined;
  before(function () {
    requireAuthlib(this);
  });
  afterEach(() => {
    app?.proc.kill();
    app = undefined;
  });

  for (const alg of ["RS256", "ES256"]) {
    it(`When the person allows (ID tokens signed with ${alg}), then the app holds an ID token it verified itself, the userinfo, and a refresh`, async function () {
      this.timeout(30_000);
      const base = (await backend.startNode({ ID_TOKEN_SIGNING_ALG: alg })).url;
      const dev = new PageClient(base);
      await dev.signUp("devon");
      const callback = "http://127.0.0.1:9/authlib/callback"; // never opened: the test hands the URL over
      const registered = await registerApp(dev, [callback], "Authlib App");
      const person = new PageClient(base);
      await person.signUp("authlib.user", "password123", "Authlib User");

      app = startApp([base, registered.clientId, registered.clientSecret, callback]);
      const { url } = await app.next();
      const toSigil = new URL(url as string);
      expect(toSigil.searchParams.get("code_challenge_method")).to.equal("S256");
      const back = await visitSigil(person, toSigil);
      expect(back.origin + back.pathname).to.equal(callback);
      app.answer(back.href);
      const done = await app.next();
      expect(done.error, done.error).to.equal(undefined);
      expect(done.alg).to.equal(alg);
      expect(done.claims).to.include({ iss: base, aud: registered.clientId });
      expect(done.token).to.include.members(["access_token", "id_token", "refresh_token", "expires_in"]);
      expect(done.userinfo).to.include({
        sub: done.claims.sub,
        name: "Authlib User",
        preferred_username: "authlib.user",
      });
      expect(done.refreshed).to.deep.equal({ sub: done.claims.sub, new_refresh_token: true });
    });
  }
});
