// docs/recipes/client-credentials.md, held to what it says: its two ```js blocks — the caller's
// billingToken() and the called service's caller() — run as written against a node (the one
// change: openid-client is told that this test's Sigil is on http), after the recipe's
// `sigil apps update --m2m-scope`. A person's token, a token without the scope, and a disabled
// caller are refused by caller().
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "chai";
import { describeBackends, oneBackend } from "./support/backends.js";
import { sigil as runSigil } from "./support/cli.js";
import { offlinePair } from "./support/grants.js";
import { TEST_SECRET } from "./support/nodes.js";
import { ROOT } from "./support/processes.js";
import { PageClient, registerApp } from "./support/pages.js";

const RECIPE = readFileSync(join(ROOT, "docs/recipes/client-credentials.md"), "utf8");
const blocks = [...RECIPE.matchAll(/^```js\n([\s\S]*?)^```/gm)].map((m) => m[1]!);

describeBackends(
  "Recipe: a service calling another with client credentials",
  function (this: Mocha.Suite, backend) {
    this.timeout(60_000);
    let dir: string;
    beforeEach(() => {
      // Under node_modules, so that the blocks' `import "openid-client"` resolves as in an app.
      dir = mkdtempSync(join(ROOT, "node_modules", ".recipe-"));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("When reports gets a token as the recipe does and billing checks it as the recipe does, then billing names reports; a person's token, a scope not held and a disabled caller are refused", async () => {
      expect(blocks).to.have.length(2);
      const node = await backend.startNode();
      const dev = new PageClient(node.url);
      await dev.signUp("alice");
      const reports = await registerApp(dev, ["https://reports.example.com/cb"], "Reports");
      const billing = await registerApp(dev, ["https://billing.example.com/cb"], "Billing");
      const env = { SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() };
      expect(
        (await runSigil(env, "apps", "update", "--client-id", reports.clientId, "--m2m-scope", "invoices:read")).code,
      ).to.equal(0);
      Object.assign(process.env, {
        SIGIL_URL: node.url,
        REPORTS_ID: reports.clientId,
        REPORTS_SECRET: reports.clientSecret,
        BILLING_ID: billing.clientId,
        BILLING_SECRET: billing.clientSecret,
      });
      const callerJs = blocks[0]!.replace(
        "process.env.REPORTS_SECRET)",
        "process.env.REPORTS_SECRET, undefined, { execute: [client.allowInsecureRequests] })",
      );
      writeFileSync(join(dir, "reports.mjs"), callerJs);
      writeFileSync(join(dir, "billing.mjs"), blocks[1]!);
      const { billingToken } = (await import(pathToFileURL(join(dir, "reports.mjs")).href)) as {
        billingToken: () => Promise<string>;
      };
      const { caller } = (await import(pathToFileURL(join(dir, "billing.mjs")).href)) as {
        caller: (h: string | undefined) => Promise<string | null>;
      };
      const t = await billingToken();
      expect(await billingToken()).to.equal(t); // reused while it lasts
      expect(await caller(`Bearer ${t}`)).to.equal(reports.clientId);
      expect(await caller(undefined)).to.equal(null);
      // A person's token for reports (introspected by billing: not its own, so inactive) is refused.
      const person = await offlinePair(node.url, dev, reports);
      expect(await caller(`Bearer ${person.access}`)).to.equal(null);
      await runSigil(env, "apps", "update", "--client-id", reports.clientId, "--m2m-scope", "other:read");
      const r = await fetch(`${node.url}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${reports.clientId}:${reports.clientSecret}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "grant_type=client_credentials",
      });
      expect(await caller(`Bearer ${((await r.json()) as { access_token: string }).access_token}`)).to.equal(null);
      await runSigil(env, "apps", "update", "--client-id", reports.clientId, "--disabled", "on");
      expect(await caller(`Bearer ${t}`)).to.equal(null);
    });
  },
  oneBackend("lmdb"),
);
