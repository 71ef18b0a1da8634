// docs/cli.md#the-secret-check and #passwords-from-standard-input: a CLI whose SECRET is not the
// one the store was made with refuses to run and says so, before it writes anything (the store's
// records compared whole, before and after); the store records only an HMAC under SECRET, never
// the secret. A node started with another SECRET takes it as a change of SECRET: it starts, warns
// once, and from then the CLI needs the new one. `--password -` reads the password from standard
// input, in process and in the real program. On both stores.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { EmbeddedStore } from "../src/store/embedded/index.js";
import { LmdbEngine } from "../src/store/embedded/lmdb-engine.js";
import { describeBackends, type Backend } from "./support/backends.js";
import { sigil, sigilProcessWithInput, sigilWithInput } from "./support/cli.js";
import { embeddedDump } from "./support/embedded.js";
import { startNode, TEST_SECRET, type TestNode } from "./support/nodes.js";
import { PageClient } from "./support/pages.js";
import { redisDump } from "./support/redis.js";

const OTHER_SECRET = "another-secret-0123456789abcdef0123456789abcdef";
const REFUSED =
  "sigil: this SECRET is not the one the store was made with: give the command the SECRET of the service that uses this store (nothing was written)\n";
const PASSWORD = "correct horse battery";

/** Every record of the backend's store, one line each (the embedded store opened after the CLI closed it). */
async function dumpOf(backend: Backend): Promise<string> {
  if (backend.redis) return redisDump(backend.redis);
  const store = new EmbeddedStore(new LmdbEngine(backend.dataDir!));
  try {
    return embeddedDump(store);
  } finally {
    await store.close();
  }
}

/** The status of a password sign-in on the node: 303 when it is right. */
async function signIn(node: TestNode, username: string, password: string): Promise<number> {
  return (await new PageClient(node.url).submit("/signin", "/signin", { username, password })).status;
}

const warnings = (node: TestNode) =>
  node.logs.filter((l) => l.includes('"level":"warn"')).map((l) => (JSON.parse(l) as { msg: string }).msg);

