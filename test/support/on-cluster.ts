// A suite on a private three-master Redis Cluster (support/cluster.ts): the cluster started once for
// the suite (skipped, or failed with CI=true, where redis-server is missing), and a node on it for a
// test, on an emptied cluster, closed after the test.
import { TestCluster } from "./cluster.js";
import { startNode, type TestNode } from "./nodes.js";
import { requireRedis } from "./redis.js";

export interface OnCluster {
  /** The suite's cluster (started in its before hook). */
  readonly cluster: TestCluster;
  /** Empties the cluster and starts a node on it (closed after the test). */
  freshNode(env?: Record<string, string>): Promise<TestNode>;
}

export function describeOnCluster(title: string, body: (on: OnCluster) => void): void {
  describe(title, function () {
    this.timeout(30_000);
    let cluster: TestCluster | undefined;
    let node: TestNode | undefined;
    before(async function () {
      requireRedis(this, "Redis Cluster");
      cluster = await TestCluster.start();
    });
    afterEach(async () => {
      await node?.close();
      node = undefined;
    });
    after(() => cluster?.destroy());
    body({
      get cluster() {
        if (!cluster) throw new Error("the cluster is not started yet");
        return cluster;
      },
      async freshNode(env) {
        if (!cluster) throw new Error("the cluster is not started yet");
        cluster.flushAll();
        node = await startNode({ redisUrl: cluster.url, ...(env ? { env } : {}) });
        return node;
      },
    });
  });
}
