// docs/recipes/grafana.md, held to what it says: its [auth.generic_oauth] block's URLs are the ones
// Sigil's discovery names, its `scopes` are granted, and its `role_attribute_path` — evaluated by a
// real JMESPath implementation (Python's jmespath, as Grafana evaluates it with go-jmespath) on the
// ID token's claims and on the /userinfo answer, as Grafana does — gives Admin, Editor and Viewer
// to people in grafana-admins, grafana-editors and neither. `groups_attribute_path` gives the list.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import * as client from "openid-client";
import { describeBackends } from "./support/backends.js";
import { ROOT } from "./support/processes.js";
import { PageClient, authorize, registerApp, type TestApp } from "./support/pages.js";

const RECIPE = readFileSync(join(ROOT, "docs/recipes/grafana.md"), "utf8");
const REDIRECT = "https://grafana.example.com/login/generic_oauth";

/** The recipe's ```ini block: its [auth.generic_oauth] settings, by name. */
function genericOauth(): Record<string, string> {
  const ini = /^```ini\n([\s\S]*?)^```/m.exec(RECIPE)?.[1] ?? "";
  const section = ini.split("[auth.generic_oauth]\n")[1] ?? "";
  const out: Record<string, string> = {};
  for (const line of section.split("\n")) {
    const m = /^([a-z_]+) = (.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

const hasJmespath = () => spawnSync("python3", ["-c", "import jmespath"], { stdio: "ignore" }).status === 0;

/**
 * JMESPath expressions, each on its JSON document (Python's jmespath), in one python3 process:
 * a start costs about a second of wall time on a loaded 2-core machine, and spawnSync holds the
 * test process (and the node in it) meanwhile, so one process for the whole check, not one per
 * expression.
 */
function jmes(pairs: Array<[expression: string, doc: unknown]>): unknown[] {
  const run = spawnSync(
    "python3",
    ["-c", "import jmespath, json, sys; print(json.dumps([jmespath.search(e, d) for e, d in json.load(sys.stdin)]))"],
    { input: JSON.stringify(pairs), encoding: "utf8" },
  );
  if (run.status !== 0) throw new Error(`jmespath: ${run.stderr}`);
  return JSON.parse(run.stdout) as unknown[];
}

describeBackends(
  "Recipe: Grafana generic OAuth with groups",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    const settings = genericOauth();
    before(function () {
      if (hasJmespath()) return;
      console.warn(
        "\n  !!! python3 with jmespath is not installed: SKIPPING the Grafana recipe's JMESPath check. !!!\n",
      );
      this.skip();
    });

    it("When Grafana is set up as the recipe says, then each group's people get the role the recipe promises", async () => {
      expect(settings.scopes).to.equal("openid profile email groups");
      const node = await backend.startNode();
      const base = node.url;
      const dev = new PageClient(base);
      await dev.signUp("devon");
      const app: TestApp = await registerApp(dev, [REDIRECT], "Grafana");
      const config = await client.discovery(
        new URL(base),
        app.clientId,
        undefined,
        client.ClientSecretBasic(app.clientSecret),
        { execute: [client.allowInsecureRequests] },
      );
      // The recipe's URLs are discovery's, with the example host for this node's.
      const here = (url: string) => url.replace("https://sigil.example.com", base);
      const meta = config.serverMetadata();
      expect(here(settings.auth_url!)).to.equal(meta.authorization_endpoint);
      expect(here(settings.token_url!)).to.equal(meta.token_endpoint);
      expect(here(settings.api_url!)).to.equal(meta.userinfo_endpoint);
      expect(meta.code_challenge_methods_supported).to.include("S256"); // use_pkce = true

      const store = node.opened.store;
      for (const g of ["grafana-admins", "grafana-editors"]) await store.groups.create({ name: g, createdAt: 1 });
      const expected: Record<string, { groups: string[]; role: string }> = {
        alice: { groups: ["grafana-admins", "grafana-editors"], role: "Admin" },
        bob: { groups: ["grafana-editors"], role: "Editor" },
        carol: { groups: [], role: "Viewer" },
      };
      // The ID token's claims and the /userinfo answer of each, evaluated together below.
      const seen: Array<{ username: string; want: { groups: string[]; role: string }; doc: unknown }> = [];
      for (const [username, want] of Object.entries(expected)) {
        const person = new PageClient(base);
        await person.signUp(username, "password123", username);
        const user = (await store.accounts.byUsername(username))!;
        for (const g of want.groups) await store.groups.addMember(g, user.id);
        const verifier = client.randomPKCECodeVerifier();
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: settings.scopes!,
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: "S256",
        });
        const landed = await authorize(person, Object.fromEntries(url.searchParams));
        const tokens = await client.authorizationCodeGrant(config, landed, { pkceCodeVerifier: verifier });
        const claims = tokens.claims()!;
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        for (const doc of [claims, info]) seen.push({ username, want, doc });
      }
      const paths = [
        settings.role_attribute_path!,
        settings.groups_attribute_path!,
        settings.login_attribute_path!,
        settings.name_attribute_path!,
      ];
      const results = jmes(seen.flatMap(({ doc }) => paths.map((p): [string, unknown] => [p, doc])));
      expect(results).to.have.length(seen.length * paths.length);
      seen.forEach(({ username, want }, i) => {
        const [role, groups, login, name] = results.slice(i * paths.length, (i + 1) * paths.length);
        expect(role, username).to.equal(want.role);
        expect(groups, username).to.deep.equal(want.groups);
        expect(login, username).to.equal(username);
        expect(name, username).to.equal(username);
      });
    });
  },
  ["memory"],
);
