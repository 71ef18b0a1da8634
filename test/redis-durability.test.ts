// Redis as a system of record (docs/operations.md#redis-as-a-system-of-record): at start a node
// asks every master how it keeps data, warns when it persists nothing, and refuses one that may
// evict keys unless REDIS_ALLOW_EVICTION=true; where CONFIG is disabled it warns and starts.
import { expect } from "chai";
import { CURRENT_DATA_VERSION } from "../src/store/migrations.js";
import { spawnSync } from "node:child_process";
import { StoreRefusedError } from "../src/store/refused.js";
import { TestCluster } from "./support/cluster.js";
import { TEST_SECRET, startNode, type TestNode } from "./support/nodes.js";
import { freePort } from "./support/ports.js";
import { mainArgs, ROOT } from "./support/processes.js";
import { requireRedis, TestRedis } from "./support/redis.js";

const warnings = (node: TestNode) =>
  node.logs.filter((l) => l.includes('"level":"warn"')).map((l) => (JSON.parse(l) as { msg: string }).msg);

async function refusedStart(redisUrl: string, env: Record<string, string> = {}): Promise<string> {
  let node: TestNode | undefined;
  try {
    node = await startNode({ redisUrl, env });
  } catch (err) {
    expect(err).to.be.instanceOf(StoreRefusedError);
    return (err as Error).message;
  } finally {
    await node?.close();
  }
  throw new Error("the node started");
}

describe("Redis as a system of record", function () {
  this.timeout(120_000);
  let redis: TestRedis;
  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
  });
  beforeEach(() => void redis.cli("FLUSHALL"));
  afterEach(() => {
    redis.cli("CONFIG", "SET", "maxmemory-policy", "noeviction");
    redis.cli("CONFIG", "SET", "appendonly", "no");
  });
  after(() => redis?.destroy());

  it('When Redis persists nothing (save "", appendonly no), then the node starts and warns once, naming what to set', async () => {
    const node = await startNode({ redisUrl: redis.url });
    try {
      const said = warnings(node).filter((w) => w.includes("persists nothing"));
      expect(said).to.have.length(1);
      expect(said[0]).to.include("appendonly yes");
    } finally {
      await node.close();
    }
  });

  it("When Redis keeps an append-only file, then no persistence warning", async () => {
    redis.cli("CONFIG", "SET", "appendonly", "yes");
    const node = await startNode({ redisUrl: redis.url });
    try {
      expect(warnings(node).filter((w) => /persists|maxmemory|could not read/.test(w))).to.deep.equal([]);
    } finally {
      await node.close();
    }
  });

  for (const policy of ["allkeys-lru", "volatile-lru", "volatile-ttl", "allkeys-random"]) {
    it(`When Redis's maxmemory-policy is ${policy}, then the node refuses to start, naming the setting to use and the override`, async () => {
      redis.cli("CONFIG", "SET", "maxmemory-policy", policy);
      const msg = await refusedStart(redis.url);
      expect(msg).to.include(`maxmemory-policy ${policy}`);
      expect(msg).to.include("Set maxmemory-policy noeviction");
      expect(msg).to.include("REDIS_ALLOW_EVICTION=true");
      expect(redis.cli("EXISTS", "sigil:data-version"), "nothing written").to.equal("0");
    });
  }

  it("When a node process starts on a Redis that may evict, then it exits non-zero with one line naming the setting, and listens on nothing", async () => {
    redis.cli("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
    const r = spawnSync(process.execPath, mainArgs(), {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "test",
        SECRET: TEST_SECRET,
        HOST: "127.0.0.1",
        PORT: String(await freePort()),
        REDIS_URL: redis.url,
      },
      encoding: "utf8",
      timeout: 90_000,
    });
    expect(r.status, r.stdout + r.stderr).to.equal(1);
    const lines = r.stdout.split("\n").filter((l) => l.includes("refusing to start"));
    expect(lines, r.stdout + r.stderr).to.have.length(1);
    expect(lines[0]).to.include("maxmemory-policy allkeys-lru").and.include("Set maxmemory-policy noeviction");
    expect(r.stdout).to.not.include("sigil is listening");
  });

  it("When REDIS_ALLOW_EVICTION=true, then a node on an evicting Redis starts, with a warning naming the policy and the setting", async () => {
    redis.cli("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
    const node = await startNode({ redisUrl: redis.url, env: { REDIS_ALLOW_EVICTION: "true" } });
    try {
      const said = warnings(node).filter((w) => w.includes("maxmemory-policy"));
      expect(said).to.have.length(1);
      expect(said[0]).to.include("allkeys-lru").and.include("REDIS_ALLOW_EVICTION=true");
    } finally {
      await node.close();
    }
  });

  it("When REDIS_ALLOW_EVICTION is neither true nor false, then the setting is refused", async () => {
    let err: unknown;
    await startNode({ redisUrl: redis.url, env: { REDIS_ALLOW_EVICTION: "yes" } }).catch((e: unknown) => (err = e));
    expect(String(err)).to.include("REDIS_ALLOW_EVICTION: must be true or false");
  });

  it("When CONFIG is disabled (a managed Redis), then the node starts and warns that it could not check", async function () {
    const managed = await TestRedis.start({ extraArgs: ["--rename-command", "CONFIG", ""] });
    try {
      const node = await startNode({ redisUrl: managed.url });
      try {
        const said = warnings(node).filter((w) => w.includes("could not read Redis's settings"));
        expect(said).to.have.length(1);
        expect(said[0]).to.include("maxmemory-policy noeviction");
        expect(managed.cli("GET", "sigil:data-version")).to.equal(String(CURRENT_DATA_VERSION));
      } finally {
        await node.close();
      }
    } finally {
      await managed.destroy();
    }
  });
});

describe("Redis Cluster as a system of record", function () {
  this.timeout(90_000);
  let cluster: TestCluster;
  before(async function () {
    requireRedis(this, "Redis Cluster");
    cluster = await TestCluster.start();
  });
  after(() => cluster?.destroy());

  it("When one master of the Cluster may evict, then the node refuses naming that master; when every master is right, it starts", async () => {
    const bad = cluster.nodes[1]!;
    bad.cli("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu");
    try {
      const msg = await refusedStart(cluster.url);
      expect(msg).to.include(`Redis at 127.0.0.1:${bad.port} has maxmemory-policy allkeys-lfu`);
      for (const other of cluster.nodes.filter((n) => n !== bad)) expect(msg).to.not.include(String(other.port));
    } finally {
      bad.cli("CONFIG", "SET", "maxmemory-policy", "noeviction");
    }
    const node = await startNode({ redisUrl: cluster.url });
    try {
      const said = warnings(node).filter((w) => w.includes("persists nothing"));
      expect(said, "one warning per master that persists nothing").to.have.length(cluster.nodes.length);
    } finally {
      await node.close();
    }
  });
});
