// docs/cli.md#sigil-groups-create: `sigil groups …` against the store, on every backend a node runs
// on: groups made, filled, listed and emptied; refusals change nothing; a deleted user leaves
// their groups. One run goes through the real program (bin/sigil.js) for its JSON lines.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil, sigilProcess } from "./support/cli.js";
import { TEST_SECRET } from "./support/nodes.js";

describeBackends("CLI: groups", function (this: Mocha.Suite, backend) {
  this.timeout(60_000);
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

  it("When groups are made and filled, then list shows each with its count and members shows who is in it", async () => {
    expect((await ok("groups", "create", "--name", "Ops")).json).to.deep.equal({ name: "ops" });
    expect((await ok("groups", "create", "--name", "dev.team_1")).json).to.deep.equal({ name: "dev.team_1" });
    expect((await ok("groups", "add", "--name", "OPS", "--username", "ulla")).json).to.deep.equal({
      name: "ops",
      username: "ulla",
      added: true,
    });
    await ok("groups", "add", "--name", "ops", "--username", "bob");
    expect((await ok("groups", "add", "--name", "ops", "--username", "bob")).json).to.include({ added: false });
    expect((await ok("groups", "list")).lines).to.deep.equal([
      { name: "dev.team_1", members: 0 },
      { name: "ops", members: 2 },
    ]);
    const members = (await ok("groups", "members", "--name", "ops")).lines;
    expect(members.map((m) => m.username)).to.deep.equal(["bob", "ulla"]);
    expect(members[0].id).to.be.a("string");
    expect((await ok("groups", "members", "--name", "dev.team_1")).out).to.equal("");
    expect((await ok("groups", "remove", "--name", "ops", "--username", "bob")).json).to.deep.equal({
      name: "ops",
      username: "bob",
      removed: true,
    });
    expect((await ok("groups", "remove", "--name", "ops", "--username", "bob")).json).to.include({ removed: false });
    expect((await ok("groups", "delete", "--name", "dev.team_1")).json).to.deep.equal({ name: "dev.team_1" });
    const listed = await sigilProcess(env(), "groups", "list");
    expect(listed.code, listed.err).to.equal(0);
    expect(listed.out).to.equal('{"name":"ops","members":1}\n');
    // Each change is in the audit log once (the repeats changed nothing), by the operator.
    const audit = (
      await ok(
        "audit",
        "--type",
        "group.created",
        "--type",
        "group.deleted",
        "--type",
        "group.member_added",
        "--type",
        "group.member_removed",
      )
    ).lines;
    expect(audit.map((a) => `${a.type} ${a.group} ${a.username ?? ""}`)).to.deep.equal([
      "group.created ops ",
      "group.created dev.team_1 ",
      "group.member_added ops ulla",
      "group.member_added ops bob",
      "group.member_removed ops bob",
      "group.deleted dev.team_1 ",
    ]);
    expect(audit.every((a) => a.actor?.kind === "operator")).to.equal(true);
  });

  it("When a name is bad or taken, or a group or user is unknown, then it is a usage error and nothing changes", async () => {
    await ok("groups", "create", "--name", "ops");
    await ok("groups", "add", "--name", "ops", "--username", "ulla");
    const before = (await ok("groups", "list")).out;
    const cases: Array<[string[], RegExp]> = [
      [["groups", "create", "--name", "ops"], /already a group "ops"/],
      [["groups", "create", "--name", "OPS"], /already a group "ops"/],
      [["groups", "create", "--name", "has space"], /1–64 characters/],
      [["groups", "create", "--name", "-x"], /1–64 characters/],
      [["groups", "create", "--name", "a".repeat(65)], /1–64 characters/],
      [["groups", "create", "--name", "é"], /1–64 characters/],
      [["groups", "create"], /--name is required/],
      [["groups", "delete", "--name", "nope"], /no group "nope"/],
      [["groups", "add", "--name", "nope", "--username", "ulla"], /no group "nope"/],
      [["groups", "add", "--name", "ops", "--username", "nobody"], /no user "nobody"/],
      [["groups", "remove", "--name", "nope", "--username", "ulla"], /no group "nope"/],
      [["groups", "remove", "--name", "ops", "--username", "nobody"], /no user "nobody"/],
      [["groups", "members", "--name", "nope"], /no group "nope"/],
      [["groups", "list", "--name", "ops"], /Unknown option/],
    ];
    for (const [args, message] of cases) {
      const r = await sigil(...args);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(r.out).to.equal("");
      expect(r.err).to.match(/^sigil: /);
      expect(r.err, args.join(" ")).to.match(message);
      expect(r.err).to.include("usage: sigil groups");
    }
    expect((await ok("groups", "list")).out).to.equal(before);
    expect((await ok("groups", "members", "--name", "ops")).lines.map((m) => m.username)).to.deep.equal(["ulla"]);
  });

  it("When a user is deleted, then they are in no group any more", async () => {
    await ok("groups", "create", "--name", "ops");
    await ok("groups", "create", "--name", "dev");
    for (const g of ["ops", "dev"])
      for (const u of ["ulla", "bob"]) await ok("groups", "add", "--name", g, "--username", u);
    await ok("users", "delete", "--username", "ulla");
    expect((await ok("groups", "list")).lines).to.deep.equal([
      { name: "dev", members: 1 },
      { name: "ops", members: 1 },
    ]);
    // A new account of that name is a new user: in no group.
    await ok("users", "create", "--username", "ulla", "--password", "a good password 1");
    expect((await ok("groups", "members", "--name", "ops")).lines.map((m) => m.username)).to.deep.equal(["bob"]);
  });
});
