// docs/cli.md: `sigil users create --admin`, `sigil users set-admin` and `sigil users list`, on the
// embedded store's DATA_DIR and on Redis (in this process, support/cli.ts, and one family as the
// real child process).
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil, sigilProcess } from "./support/cli.js";
import { TEST_SECRET } from "./support/nodes.js";

describeBackends("CLI: admins and the list of users", function (this: Mocha.Suite, backend) {
  this.timeout(120_000);
  const env = () => ({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() });
  const sigil = (...args: string[]) => runSigil(env(), ...args);
  const lines = (out: string) =>
    out
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));

  async function create(username: string, ...more: string[]) {
    const r = await sigil("users", "create", "--username", username, "--password", "correct horse battery", ...more);
    expect(r.code, r.err).to.equal(0);
    return r.json as { id: string; username: string };
  }

  it("When users are made (one with --admin) and listed, then each is one JSON line in username order, the admin marked", async () => {
    const zoe = await create("zoe", "--display-name", "Zoë Z");
    await create("Adam", "--admin");
    const list = await sigilProcess(env(), "users", "list");
    expect(list.code, list.err).to.equal(0);
    expect(list.err).to.equal("");
    const users = lines(list.out);
    expect(users.map((u) => [u.username, u.admin])).to.deep.equal([
      ["adam", true],
      ["zoe", false],
    ]);
    expect(users[1]).to.deep.equal({
      id: zoe.id,
      username: "zoe",
      display_name: "Zoë Z",
      email: null,
      email_verified: false,
      admin: false,
      disabled: false,
      created_at: users[1].created_at,
    });
    expect(Math.abs(Date.parse(users[1].created_at) - Date.now())).to.be.below(60_000);
    // A disabled user (sigil users disable) is listed, marked.
    expect((await sigil("users", "disable", "--username", "zoe")).code).to.equal(0);
    expect(lines((await sigil("users", "list")).out).map((u) => [u.username, u.disabled])).to.deep.equal([
      ["adam", false],
      ["zoe", true],
    ]);
  });

  it("When set-admin turns it on and off, then it prints the user and whether they are an admin, and the list follows", async () => {
    await create("ann");
    const on = await sigil("users", "set-admin", "--username", "Ann", "--on");
    expect(on.code, on.err).to.equal(0);
    expect(on.json).to.deep.equal({ username: "ann", admin: true });
    expect((await sigil("users", "set-admin", "--username", "ann", "--on")).json).to.deep.equal({
      username: "ann",
      admin: true,
    });
    expect(lines((await sigil("users", "list")).out)[0].admin).to.equal(true);
    expect((await sigil("users", "set-admin", "--username", "ann", "--off")).json).to.deep.equal({
      username: "ann",
      admin: false,
    });
    expect(lines((await sigil("users", "list")).out)[0].admin).to.equal(false);
  });

  it("When set-admin gets neither or both of --on and --off, or an unknown user, then it is a usage error and nothing changes", async () => {
    await create("ann", "--admin");
    for (const args of [[], ["--on", "--off"]]) {
      const r = await sigil("users", "set-admin", "--username", "ann", ...args);
      expect(r.code).to.equal(1);
      expect(r.out).to.equal("");
      expect(r.err).to.include("give exactly one of --on and --off").and.include("usage: sigil users set-admin");
    }
    const unknown = await sigil("users", "set-admin", "--username", "nobody", "--off");
    expect(unknown.code).to.equal(1);
    expect(unknown.err).to.include('there is no user "nobody"');
    expect(lines((await sigil("users", "list")).out).map((u) => u.admin)).to.deep.equal([true]);
  });

  it("When users list gets --query, then only users one of whose words (username, display name) begins with it come (any case); none prints nothing", async () => {
    await create("ann", "--display-name", "Ann Smith");
    await create("bob");
    await create("csmith");
    const r = await sigil("users", "list", "--query", " SMITH ");
    expect(r.code, r.err).to.equal(0);
    // A word's beginning, not a substring (docs/choices.md): csmith is found by "cs", not "smith".
    expect(lines(r.out).map((u) => u.username)).to.deep.equal(["ann"]);
    const cs = await sigil("users", "list", "--query", "CS");
    expect(lines(cs.out).map((u) => u.username)).to.deep.equal(["csmith"]);
    const none = await sigil("users", "list", "--query", "nobody");
    expect([none.code, none.out, none.err]).to.deep.equal([0, "", ""]);
  });

  it("When the query is 10 KB, then it is a usage error that prints no user", async () => {
    await create("ann");
    const r = await sigil("users", "list", "--query", "a".repeat(10_000));
    expect(r.code).to.equal(1);
    expect(r.out).to.equal("");
    expect(r.err).to.include("Searches are at most 200 characters.").and.include("usage: sigil users list");
  });

  it("When there are more users than one page of the walk (500), then every one is listed once, in order", async () => {
    const accounts = await Promise.all(Array.from({ length: 3 }, (_, i) => create(`pp${i}`)));
    expect(accounts).to.have.length(3);
    // The rest straight into the store, through a node (password hashing 1,000 times is slow).
    const node = await backend.startNode();
    const made = Array.from({ length: 1010 }, (_, i) => `q${String(i).padStart(4, "0")}`);
    await Promise.all(
      made.map((username, i) =>
        node.opened.store.accounts.create({
          id: `id${i}`,
          username,
          displayName: username,
          passwordHash: "x",
          createdAt: 1,
        }),
      ),
    );
    await backend.closeNodes();
    const r = await sigil("users", "list");
    expect(r.code, r.err).to.equal(0);
    expect(lines(r.out).map((u) => u.username)).to.deep.equal(["pp0", "pp1", "pp2", ...made]);
  });
});
