// docs/cli.md#sigil-apps-list: `sigil apps list [--owner U]` on every backend a node runs on: every
// app once (a page boundary crossed), its owner's username and flags, never a secret; --owner lists
// one user's; an unknown owner is a usage error. One run goes through the real program.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil, sigilProcess } from "./support/cli.js";
import { TEST_SECRET } from "./support/nodes.js";

describeBackends("CLI: apps list", function (this: Mocha.Suite, backend) {
  this.timeout(120_000);
  const env = () => ({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() });
  const sigil = (...args: string[]) => runSigil(env(), ...args);
  const ok = async (...args: string[]) => {
    const r = await sigil(...args);
    expect(r.code, `${args.join(" ")}: ${r.err}`).to.equal(0);
    return r;
  };

  beforeEach(async () => {
    for (const u of ["ulla", "bob"]) await ok("users", "create", "--username", u, "--password", "a good password 1");
  });

  it("When apps exist, then list prints each once with its owner and flags and no secret, and --owner only theirs", async () => {
    const a = (
      await ok("apps", "create", "--owner", "ulla", "--name", "Wiki", "--redirect-uri", "https://wiki.example/cb")
    ).json;
    const b = (
      await ok(
        "apps",
        "create",
        "--owner",
        "bob",
        "--name",
        "Spa",
        "--redirect-uri",
        "https://spa.example/cb",
        "--public",
      )
    ).json;
    await ok("groups", "create", "--name", "ops");
    await ok("apps", "update", "--client-id", a.client_id, "--groups", "ops");
    await ok("apps", "update", "--client-id", a.client_id, "--m2m-scope", "wiki:read");
    const lines = (await ok("apps", "list")).lines;
    const expected = [
      {
        client_id: a.client_id,
        name: "Wiki",
        owner: "ulla",
        redirect_uris: ["https://wiki.example/cb"],
        public: false,
        trusted: false,
        disabled: false,
        groups: ["ops"],
        m2m_scopes: ["wiki:read"],
      },
      {
        client_id: b.client_id,
        name: "Spa",
        owner: "bob",
        redirect_uris: ["https://spa.example/cb"],
        public: true,
        trusted: false,
        disabled: false,
        groups: [],
        m2m_scopes: [],
      },
    ].toSorted((x, y) => (x.client_id < y.client_id ? -1 : 1));
    expect(lines.map(({ created_at: _at, ...rest }) => rest)).to.deep.equal(expected);
    for (const l of lines) expect(Date.parse(l.created_at)).to.be.closeTo(Date.now(), 120_000);
    expect((await ok("apps", "list")).out).not.to.include(a.client_secret);
    expect((await ok("apps", "list", "--owner", "BOB")).lines.map((l) => l.client_id)).to.deep.equal([b.client_id]);
    const real = await sigilProcess(env(), "apps", "list", "--owner", "ulla");
    expect(real.code, real.err).to.equal(0);
    expect(
      real.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).client_id),
    ).to.deep.equal([a.client_id]);
  });

  it("When more apps exist than one page, then each comes once, in client id order", async () => {
    const made: string[] = [];
    for (let i = 0; i < 503; i += 1) made.push(`c${i}`);
    const { opened } = await backend.startNode();
    const ulla = (await opened.store.accounts.byUsername("ulla"))!;
    await Promise.all(
      made.map((clientId) =>
        opened.store.apps.create({
          clientId,
          ownerId: ulla.id,
          name: clientId,
          redirectUris: ["https://x.example/cb"],
          secretHash: "x",
          createdAt: 1,
        }),
      ),
    );
    const lines = (await ok("apps", "list")).lines;
    expect(lines.map((l) => l.client_id)).to.deep.equal(made.toSorted());
    expect(new Set(lines.map((l) => l.owner))).to.deep.equal(new Set(["ulla"]));
  });

  it("When the owner is unknown or empty, then it is a usage error and nothing is printed", async () => {
    for (const owner of ["nobody", ""]) {
      const r = await sigil("apps", "list", "--owner", owner);
      expect(r.code).to.equal(1);
      expect(r.err).to.include("there is no user");
      expect(r.out).to.equal("");
    }
  });
});
