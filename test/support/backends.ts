// One suite, every backend: describeBackends() runs the same tests on the embedded store — in LMDB
// (a new DATA_DIR for each test) and in process memory (DATA_DIR=:memory:) — and on a
// private Redis (FLUSHALL before each test).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireRedis, TestRedis } from "./redis.js";
import { startNode, type TestNode } from "./nodes.js";

export type BackendName = "memory" | "lmdb" | "redis";

/**
 * What HTTP-level suites run on: the embedded store as `npm start` runs it, and Redis.
 * SIGIL_TEST_BACKENDS=memory,redis npx mocha … runs them on others (to compare times, say).
 */
export const DEFAULT_BACKENDS: BackendName[] = process.env.SIGIL_TEST_BACKENDS
  ? (process.env.SIGIL_TEST_BACKENDS.split(",") as BackendName[])
  : ["lmdb", "redis"];
/** What store contract suites run on: every backend. */
export const ALL_BACKENDS: BackendName[] = ["memory", "lmdb", "redis"];

/**
 * What a suite whose behaviour lies wholly above the store port runs on: `name` alone. Pages and
 * their languages, browsers, mail text and HTTP mechanics reach the store only through port calls
 * that the store contract suites (describeStoreContract) check on every backend; running them on
 * each backend again doubled their time and found nothing the contract had not (docs/testing.md,
 * "Which suites run on which store"). Suites where a backend difference can show — atomicity and
 * concurrency at the HTTP level, the CLI beside a node, the channel, history, backups, several
 * nodes, fuzzing — keep DEFAULT_BACKENDS. SIGIL_TEST_ALL_BACKENDS=1 (npm run test:all-backends)
 * runs these on every default backend too.
 */
export function oneBackend(name: BackendName): BackendName[] {
  if (process.env.SIGIL_TEST_ALL_BACKENDS === "1" || process.env.SIGIL_TEST_BACKENDS) return DEFAULT_BACKENDS;
  return [name];
}

export class Backend {
  redis: TestRedis | undefined;
  /** The lmdb backend's DATA_DIR. */
  dataDir: string | undefined;
  private readonly nodes: TestNode[] = [];
  /** Nodes over another node's store: closed first. */
  private readonly twins: TestNode[] = [];

  constructor(readonly name: BackendName) {}

  /** The settings that put a node on this backend. */
  env(): Record<string, string> {
    if (this.redis) return { REDIS_URL: this.redis.url };
    return { DATA_DIR: this.dataDir ?? ":memory:" };
  }

  /**
   * Starts a node on this backend; it is closed after the test. On the embedded store one server
   * owns a DATA_DIR, so a second node at once gets a store of its own (as each in-process node has).
   */
  async startNode(env: Record<string, string> = {}): Promise<TestNode> {
    let own: Record<string, string> = {};
    if (this.dataDir && this.nodes.length > 0) {
      const dir = mkdtempSync(join(tmpdir(), "sigil-test-"));
      this.extraDirs.push(dir);
      own = { DATA_DIR: dir };
    }
    const node = await startNode({
      ...(this.redis ? { redisUrl: this.redis.url } : {}),
      env: { ...this.env(), ...own, ...env },
    });
    this.nodes.push(node);
    return node;
  }
  private readonly extraDirs: string[] = [];

  /** Starts a node over `node`'s store with these settings; closed after the test, before it. */
  async startTwin(node: TestNode, env: Record<string, string>): Promise<TestNode> {
    const twin = await startNode({ ...(this.redis ? { redisUrl: this.redis.url } : {}), env, sameStoreAs: node });
    this.twins.push(twin);
    return twin;
  }

  async closeNodes(): Promise<void> {
    await Promise.all(this.twins.splice(0).map((n) => n.close()));
    const nodes = this.nodes.splice(0);
    await Promise.all(nodes.map((n) => n.close()));
    for (const dir of this.extraDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }

  /**
   * Empties the store (no node is open: they close after each test). The embedded store gets a new
   * DATA_DIR rather than the old path emptied: lmdb-js shares an open environment by path within a
   * process, so a path reused while the last test's environment is still being released would give
   * the next test that environment (its data, in a file already deleted).
   */
  async clean(): Promise<void> {
    await this.redis?.flushAll();
    if (this.dataDir) {
      rmSync(this.dataDir, { recursive: true, force: true });
      this.dataDir = mkdtempSync(join(tmpdir(), "sigil-test-"));
    }
  }
}

export function describeBackends(
  title: string,
  /** Called as the suite's function (`this` is the mocha suite: this.timeout() works). */
  fn: (this: Mocha.Suite, b: Backend) => void,
  backends: BackendName[] = DEFAULT_BACKENDS,
  /** wholeSuite: the store is not emptied nor the nodes closed between tests, only after the suite. */
  opts: { wholeSuite?: boolean } = {},
): void {
  for (const name of backends) {
    describe(`${title} [${name}]`, function () {
      const backend = new Backend(name);
      before(async function () {
        if (name === "redis") {
          requireRedis(this);
          backend.redis = await TestRedis.start();
        }
        if (name === "lmdb") backend.dataDir = mkdtempSync(join(tmpdir(), "sigil-test-"));
      });
      if (!opts.wholeSuite) {
        beforeEach(() => backend.clean());
        afterEach(() => backend.closeNodes());
      }
      after(async () => {
        await backend.closeNodes();
        await backend.redis?.destroy();
        if (backend.dataDir) rmSync(backend.dataDir, { recursive: true, force: true });
      });
      fn.call(this, backend);
    });
  }
}

/**
 * As describeBackends, but the nodes a suite starts (in `before`) serve all of its tests: for
 * suites whose tests keep to data of their own, so that one node start serves them all.
 */
export function describeBackendsWholeSuite(
  title: string,
  fn: (this: Mocha.Suite, b: Backend) => void,
  backends: BackendName[] = DEFAULT_BACKENDS,
): void {
  describeBackends(title, fn, backends, { wholeSuite: true });
}

/** A store contract suite: on every backend (the in-process engine included). */
export function describeStoreContract(title: string, fn: (this: Mocha.Suite, b: Backend) => void): void {
  describeBackends(title, fn, ALL_BACKENDS);
}
