// docs/operations.md#audit-log: an owner's changes to their app on /developers (register, edit,
// rotate the secret, delete) and the operator's (`sigil apps create|update`) are audit records
// naming the app and who did it — never the secret. Records are written off the requests' path:
// the test waits for them (bounded, named). On both stores.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil, type CliResult } from "./support/cli.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { PageClient, registerApp } from "./support/pages.js";
import { waitFor } from "./support/wait.js";

interface Line {
  type: string;
  user_id?: string;
  username?: string;
  client_id?: string;
  actor?: { kind: string; id?: string };
  address?: string;
}

describeBackends("Audit log: apps", function (this: Mocha.Suite, backend) {
  this.timeout(60_000);
  let node: TestNode;
  const env = () => ({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() });
  const sigil = (...args: string[]) => runSigil(env(), ...args);
  const lines = (r: CliResult): Line[] =>
    r.out
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Line);
  const TYPES = ["app.created", "app.updated", "app.secret_rotated", "app.deleted"].flatMap((t) => ["--type", t]);

  async function auditOnce(n: number): Promise<{ got: Line[]; out: string }> {
    let last: CliResult | undefined;
    return waitFor(
      `${n} app audit records`,
      async () => {
        last = await sigil("audit", ...TYPES);
        expect(last.code, last.err).to.equal(0);
        const got = lines(last);
        return got.length >= n ? { got, out: last.out } : undefined;
      },
      { seen: () => `it printed: ${last?.out.slice(0, 2000)}` },
    );
  }

  it("When an owner registers, edits, rotates and deletes an app, and the operator makes and edits one, then each is a record naming the app and who", async () => {
    node = await backend.startNode();
    const dev = new PageClient(node.url);
    await dev.signUp("devon");
    const app = await registerApp(dev, ["https://a.example/cb"], "Mine");
    const edited = await dev.submit("/developers", `/developers/${app.clientId}/edit`, {
      name: "Mine 2",
      redirect_uri: "https://a.example/cb",
      post_logout_redirect_uri: "",
      homepage: "",
    });
    expect(edited.status, edited.text.slice(0, 300)).to.equal(200);
    const rotated = await dev.submit("/developers", `/developers/${app.clientId}/rotate`, {});
    expect(rotated.status).to.equal(200);
    const newSecret = /class="secret client-secret">([^<]+)</.exec(rotated.text)![1]!;
    // A refused edit changes nothing and records nothing.
    const refused = await dev.submit("/developers", `/developers/${app.clientId}/edit`, {
      name: "x".repeat(10_000),
      redirect_uri: "https://a.example/cb",
      post_logout_redirect_uri: "",
      homepage: "",
    });
    expect(refused.status).to.equal(400);
    await dev.submit("/developers", `/developers/${app.clientId}/delete`, {});
    const made = await sigil(
      "apps",
      "create",
      "--owner",
      "devon",
      "--name",
      "Ops",
      "--redirect-uri",
      "https://o.example/cb",
    );
    expect(made.code, made.err).to.equal(0);
    const opsId = (made.json as { client_id: string }).client_id;
    expect((await sigil("apps", "update", "--client-id", opsId, "--name", "Ops 2")).code).to.equal(0);

    const { got, out } = await auditOnce(6);
    const devonId = got.find((l) => l.type === "app.created" && l.actor?.kind === "user")!.user_id!;
    const mine = got.filter((l) => l.client_id === app.clientId);
    expect(mine.map((l) => l.type).toSorted()).to.deep.equal(
      ["app.created", "app.deleted", "app.secret_rotated", "app.updated"].toSorted(),
    );
    for (const l of mine) {
      expect(l).to.deep.include({ user_id: devonId, username: "devon", actor: { kind: "user", id: devonId } });
      expect(l.address).to.be.a("string");
    }
    const ops = got.filter((l) => l.client_id === opsId);
    expect(ops.map((l) => l.type).toSorted()).to.deep.equal(["app.created", "app.updated"]);
    for (const l of ops) expect(l).to.deep.include({ user_id: devonId, actor: { kind: "operator" } });
    expect(got.length).to.equal(6);
    expect(out).not.to.include(app.clientSecret).and.not.to.include(newSecret);
  });
});
