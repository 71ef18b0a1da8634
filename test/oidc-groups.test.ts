// The `groups` scope (docs/http-api.md#groups-claim): an unmodified relying party (openid-client v6)
// asks for it and finds the user's groups, sorted, in the ID token, at /userinfo and at
// /introspect; without the scope none of them says anything of groups. Groups are made with the
// real `sigil` program beside the node.
import { expect } from "chai";
import * as client from "openid-client";
import { describeBackends, oneBackend } from "./support/backends.js";
import { sigil } from "./support/cli.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { PageClient, authorize, registerApp, type TestApp } from "./support/pages.js";

const REDIRECT = "http://127.0.0.1:8765/callback";

describeBackends(
  "OpenID Connect: the groups claim",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    let node: TestNode;
    let app: TestApp;
    let person: PageClient;
    let config: client.Configuration;
    beforeEach(async () => {
      node = await backend.startNode();
      const dev = new PageClient(node.url);
      await dev.signUp("devon");
      app = await registerApp(dev, [REDIRECT], "Grafana");
      person = new PageClient(node.url);
      await person.signUp("gina", "password123", "Gina");
      config = await client.discovery(
        new URL(node.url),
        app.clientId,
        undefined,
        client.ClientSecretBasic(app.clientSecret),
        { execute: [client.allowInsecureRequests] },
      );
    });

    /** The code flow with openid-client, the person allowing what is asked. */
    async function signIn(scope: string) {
      const verifier = client.randomPKCECodeVerifier();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
      });
      const landed = await authorize(person, Object.fromEntries(url.searchParams));
      return client.authorizationCodeGrant(config, landed, {
        pkceCodeVerifier: verifier,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
    }

    it("When the app asks for `groups`, then the ID token, userinfo and introspection carry the user's groups, sorted, and a refresh sees a change", async () => {
      const env = { SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() };
      for (const args of [
        ["groups", "create", "--name", "Ops"],
        ["groups", "create", "--name", "admins"],
        ["groups", "create", "--name", "other"],
        ["groups", "add", "--name", "ops", "--username", "gina"],
        ["groups", "add", "--name", "admins", "--username", "gina"],
      ]) {
        const r = await sigil(env, ...args);
        expect(r.code, r.err).to.equal(0);
      }
      const tokens = await signIn("openid profile groups offline_access");
      expect(tokens.scope).to.equal("openid profile groups offline_access");
      const claims = tokens.claims()!;
      expect(claims.groups).to.deep.equal(["admins", "ops"]);
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      expect(info.groups).to.deep.equal(["admins", "ops"]);
      const seen = await client.tokenIntrospection(config, tokens.access_token);
      expect(seen).to.include({ active: true, sub: claims.sub });
      expect(seen.groups).to.deep.equal(["admins", "ops"]);
      const seenRefresh = await client.tokenIntrospection(config, tokens.refresh_token!);
      expect(seenRefresh.groups).to.deep.equal(["admins", "ops"]);

      // Taken out of one group: the next ID token (a refresh) and userinfo say so.
      const gina = (await node.opened.store.accounts.byUsername("gina"))!;
      expect(await node.opened.store.groups.removeMember("ops", gina.id)).to.equal("removed");
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect(refreshed.claims()!.groups).to.deep.equal(["admins"]);
      expect((await client.fetchUserInfo(config, refreshed.access_token, claims.sub)).groups).to.deep.equal(["admins"]);
    });

    it("When the user is in no group, then the claim is an empty list; without the scope there is no claim at all", async () => {
      const none = await signIn("openid groups");
      expect(none.claims()!.groups).to.deep.equal([]);
      expect((await client.fetchUserInfo(config, none.access_token, none.claims()!.sub)).groups).to.deep.equal([]);

      const store = node.opened.store;
      await store.groups.create({ name: "ops", createdAt: Date.now() });
      await store.groups.addMember("ops", none.claims()!.sub);
      const without = await signIn("openid profile");
      expect(without.claims()).to.not.have.property("groups");
      expect(await client.fetchUserInfo(config, without.access_token, without.claims()!.sub)).to.not.have.property(
        "groups",
      );
      expect(await client.tokenIntrospection(config, without.access_token)).to.not.have.property("groups");
    });

    it("When discovery is read, then `groups` is a supported scope and claim; the consent page names it in the page's language", async () => {
      const meta = config.serverMetadata();
      expect(meta.scopes_supported).to.include("groups");
      expect(meta.claims_supported).to.include("groups");
      const words: Record<string, string> = {
        en: "see which groups you are in",
        de: "sehen, in welchen Gruppen Sie sind",
        es: "ver en qué grupos estás",
        fr: "voir les groupes dont vous faites partie",
        ja: "所属しているグループを見る",
      };
      for (const [lang, text] of Object.entries(words)) {
        const q = new URLSearchParams({
          client_id: app.clientId,
          redirect_uri: REDIRECT,
          response_type: "code",
          scope: "openid groups",
          ui_locales: lang,
        });
        const page = await person.get(`/authorize?${q}`);
        expect(page.status).to.equal(200);
        expect([...page.text.matchAll(/<li data-scope="([a-z_]+)">/g)].map((m) => m[1])).to.deep.equal([
          "openid",
          "groups",
        ]);
        expect(page.text, lang).to.contain(text);
      }
    });
  },
  oneBackend("redis"),
);
