// docs/cli.md#help-and-version: `sigil --help` (`-h`, `help`) lists the commands, `sigil <command>
// --help` gives that command's usage and what it does, `sigil --version` the package's version —
// all on stdout with exit 0, with no settings at all and no store opened. The environment used
// below would stop any command that reads settings (NODE_ENV=production without SECRET) and names
// a DATA_DIR that nothing may create.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { commands } from "../src/cli/commands.js";
import { sigil, sigilProcess } from "./support/cli.js";
import { ROOT } from "./support/processes.js";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

describe("CLI: help and version, without settings or a store", function () {
  this.timeout(60_000);
  let dir: string;
  let env: Record<string, string>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "sigil-help-"));
    env = { NODE_ENV: "production", DATA_DIR: join(dir, "data") };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => expect(existsSync(join(dir, "data")), "no store was opened").to.equal(false));

  it("When an operator runs `sigil --help`, `sigil -h` or `sigil help`, then the list of commands is on stdout, exit 0", async () => {
    for (const ask of ["--help", "-h", "help"]) {
      const r = await sigil(env, ask);
      expect(r.code, `${ask}: ${r.err}`).to.equal(0);
      expect(r.err).to.equal("");
      expect(r.out).to.match(/^usage: sigil <command> \[options\]\n/);
      for (const cmd of commands) expect(r.out, ask).to.include(`\n  sigil ${cmd.name} `);
      expect(r.out).to.include("sigil <command> --help").and.include("sigil --version");
    }
  });

  it("When an operator asks `sigil <command> --help` of each command, then its usage line and what it does, exit 0", async () => {
    for (const cmd of commands) {
      for (const ask of ["--help", "-h"]) {
        const r = await sigil(env, ...cmd.name.split(" "), ask);
        expect(r.code, `${cmd.name} ${ask}: ${r.err}`).to.equal(0);
        const [first, second, ...rest] = r.out.split("\n");
        expect(first).to.equal(`usage: sigil ${cmd.name}${cmd.usage ? ` ${cmd.usage}` : ""}`);
        expect(second, cmd.name).to.match(/^[A-Z].{10,}\.$/);
        expect(rest).to.deep.equal([""]);
      }
    }
    const create = await sigil(env, "users", "create", "--username", "ada", "--help");
    expect(create.out).to.equal(
      "usage: sigil users create --username U --password P|- [--display-name D] [--admin]\nCreates an account, as sign-up does (--password -: read from standard input); --admin makes it an administrator.\n",
    );
    expect((await sigil(env, "help", "users", "create")).out).to.equal(create.out);
  });

  it("When an operator asks `sigil users --help`, then the users commands, each with what it does", async () => {
    const r = await sigil(env, "users", "--help");
    expect(r.code).to.equal(0);
    const named = [...r.out.matchAll(/^ {2}sigil (\S+ \S+)/gm)].map((m) => m[1]);
    expect(named).to.deep.equal(commands.filter((c) => c.name.startsWith("users ")).map((c) => c.name));
    expect(r.out).to.include("Deletes a user");
  });

  it("When --help is the value of an option or comes after --, then it is not a question: the command runs as usual", async () => {
    // A password "--help": the command goes on, and here stops at the settings.
    const value = await sigil(env, "users", "create", "--username", "ada", "--password", "--help");
    expect(value.code).to.equal(1);
    expect(value.out).to.equal("");
    expect(value.err).to.equal("sigil: bad setting SECRET: is required when NODE_ENV=production\n");
    // After --, an argument the command does not take.
    const after = await sigil(env, "users", "create", "--username", "ada", "--", "--help");
    expect(after.code).to.equal(1);
    expect(after.out).to.equal("");
    expect(after.err).to.match(/^sigil: .*'--help'[^]*usage: sigil users create /);
  });

  it("When an operator runs `sigil --version` or `-v`, then {version} of package.json, exit 0", async () => {
    for (const ask of ["--version", "-v"]) {
      const r = await sigil(env, ask);
      expect(r.code).to.equal(0);
      expect(r.out).to.equal(`{"version":"${VERSION}"}\n`);
    }
  });

  it("When a command or group is unknown, even with --help, then it is still the unknown-command answer, exit 2", async () => {
    for (const args of [["frobnicate", "--help"], ["users", "frob"], []]) {
      const r = await sigil(env, ...args);
      expect(r.code, args.join(" ")).to.equal(2);
      expect(r.out).to.equal("");
      expect(r.err).to.include("usage: sigil <command> [options]");
    }
  });

  it("When the real program is asked for help and its version with no settings, then it answers on stdout, exit 0", async () => {
    const help = await sigilProcess(env, "--help");
    expect(help.code, help.err).to.equal(0);
    expect(help.err).to.equal("");
    expect(help.out).to.match(/^usage: sigil <command> \[options\]\n/);
    const one = await sigilProcess(env, "tokens", "revoke", "--help");
    expect(one.code, one.err).to.equal(0);
    expect(one.out).to.match(/^usage: sigil tokens revoke --app CLIENT_ID --id ID\n/);
    const version = await sigilProcess(env, "--version");
    expect(version.code, version.err).to.equal(0);
    expect(version.json).to.deep.equal({ version: VERSION });
  });
});
