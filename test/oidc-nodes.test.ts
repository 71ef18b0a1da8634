// OpenID Connect across nodes on one Redis (docs/http-api.md#keys): a key rotated with the real
// `sigil keys rotate` shows in every node's JWKS at once, and once it activates (a short
// KEY_ACTIVATION_DELAY here) every node signs with it; apps made with
// `sigil apps create --post-logout-redirect-uri` sign out through any node.
import { expect } from "chai";
import { decodeProtectedHeader } from "jose";
import { describeBackends } from "./support/backends.js";
import { sigil as sigilIn, sigilProcess } from "./support/cli.js";
import { PageClient } from "./support/pages.js";
import { jwksOf, signInWith, verifyIdToken } from "./support/oidc.js";
import { TEST_SECRET } from "./support/nodes.js";

describeBackends(
  "OpenID Connect across nodes",
  (backend) => {
    /** The `sigil` command against this suite's Redis, with the nodes' SECRET (in this process: support/cli.ts). */
    async function sigil(env: Record<string, string>, ...args: string[]) {
      const r = await sigilIn({ REDIS_URL: backend.redis!.url, SECRET: TEST_SECRET, ...env }, ...args);
      return { status: r.code, out: r.out.trim(), err: r.err.trim() };
    }

    it("When `sigil keys rotate` runs, then node B lists the new key at once and, after the activation delay, signs with it", async function () {
      this.timeout(60_000);
      const settings = { KEY_ACTIVATION_DELAY: "2", KEY_CACHE_TTL: "1" };
      const a = await backend.startNode(settings);
      // Behind one public address, as behind a load balancer: one issuer.
      const b = await backend.startNode({ ...settings, BASE_URL: a.url });
      const made = await sigil({}, "users", "create", "--username", "rota", "--password", "long enough pw");
      expect(made.status, made.err).to.equal(0);
      const appOut = await sigil(
        {},
        "apps",
        "create",
        "--owner",
        "rota",
        "--name",
        "Rotating RP",
        "--redirect-uri",
        "https://rp.example/cb",
        "--post-logout-redirect-uri",
        "https://rp.example/bye",
        "--post-logout-redirect-uri",
        "https://rp.example/later",
      );
      expect(appOut.status, appOut.err).to.equal(0);
      const created = JSON.parse(appOut.out) as Record<string, unknown>;
      expect(created.post_logout_redirect_uris).to.deep.equal(["https://rp.example/bye", "https://rp.example/later"]);
      const app = {
        clientId: created.client_id as string,
        clientSecret: created.client_secret as string,
        redirectUri: "https://rp.example/cb",
      };
      const person = new PageClient(a.url);
      await person.signUp("nadia");
      const onB = new PageClient(b.url);
      for (const [k, v] of person.cookies) onB.cookies.set(k, v);

      const oldKid = (await jwksOf(b.url)).set.keys[0]!.kid;
      const first = await signInWith(b.url, onB, app, { scope: "openid" });
      expect(decodeProtectedHeader(first.json.id_token).kid).to.equal(oldKid);

      // The real program (node bin/sigil.js), once for the keys commands.
      const rotated = await sigilProcess(
        { REDIS_URL: backend.redis!.url, SECRET: TEST_SECRET, KEY_ACTIVATION_DELAY: "2" },
        "keys",
        "rotate",
      );
      expect(rotated.code, rotated.err).to.equal(0);
      const { kid } = rotated.json as { kid: string };
      for (const n of [a, b]) expect((await jwksOf(n.url)).set.keys.map((k) => k.kid)).to.have.members([oldKid, kid]);

      // B signs with the new key once it is active (2 s) and B's cache (1 s) has read it.
      const deadline = Date.now() + 10_000;
      let seen = oldKid;
      let idToken = "";
      while (seen !== kid && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        idToken = (await signInWith(b.url, onB, app, { scope: "openid" })).json.id_token;
        seen = String(decodeProtectedHeader(idToken).kid);
      }
      expect(seen).to.equal(kid);
      await verifyIdToken(a.url, idToken, app.clientId); // A's JWKS validates B's token
      await verifyIdToken(a.url, first.json.id_token, app.clientId); // and still the old key's
      // A signs with it too.
      const onA = new PageClient(a.url);
      for (const [k, v] of onB.cookies) onA.cookies.set(k, v);
      const fromA = await signInWith(a.url, onA, app, { scope: "openid" });
      expect(decodeProtectedHeader(fromA.json.id_token).kid).to.equal(kid);

      // The registered post-logout URL works through B with A's ID token.
      const out = await onB.get(
        `/logout?${new URLSearchParams({ id_token_hint: fromA.json.id_token, post_logout_redirect_uri: "https://rp.example/later", state: "x" })}`,
      );
      expect(out.status).to.equal(303);
      expect(out.headers.location).to.equal("https://rp.example/later?state=x");
    });

    it("When `sigil apps create` gets a bad --post-logout-redirect-uri, then it fails clearly and makes nothing", async function () {
      this.timeout(30_000);
      await backend.startNode();
      expect((await sigil({}, "users", "create", "--username", "pat", "--password", "long enough pw")).status).to.equal(
        0,
      );
      const r = await sigil(
        {},
        "apps",
        "create",
        "--owner",
        "pat",
        "--name",
        "X",
        "--redirect-uri",
        "https://x.example/cb",
        "--post-logout-redirect-uri",
        "http://x.example/bye",
      );
      expect(r.status).to.equal(1);
      expect(r.err).to.match(/^sigil: Post-logout redirect URL: /);
      expect(r.out).to.equal("");
    });
  },
  ["redis"],
);
