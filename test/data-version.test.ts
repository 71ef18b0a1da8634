// Upgrades (docs/operations.md#upgrading): a node records the store's data version at start,
// migrates an older store under the lock (resuming after a crash), refuses a newer one naming both
// versions, and starts unchanged on a Redis filled by the code before versions were recorded.
import { expect } from "chai";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CURRENT_DATA_VERSION, type Migration } from "../src/store/migrations.js";
import { TEST_SECRET, startNode } from "./support/nodes.js";
import { PageClient, registerApp, userInfo } from "./support/pages.js";
import { offlinePair, refresh } from "./support/grants.js";
import { challengeApi, http } from "./support/http.js";
import { mainArgs, ROOT } from "./support/processes.js";
import { freePort } from "./support/ports.js";
import { requireRedis, TestRedis } from "./support/redis.js";
import { waitFor } from "./support/wait.js";

const nodeEnv = (redisUrl: string, port: number, extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "",
  NODE_ENV: "test",
  SECRET: TEST_SECRET,
  HOST: "127.0.0.1",
  PORT: String(port),
  REDIS_URL: redisUrl,
  SIGNING_KEY_AT_START: "off",
  ...extra,
});

describe("Upgrades: the data version at start", function () {
  // Node processes start in 2-15 s on a busy 2-core machine.
  this.timeout(180_000);
  let redis: TestRedis;
  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
  });
  beforeEach(() => void redis.cli("FLUSHALL"));
  after(() => redis?.destroy());

  it("When a node starts on a Redis filled by the code before versions (no version key, no index of usernames), then it stamps version 1, migrates it (the users indexed) and sign-in, tokens and challenges still work", async () => {
    // What earlier Sigil wrote: today's keys, without sigil:data-version.
    const old = await startNode({ redisUrl: redis.url });
    const person = new PageClient(old.url);
    expect((await person.signUp("river")).status).to.equal(303);
    const app = await registerApp(person);
    const pair = await offlinePair(old.url, person, app);
    const api = challengeApi(old.url);
    const key = await api.createKey("still there?", "yes");
    await old.close();
    redis.cli("DEL", "sigil:data-version");
    redis.cli("DEL", "sigil:{usernames}");
    const keysBefore = redis.cli("DBSIZE");

    const node = await startNode({ redisUrl: redis.url });
    try {
      expect(redis.cli("GET", "sigil:data-version")).to.equal(String(CURRENT_DATA_VERSION));
      expect(Number(redis.cli("DBSIZE")), "nothing rewritten; the version and the index added").to.equal(
        Number(keysBefore) + 2,
      );
      expect(
        node.logs.some((l) => l.includes(`recorded no data version: it is version ${CURRENT_DATA_VERSION} now`)),
      ).to.equal(true);
      expect(node.logs.some((l) => l.includes("migrating the data from version 1 to 2: index the users"))).to.equal(
        true,
      );
      expect((await node.server.services.accounts.list({ limit: 10 })).map((u) => u.username)).to.deep.equal(["river"]);
      const again = new PageClient(node.url);
      const signedIn = await again.submit("/signin", "/signin", {
        username: "river",
        password: "correct horse battery",
      });
      expect(signedIn.status).to.equal(303);
      expect((await userInfo(node.url, pair.access, app.clientId)).status).to.equal(200);
      expect((await refresh(node.url, app, pair.refresh)).status).to.equal(200);
      expect((await challengeApi(node.url).solve(key, "yes")).json).to.deep.equal({ correct: true });
    } finally {
      await node.close();
    }
  });

  it("When a node starts on an empty store (Redis, a new DATA_DIR), then it records the code's version at once: no migration runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sigil-empty-"));
    try {
      for (const opts of [{ redisUrl: redis.url }, { env: { DATA_DIR: dir } }]) {
        const node = await startNode(opts);
        try {
          expect(await node.opened.store.meta.dataVersion()).to.equal(CURRENT_DATA_VERSION);
          expect(node.logs.filter((l) => /migrat/.test(l))).to.deep.equal([]);
        } finally {
          await node.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("When a node starts on a store of the code's version, then it starts without a word about versions", async () => {
    redis.cli("SET", "sigil:data-version", String(CURRENT_DATA_VERSION));
    const node = await startNode({ redisUrl: redis.url });
    try {
      expect(redis.cli("GET", "sigil:data-version")).to.equal(String(CURRENT_DATA_VERSION));
      expect(node.logs.filter((l) => /data version|migrat/.test(l))).to.deep.equal([]);
    } finally {
      await node.close();
    }
  });

  it("When two nodes start at once on a store of an older version, then the migration runs once and both serve at the new version", async () => {
    redis.cli("SET", "sigil:data-version", "1");
    let runs = 0;
    const step: Migration = {
      from: 1,
      to: 2,
      what: "counted",
      run: async () => {
        runs++;
        await new Promise((r) => setTimeout(r, 500));
      },
    };
    const migrate = { current: 2, migrations: [step], pollMs: 50 };
    const nodes = await Promise.all([
      startNode({ redisUrl: redis.url, migrate }),
      startNode({ redisUrl: redis.url, migrate }),
    ]);
    try {
      expect(runs).to.equal(1);
      expect(redis.cli("GET", "sigil:data-version")).to.equal("2");
      const said = nodes.map((n) => n.logs.some((l) => l.includes("migrating the data from version 1 to 2")));
      expect(said.toSorted(), "one node migrated").to.deep.equal([false, true]);
      for (const n of nodes) {
        const key = await challengeApi(n.url).createKey("after?", "yes");
        expect((await challengeApi(n.url).solve(key, "yes")).json).to.deep.equal({ correct: true });
      }
    } finally {
      await Promise.all(nodes.map((n) => n.close()));
    }
  });

  it("When a node started while Redis was away must migrate once Redis answers, then it answers 503 until the migration is done, then serves", async () => {
    const kept = await TestRedis.start({ appendonly: true });
    try {
      kept.cli("SET", "sigil:data-version", "1");
      await kept.stop();
      let url = "";
      const during: number[] = [];
      const step: Migration = {
        from: 1,
        to: 2,
        what: "asks the node meanwhile",
        run: async () => {
          during.push((await challengeApi(url).create("now?", "yes")).status);
          during.push((await http(url, "/readyz")).status);
        },
      };
      // Redis is stopped on purpose: no need to wait the usual 3 s for it before serving 503.
      const node = await startNode({
        redisUrl: kept.url,
        migrate: { current: 2, migrations: [step] },
        storeWaitMs: 100,
      });
      url = node.url;
      try {
        await kept.start();
        await waitFor("the migration", () => kept.cli("GET", "sigil:data-version") === "2", { ms: 15_000 });
        expect(during, "a challenge and /readyz while migrating").to.deep.equal([503, 503]);
        await waitFor("the node to serve", async () => (await http(url, "/readyz")).status === 200, { ms: 5000 });
        expect((await challengeApi(url).create("now?", "yes")).status).to.equal(201);
      } finally {
        await node.close();
      }
    } finally {
      await kept.destroy();
    }
  });

  it("When a node process starts on a Redis stamped with a newer version, then it exits non-zero with one line naming both versions, and listens on nothing", async () => {
    redis.cli("SET", "sigil:data-version", "7");
    const port = await freePort();
    const r = spawnSync(process.execPath, mainArgs(), {
      cwd: ROOT,
      env: nodeEnv(redis.url, port),
      encoding: "utf8",
      timeout: 90_000,
    });
    expect(r.status, r.stdout + r.stderr).to.equal(1);
    const lines = r.stdout.split("\n").filter((l) => l.includes("refusing to start"));
    expect(lines, r.stdout + r.stderr).to.have.length(1);
    const { level, msg } = JSON.parse(lines[0]!) as { level: string; msg: string };
    expect(level).to.equal("fatal");
    expect(msg).to.include("version 7").and.include(`data version ${CURRENT_DATA_VERSION}`);
    expect(r.stdout).to.not.include("sigil is listening");
    expect(redis.cli("GET", "sigil:data-version")).to.equal("7");
  });

  it("When a node process started while Redis was away finds a newer version once Redis answers, then it exits non-zero naming both", async () => {
    const kept = await TestRedis.start({ appendonly: true });
    try {
      kept.cli("SET", "sigil:data-version", "9");
      await kept.stop();
      const port = await freePort();
      const proc = spawn(process.execPath, mainArgs(), {
        cwd: ROOT,
        env: nodeEnv(kept.url, port),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
      proc.stderr.on("data", (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
      try {
        await waitFor("the node to listen, Redis away", () => out.includes("sigil is listening"), {
          ms: 60_000,
          seen: () => out,
        });
        await kept.start();
        const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("still running"), 30_000))]);
        expect(code, out).to.equal(1);
        const line = out.split("\n").find((l) => l.includes("refusing to start"));
        expect(line, out).to.include("version 9").and.include(`data version ${CURRENT_DATA_VERSION}`);
      } finally {
        proc.kill("SIGKILL");
      }
    } finally {
      await kept.destroy();
    }
  });

  it("When a migrating node is killed (kill -9) mid-step, then the next node waits for its lock to lapse, runs the step again and records the new version", async () => {
    redis.cli("SET", "sigil:data-version", "1");
    const run = async (killAt?: number) => {
      const port = await freePort();
      const proc = spawn(process.execPath, ["--import", "tsx", "test/fixtures/migrating-node.ts"], {
        cwd: ROOT,
        env: nodeEnv(redis.url, port, { LOCK_TTL_MS: "1500", MIGRATION_KEYS: "40", LOG_LEVEL: "info" }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
      proc.stderr.on("data", (d: Buffer) => (out += d.toString()));
      const exited = new Promise((r) => proc.once("exit", r));
      try {
        if (killAt !== undefined) {
          await waitFor(`the step to write marker ${killAt}`, () => out.includes(`migrated ${killAt}\n`), {
            ms: 60_000,
            seen: () => out,
          });
          proc.kill("SIGKILL");
        } else {
          await waitFor("the node to listen", () => out.includes('"msg":"listening"'), { ms: 60_000, seen: () => out });
          proc.kill("SIGTERM");
        }
        await exited;
        return out;
      } finally {
        proc.kill("SIGKILL");
      }
    };

    const first = await run(10);
    expect(first).to.include("migrating the data from version 1 to 2");
    expect(redis.cli("GET", "sigil:data-version"), "the step did not finish: not recorded").to.equal("1");
    expect(redis.cli("EXISTS", "sigil:migration-lock"), "the dead node's lock is still there").to.equal("1");

    const t0 = Date.now();
    const second = await run();
    expect(second).to.include("step started");
    expect(second).to.include("data migrated to version 2");
    expect(Date.now() - t0).to.be.at.least(500); // it waited for the lock
    expect(redis.cli("GET", "sigil:data-version")).to.equal("2");
    expect(redis.cli("EXISTS", "sigil:migration-lock"), "released").to.equal("0");
    expect(redis.cli("KEYS", "sigil:test:migrated:*").split("\n").filter(Boolean)).to.have.length(40);
  });
});
