// docs/cli.md#sigil-invitations-create: `sigil invitations create [--email E]` prints a sign-up
// link once (SIGNUP=invite), beside a running node on the same store (its own process on the
// embedded store); the link makes one account on that node; a bad address changes nothing. The
// invitation is made by the real program (bin/sigil.js); the audit query and the refused address
// run in this process (support/cli.ts: the CLI worker, a process of its own, on the embedded store),
// as the real program's start costs ~3 s here and its exit status and streams are tested once per
// family elsewhere (`sigil audit` in test/audit.test.ts, a failure in test/cli-tokens.test.ts).
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil, sigilProcess } from "./support/cli.js";
import { TEST_SECRET } from "./support/nodes.js";
import { PageClient, csrfOf } from "./support/pages.js";

describeBackends("CLI: invitations", function (this: Mocha.Suite, backend) {
  this.timeout(60_000);

  it("When the operator makes an invitation, then the link is printed once, works once on the node, and is in the audit log without its token", async () => {
    const node = await backend.startNode({ SIGNUP: "invite" });
    const env = { SECRET: TEST_SECRET, NODE_ENV: "test", AUTH_URL: node.url, ...backend.env() };
    const r = await sigilProcess(env, "invitations", "create", "--email", "Ann@Example.org");
    expect(r.code, r.err).to.equal(0);
    const { link, email, expires_at } = r.json as { link: string; email: string; expires_at: string };
    expect(email).to.equal("Ann@example.org");
    expect(Date.parse(expires_at) - Date.now()).to.be.closeTo(7 * 86_400_000, 60_000);
    const url = new URL(link);
    const token = url.searchParams.get("invite")!;
    const c = new PageClient(node.url);
    const page = await c.get(url.pathname + url.search);
    expect(page.status).to.equal(200);
    const fields = { invite: token, username: "ann", password: "correct horse battery", email: "ann@example.org" };
    expect((await c.post("/signup", { _csrf: csrfOf(page.text), ...fields })).status).to.equal(303);
    const d = new PageClient(node.url);
    const again = await d.post("/signup", {
      _csrf: csrfOf((await d.get("/signin")).text),
      ...fields,
      username: "ann2",
    });
    expect(again.status).to.equal(410);
    const audit = await sigil(env, "audit", "--type", "invitation.created");
    expect(audit.code, audit.err).to.equal(0);
    expect(audit.lines).to.have.length(1);
    expect(audit.out).not.to.contain(token);
    const bad = await sigil(env, "invitations", "create", "--email", "x".repeat(10_000));
    expect(bad.code).to.equal(1);
    expect(bad.err).to.match(/email/i);
    expect(bad.out).to.equal("");
    expect(await node.server.services.invitations.list()).to.deep.equal([]);
  });
});