describeBackends("CLI: the SECRET the store was made with", function (backend) {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), "sigil-secret-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const env = (secret = TEST_SECRET) => ({ SECRET: secret, NODE_ENV: "test", ...backend.env() });
  const run = (secret: string, ...args: string[]) => sigil(env(secret), ...args);
  // Nodes one after another on the backend's one store (backend.startNode gives a second embedded
  // node a folder of its own), each closed before the CLI opens the store in this process.
  const opened: TestNode[] = [];
  const nodeWith = async (secret = TEST_SECRET) => {
    const node = await startNode({
      ...(backend.redis ? { redisUrl: backend.redis.url } : {}),
      env: { ...backend.env(), SECRET: secret },
    });
    opened.push(node);
    return node;
  };
  afterEach(() => Promise.all(opened.splice(0).map((n) => n.close())));

  it("When every command that writes runs with another SECRET, then each exits 1 with one line naming the problem, and the store is unchanged", async () => {
    expect((await run(TEST_SECRET, "users", "create", "--username", "ada", "--password", PASSWORD)).code).to.equal(0);
    const app = await run(
      TEST_SECRET,
      "apps",
      "create",
      "--owner",
      "ada",
      "--name",
      "A",
      "--redirect-uri",
      "https://a.example/cb",
    );
    const clientId = app.json.client_id as string;
    const token = await run(TEST_SECRET, "tokens", "create", "--app", clientId);
    const file = join(dir, "backup");
    expect((await run(TEST_SECRET, "backup", "--out", file)).code).to.equal(0);
    const before = await dumpOf(backend);
    expect(before, "the store holds no secret").not.to.include(TEST_SECRET);

    const attempts = [
      ["users", "create", "--username", "grace", "--password", PASSWORD],
      ["users", "reset-password", "--username", "ada", "--password", "another horse battery"],
      ["users", "reset-2fa", "--username", "ada"],
      ["users", "delete", "--username", "ada"],
      ["apps", "create", "--owner", "ada", "--name", "B", "--redirect-uri", "https://b.example/cb"],
      ["tokens", "create", "--app", clientId],
      ["tokens", "revoke", "--app", clientId, "--id", token.json.id as string],
      ["keys", "rotate"],
      ["backup", "--out", join(dir, "other-backup")],
      ["restore", "--in", file, "--force"],
    ];
    for (const args of attempts) {
      const r = await run(OTHER_SECRET, ...args);
      expect(r.code, args.join(" ")).to.equal(1);
      expect(r.out).to.equal("");
      expect(r.err, args.join(" ")).to.equal(REFUSED);
    }
    expect(existsSync(join(dir, "other-backup")), "no backup written").to.equal(false);
    expect(await dumpOf(backend), "nothing written").to.equal(before);

    // Reading is not refused; the right SECRET works as before.
    expect((await run(OTHER_SECRET, "status")).code).to.equal(0);
    expect(
      (await run(TEST_SECRET, "users", "create", "--username", "grace", "--password", PASSWORD)).json.username,
    ).to.equal("grace");
  });

  it("When a node made the store and then starts with another SECRET (a change of SECRET), then it serves, warns once naming no secret, and the CLI needs the new SECRET", async () => {
    const first = await nodeWith();
    expect(
      warnings(first).filter((w) => w.includes("SECRET")),
      "a new store: recorded silently",
    ).to.deep.equal([]);
    await first.close();
    expect((await run(OTHER_SECRET, "keys", "rotate")).err).to.equal(REFUSED);
    expect((await run(TEST_SECRET, "users", "create", "--username", "ada", "--password", PASSWORD)).code).to.equal(0);

    const changed = await nodeWith(OTHER_SECRET);
    const said = warnings(changed).filter((w) => w.includes("SECRET"));
    expect(said).to.have.length(1);
    expect(said[0]).to.include("the store was made with another SECRET");
    expect(changed.logs.join("\n")).not.to.include(OTHER_SECRET).and.not.to.include(TEST_SECRET);
    expect(await signIn(changed, "ada", PASSWORD), "passwords do not depend on SECRET").to.equal(303);
    await changed.close();

    expect((await run(TEST_SECRET, "users", "create", "--username", "grace", "--password", PASSWORD)).err).to.equal(
      REFUSED,
    );
    expect((await run(OTHER_SECRET, "users", "create", "--username", "grace", "--password", PASSWORD)).code).to.equal(
      0,
    );
    const again = await nodeWith(OTHER_SECRET);
    expect(
      warnings(again).filter((w) => w.includes("SECRET")),
      "the same SECRET again",
    ).to.deep.equal([]);
  });

  it("When --password - is given, then the password is the first line of standard input; none or an empty line is a usage error and creates nothing", async () => {
    const created = await sigilWithInput(
      "é correct horse battery\n",
      env(),
      ...["users", "create", "--username", "ada", "--password", "-"],
    );
    expect(created.code, created.err).to.equal(0);
    for (const input of [undefined, "", "\n", "\r\n"]) {
      const r = await sigilWithInput(input, env(), "users", "create", "--username", "bob", "--password", "-");
      expect(r.code, JSON.stringify(input)).to.equal(1);
      expect(r.err).to.equal(
        "sigil: --password -: standard input gave no password (one line is read)\n  usage: sigil users create --username U --password P|- [--display-name D] [--admin]\n",
      );
    }
    expect((await run(TEST_SECRET, "users", "delete", "--username", "bob")).err, "nothing created").to.include(
      'there is no user "bob"',
    );
    const reset = await sigilWithInput(
      "another horse battery\r\nsecond line\n",
      env(),
      ...["users", "reset-password", "--username", "ada", "--password", "-"],
    );
    expect(reset.code, reset.err).to.equal(0);

    const node = await nodeWith();
    expect(await signIn(node, "ada", "another horse battery")).to.equal(303);
    expect(await signIn(node, "ada", "é correct horse battery")).not.to.equal(303);
    expect(await signIn(node, "ada", "-")).not.to.equal(303);
  });
});

describe("CLI: --password - and the SECRET check in the real program", function () {
  this.timeout(120_000);
  let dir: string;
  before(() => void (dir = mkdtempSync(join(tmpdir(), "sigil-secret-process-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("When `sigil users create --password -` is fed the password on a pipe, then the user signs in with it; another SECRET is refused with exit 1", async () => {
    const env = { SECRET: TEST_SECRET, NODE_ENV: "test", DATA_DIR: dir };
    const r = await sigilProcessWithInput(
      "piped horse battery\n",
      env,
      "users",
      "create",
      "--username",
      "ada",
      "--password",
      "-",
    );
    expect(r.code, r.err).to.equal(0);
    expect(r.json.username).to.equal("ada");
    const other = await sigilProcessWithInput("", { ...env, SECRET: OTHER_SECRET }, "keys", "rotate");
    expect(other.code).to.equal(1);
    expect(other.err).to.equal(REFUSED);
    const node = await startNode({ env: { DATA_DIR: dir } });
    try {
      expect(await signIn(node, "ada", "piped horse battery")).to.equal(303);
    } finally {
      await node.close();
    }
  });
});
