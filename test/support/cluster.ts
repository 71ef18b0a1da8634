// A private three-master Redis Cluster for tests: three `redis-server --cluster-enabled yes`
// processes on free ports, joined with `redis-cli --cluster create`, stopped by pid.
import { spawnSync } from "node:child_process";
import { TestRedis } from "./redis.js";

export class TestCluster {
  private constructor(readonly nodes: TestRedis[]) {}

  static async start(size = 3): Promise<TestCluster> {
    const nodes = await Promise.all(
      Array.from({ length: size }, () =>
        TestRedis.start({
          // A relative config file lands in the server's own --dir (a private temp directory).
          extraArgs: [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            "2000",
          ],
        }),
      ),
    );
    const cluster = new TestCluster(nodes);
    const r = spawnSync(
      "redis-cli",
      ["--cluster", "create", ...nodes.map((n) => `127.0.0.1:${n.port}`), "--cluster-replicas", "0", "--cluster-yes"],
      { encoding: "utf8" },
    );
    if (r.status !== 0) {
      await cluster.destroy();
      throw new Error(`redis-cli --cluster create failed: ${r.stdout}${r.stderr}`);
    }
    await cluster.waitOk();
    return cluster;
  }

  /** redis+cluster://host:port,... as REDIS_URL takes it. */
  get url(): string {
    return `redis+cluster://${this.nodes.map((n) => `127.0.0.1:${n.port}`).join(",")}`;
  }

  private async waitOk(timeoutMs = 15_000): Promise<void> {
    const started = Date.now();
    for (;;) {
      const ok = this.nodes.every((n) => /cluster_state:ok/.test(n.cli("CLUSTER", "INFO")));
      if (ok) return;
      if (Date.now() - started > timeoutMs) throw new Error("the test cluster did not reach cluster_state:ok");
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  flushAll(): void {
    for (const n of this.nodes) n.cli("FLUSHALL");
  }

  async destroy(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.destroy()));
  }
}
