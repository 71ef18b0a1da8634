// A private Redis Cluster for tests: `redis-server --cluster-enabled yes` processes on free ports,
// joined with `redis-cli --cluster create`, stopped by pid. By default three masters; with
// { replicas: 1 } three masters and three replicas, for failover tests (a small node timeout makes
// a replica take over about 1–2 s after its master dies).
import { spawnSync } from "node:child_process";
import { TestRedis } from "./redis.js";
import { waitFor } from "./wait.js";

export interface ClusterOptions {
  masters?: number;
  /** Replicas per master. */
  replicas?: number;
  /** cluster-node-timeout (ms): how long a silent master has before its replica takes over. */
  nodeTimeoutMs?: number;
}

export interface ClusterNodeInfo {
  id: string;
  port: number;
  role: "master" | "replica";
  /** A replica's master id. */
  masterId: string | undefined;
  failed: boolean;
  slots: Array<[number, number]>;
}

export class TestCluster {
  private constructor(readonly nodes: TestRedis[]) {}

  static async start(opts: ClusterOptions | number = {}): Promise<TestCluster> {
    const o = typeof opts === "number" ? { masters: opts } : opts;
    const masters = o.masters ?? 3;
    const replicas = o.replicas ?? 0;
    const nodes = await Promise.all(
      Array.from({ length: masters * (1 + replicas) }, () =>
        TestRedis.start({
          // A relative config file lands in the server's own --dir (a private temp directory).
          extraArgs: [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            String(o.nodeTimeoutMs ?? 2000),
            // A replica's first full sync at once, not after the default 5 s of waiting for others.
            "--repl-diskless-sync-delay",
            "0",
          ],
        }),
      ),
    );
    const cluster = new TestCluster(nodes);
    const r = spawnSync(
      "redis-cli",
      [
        "--cluster",
        "create",
        ...nodes.map((n) => `127.0.0.1:${n.port}`),
        "--cluster-replicas",
        String(replicas),
        "--cluster-yes",
      ],
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

  /** The running nodes agree the cluster is ok and every replica's link to its master is up. */
  async waitOk(timeoutMs = 15_000): Promise<void> {
    let notOk: string | undefined;
    await waitFor(
      "the test cluster to reach cluster_state:ok with every replica's link up",
      () => (notOk = this.notOk()) === undefined,
      { ms: timeoutMs, everyMs: 100, seen: () => `last seen: ${notOk}` },
    );
  }

  /** Why the cluster is not ok yet (the first node that says so), or undefined when it is. */
  private notOk(): string | undefined {
    try {
      for (const n of this.nodes.filter((n) => n.running)) {
        const state = /cluster_state:(\w+)/.exec(n.cli("CLUSTER", "INFO"))?.[1];
        if (state !== "ok") return `node ${n.port} says cluster_state:${state}`;
        const repl = n.cli("INFO", "replication");
        if (/role:slave/.test(repl) && !/master_link_status:up/.test(repl))
          return `replica ${n.port}'s link to its master is not up`;
      }
      return undefined;
    } catch (err) {
      return `redis-cli failed: ${String(err)}`;
    }
  }

  /** The cluster's view (CLUSTER NODES) as seen from a running node. */
  topology(): ClusterNodeInfo[] {
    const from = this.nodes.find((n) => n.running);
    if (!from) throw new Error("no node of the test cluster is running");
    return from
      .cli("CLUSTER", "NODES")
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [id, addr, flags, master, , , , , ...slots] = line.split(" ");
        const f = flags!.split(",");
        return {
          id: id!,
          port: Number(addr!.split("@")[0]!.split(":")[1]),
          role: f.includes("master") ? ("master" as const) : ("replica" as const),
          masterId: master === "-" ? undefined : master,
          failed: f.includes("fail") || f.includes("fail?"),
          slots: slots
            .filter((s) => !s.startsWith("["))
            .map((s) => {
              const [a, b] = s.split("-");
              return [Number(a), Number(b ?? a)] as [number, number];
            }),
        };
      });
  }

  node(port: number): TestRedis {
    const n = this.nodes.find((n) => n.port === port);
    if (!n) throw new Error(`no node on port ${port}`);
    return n;
  }

  /** The master serving a key (its hash slot), and that master's replicas. */
  shardOf(key: string): { master: TestRedis; replicas: TestRedis[] } {
    const from = this.nodes.find((n) => n.running)!; // topology() threw otherwise
    const slot = Number(from.cli("CLUSTER", "KEYSLOT", key));
    const topo = this.topology();
    const m = topo.find((t) => t.role === "master" && !t.failed && t.slots.some(([a, b]) => slot >= a && slot <= b));
    if (!m) throw new Error(`no master serves slot ${slot}`);
    const reps = topo.filter((t) => t.masterId === m.id && !t.failed).map((t) => this.node(t.port));
    return { master: this.node(m.port), replicas: reps };
  }

  flushAll(): void {
    for (const n of this.nodes) {
      if (!n.running) continue;
      try {
        n.cli("FLUSHALL");
      } catch {
        // a replica refuses writes: its master's FLUSHALL reaches it
      }
    }
  }

  async destroy(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.destroy()));
  }
}
