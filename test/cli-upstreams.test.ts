// docs/cli.md#sigil-upstreams-list: `sigil upstreams list|add|remove` beside a running node, on
// every backend a node runs on: a provider added by the CLI is offered by the node at once (its
// secret read from standard input, sealed, never printed), listed after the settings' ones, and
// removed with a count of its linked accounts; bad values and taken ids are usage errors that
// store nothing; each change is in the audit log by the operator.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil, sigilWithInput } from "./support/cli.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { PageClient, decodeHtml } from "./support/pages.js";

const SECRET_OF_CLIENT = "cli-client-secret-0123456789";

describeBackends("CLI: upstream providers", function (this: Mocha.Suite, backend) {
  this.timeout(60_000);
  let node: TestNode;
  const settings = {
    UPSTREAM_LAB_KIND: "github",
    UPSTREAM_LAB_CLIENT_ID: "lab-id",
    UPSTREAM_LAB_CLIENT_SECRET: "lab-secret",
  };
  const env = () => ({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env(), ...settings });
  const sigil = (...args: string[]) => runSigil(env(), ...args);
  beforeEach(async () => {
    node = await backend.startNode(settings);
  });
  const buttons = async () => decodeHtml((await new PageClient(node.url).get("/signin")).text);

  it("When the operator adds a provider, then the node offers it at once, list shows it after the settings' one without its secret, and remove takes it away", async () => {
    const add = await sigilWithInput(
      `${SECRET_OF_CLIENT}\n`,
      env(),
      ...["upstreams", "add", "--kind", "oidc", "--id", "Corp", "--name", "Corp SSO"],
      ...["--issuer", "https://sso.corp.example/", "--client-id", "sigil", "--client-secret", "-"],
    );
    expect(add.code, add.err).to.equal(0);
    // The callback is under the CLI's AUTH_URL (its settings'), as a node's pages show it under theirs.
    expect(add.json.id).to.equal("corp");
    expect(add.json.callback).to.match(/^https?:\/\/[^/]+\/upstream\/corp\/callback$/);
    expect(await buttons())
      .to.contain("Continue with Corp SSO")
      .and.contain("Continue with GitHub");
    const list = await sigil("upstreams", "list");
    expect(list.code, list.err).to.equal(0);
    expect(list.out).not.to.contain(SECRET_OF_CLIENT).and.not.to.contain("lab-secret");
    expect(list.lines.map((l) => [l.id, l.from, l.issuer])).to.deep.equal([
      ["lab", "settings", "https://github.com"],
      ["corp", "admin", "https://sso.corp.example"],
    ]);
    const stored = await node.opened.store.upstreamProviders.get("corp");
    expect(JSON.stringify(stored)).not.to.contain(SECRET_OF_CLIENT);
    expect((await node.server.services.upstreams.byId("corp"))?.clientSecret).to.equal(SECRET_OF_CLIENT);

    const removed = await sigil("upstreams", "remove", "--id", "CORP");
    expect(removed.code, removed.err).to.equal(0);
    expect(removed.json).to.deep.equal({ id: "corp", accounts: 0 });
    expect(await buttons()).not.to.contain("Continue with Corp SSO");
    const audit = (await sigil("audit", "--type", "upstream.added", "--type", "upstream.removed")).lines;
    expect(audit.map((a) => `${a.type} ${a.upstream} ${a.actor?.kind}`)).to.deep.equal([
      "upstream.added corp operator",
      "upstream.removed corp operator",
    ]);
    expect(JSON.stringify(audit)).not.to.contain(SECRET_OF_CLIENT);
  });

  it("When a value is bad or the id is taken, then it is a usage error naming the option, and nothing is stored", async () => {
    const base = ["upstreams", "add", "--kind", "oidc", "--id", "corp", "--client-id", "c", "--client-secret", "s"];
    const cases: Array<[string[], RegExp]> = [
      [[...base], /--issuer is required for kind oidc/],
      [[...base, "--issuer", "ftp://x.example"], /--issuer must be an absolute http\(s\) URL/],
      [
        [...base, "--issuer", "https://x.example", "--api-url", "https://a.example"],
        /--api-url is only for kind github/,
      ],
      [[...base, "--issuer", "https://x.example", "--name", "n".repeat(41)], /--name must be 1 to 40 characters/],
      [["upstreams", "add", "--kind", "saml", "--id", "x", "--client-id", "c", "--client-secret", "s"], /--kind /],
      [
        ["upstreams", "add", "--kind", "github", "--id", "a-b", "--client-id", "c", "--client-secret", "s"],
        /--id must be 1 to 32/,
      ],
      [
        ["upstreams", "add", "--kind", "github", "--id", "LAB", "--client-id", "c", "--client-secret", "s"],
        /--id is taken/,
      ],
      [["upstreams", "add", "--kind", "github", "--id", "x", "--client-id", "c"], /--client-secret is required/],
      [["upstreams", "remove", "--id", "lab"], /set by the settings/],
      [["upstreams", "remove", "--id", "nope"], /no upstream provider "nope"/],
    ];
    for (const [args, message] of cases) {
      const r = await sigil(...args);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(r.out, args.join(" ")).to.equal("");
      expect(r.err, args.join(" "))
        .to.match(/^sigil: /)
        .and.match(message);
    }
    expect(await node.opened.store.upstreamProviders.list()).to.deep.equal([]);
  });
});
