// docs/cli.md#sigil-status: `sigil status` says which store and which data version, only reading;
// the commands that write check the data version first, as a node does at start.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { CURRENT_DATA_VERSION } from "../src/store/migrations.js";
import { sigil as runSigil, sigilProcess } from "./support/cli.js";
import { TEST_SECRET } from "./support/nodes.js";
import { requireRedis, TestRedis } from "./support/redis.js";

describe("CLI: sigil status and the data version", function () {
  this.timeout(180_000);
  let redis: TestRedis;
  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
  });
  beforeEach(() => void redis.cli("FLUSHALL"));
  after(() => redis?.destroy());

  // In this process (support/cli.ts); the first test runs the real program for the status command.
  const sigil = (env: Record<string, string>, ...args: string[]) =>
    runSigil({ SECRET: TEST_SECRET, NODE_ENV: "test", ...env }, ...args);
  const onRedis = (...args: string[]) => sigil({ REDIS_URL: redis.url }, ...args);

  it("When no node has started on the Redis, then status says data_version null and writes nothing; a command that writes records the code's version", async () => {
    const real = await sigilProcess({ SECRET: TEST_SECRET, NODE_ENV: "test", REDIS_URL: redis.url }, "status");
    expect(real.code, real.err).to.equal(0);
    expect(real.json).to.deep.equal({ store: "redis", data_version: null });
    expect(redis.cli("DBSIZE")).to.equal("0");
    expect(
      (await onRedis("users", "create", "--username", "ada", "--password", "correct horse battery")).code,
    ).to.equal(0);
    expect(redis.cli("GET", "sigil:data-version")).to.equal(String(CURRENT_DATA_VERSION));
    expect((await onRedis("status")).json).to.deep.equal({ store: "redis", data_version: CURRENT_DATA_VERSION });
  });

  it("When the store is newer than the code, then status still reads it, and a command that writes is refused naming both versions, writing nothing", async () => {
    const newer = CURRENT_DATA_VERSION + 1;
    redis.cli("SET", "sigil:data-version", String(newer));
    expect((await onRedis("status")).json).to.deep.equal({ store: "redis", data_version: newer });
    const r = await onRedis("users", "create", "--username", "ada", "--password", "correct horse battery");
    expect(r.code).to.equal(1);
    expect(r.out).to.equal("");
    expect(r.err.trim()).to.include(
      `sigil: the store's data is version ${newer}, newer than this Sigil's data version ${CURRENT_DATA_VERSION}`,
    );
    expect(redis.cli("DBSIZE"), "only the version key").to.equal("1");
  });

  it("When the version key holds something else, then status fails with one clear line", async () => {
    redis.cli("SET", "sigil:data-version", "two");
    const r = await onRedis("status");
    expect(r.code).to.equal(1);
    expect(r.err.trim()).to.equal(`sigil: the store's data version is not a whole number ("two")`);
  });

  it("When there is no REDIS_URL, then status reads DATA_DIR's store (null before any write, then the code's version); with DATA_DIR=:memory: it names the code's version", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sigil-status-"));
    try {
      const embedded = (...args: string[]) => sigil({ DATA_DIR: dir }, ...args);
      expect((await embedded("status")).json).to.deep.equal({ store: "embedded", data_version: null });
      expect(
        (await embedded("users", "create", "--username", "ada", "--password", "correct horse battery")).code,
      ).to.equal(0);
      expect((await embedded("status")).json).to.deep.equal({ store: "embedded", data_version: CURRENT_DATA_VERSION });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect((await sigil({ DATA_DIR: ":memory:" }, "status")).json).to.deep.equal({
      store: "embedded",
      data_version: CURRENT_DATA_VERSION,
    });
  });
});
