// CONTRACT §14 "Apps", docs/cli.md#sigil-apps-update: an app the operator marks first-party
// (`sigil apps update --trusted on`) signs people in without a consent page; the consent is
// recorded as given, and /account lists the app, saying it was trusted; prompt=consent still asks.
// `--trusted off`: the page again for whoever has not allowed it. On both stores.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil, type CliResult } from "./support/cli.js";
import { TEST_SECRET } from "./support/nodes.js";
import { PageClient, registerApp } from "./support/pages.js";

const CB = "https://app.example/callback";

describeBackends("First-party apps (sigil apps update --trusted)", function (this: Mocha.Suite, backend) {
  this.timeout(90_000);
  const sigil = (...args: string[]): Promise<CliResult> =>
    runSigil({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() }, ...args);

  it("When an app is trusted, then /authorize gives a code without asking, the consent is recorded and /account says the app was trusted; prompt=consent still asks; untrusted, the page comes back", async () => {
    const node = await backend.startNode();
    const dev = new PageClient(node.url);
    await dev.signUp("dev");
    const app = await registerApp(dev, [CB], "Wiki");
    const on = await sigil("apps", "update", "--client-id", app.clientId, "--trusted", "on");
    expect(on.code, on.err).to.equal(0);
    expect(on.json).to.include({ client_id: app.clientId, trusted: true });

    const ask = (extra: Record<string, string> = {}) =>
      `/authorize?${new URLSearchParams({ response_type: "code", client_id: app.clientId, redirect_uri: CB, scope: "openid profile", state: "s1", ...extra })}`;
    const ann = new PageClient(node.url);
    await ann.signUp("ann");
    const first = await ann.get(ask());
    expect(first.status, first.text.slice(0, 300)).to.equal(303);
    const landed = new URL(first.headers.location as string);
    expect(landed.origin + landed.pathname).to.equal(CB);
    expect(landed.searchParams.get("code")).to.match(/.+/);
    expect(landed.searchParams.get("state")).to.equal("s1");
    const account = await ann.get("/account");
    expect(account.text).to.include("Wiki");
    expect(account.text).to.include("trusted by this service’s operator");
    // Asked for explicitly, the consent page is shown anyway.
    const asked = await ann.get(ask({ prompt: "consent" }));
    expect(asked.status).to.equal(200);
    expect(asked.text).to.include('name="decision"');

    const off = await sigil("apps", "update", "--client-id", app.clientId, "--trusted", "off");
    expect(off.code, off.err).to.equal(0);
    expect(off.json).to.not.have.property("trusted");
    const bea = new PageClient(node.url);
    await bea.signUp("bea");
    const page = await bea.get(ask());
    expect(page.status).to.equal(200);
    expect(page.text).to.include('name="decision"');
    // Ann allowed it while it was trusted: her consent stands.
    expect((await ann.get(ask())).status).to.equal(303);

    const log = await sigil("audit", "--type", "app.trusted", "--type", "app.untrusted");
    expect(log.lines.map((l: { type: string }) => l.type)).to.deep.equal(["app.trusted", "app.untrusted"]);
  });
});
