// One suite, every backend: describeBackends() runs the same tests on the embedded store and on
// a private Redis, with a clean state for each test.
import { requireRedis, TestRedis } from "./redis.js";
import { startNode, type TestNode } from "./nodes.js";

export type BackendName = "memory" | "redis";

export class Backend {
  redis: TestRedis | undefined;
  private readonly nodes: TestNode[] = [];
  /** Nodes over another node's store: closed first. */
  private readonly twins: TestNode[] = [];

  constructor(readonly name: BackendName) {}

  /** Starts a node on this backend; it is closed after the test. */
  async startNode(env: Record<string, string> = {}): Promise<TestNode> {
    const node = await startNode({ ...(this.redis ? { redisUrl: this.redis.url } : {}), env });
    this.nodes.push(node);
    return node;
  }

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
  }
}

export function describeBackends(
  title: string,
  fn: (b: Backend) => void,
  backends: BackendName[] = ["memory", "redis"],
): void {
  for (const name of backends) {
    describe(`${title} [${name}]`, function () {
      const backend = new Backend(name);
      before(async function () {
        if (name === "redis") {
          requireRedis(this);
          backend.redis = await TestRedis.start();
        }
      });
      beforeEach(() => {
        backend.redis?.cli("FLUSHALL");
      });
      afterEach(() => backend.closeNodes());
      after(async () => {
        await backend.closeNodes();
        await backend.redis?.destroy();
      });
      fn(backend);
    });
  }
}
