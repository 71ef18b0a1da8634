// A Redis Cluster master killed while its replica lags: with REDIS_WAIT_REPLICAS=1 nothing that was
// acknowledged (a 201 challenge, a 200 solve and its event) is lost; without it, the same kill
// loses acknowledged writes (which is why the setting exists).
//
// The replica is made to lag for certain by stopping it (SIGSTOP) while the writes go in, then the
// master is SIGKILLed and the replica resumed; it takes over about 1–2 s later
// (cluster-node-timeout 500 ms). Async replication on one machine is otherwise too quick to lose
// anything on cue.
import { expect } from "chai";
import { createRequest, send, solveRequest } from "./client.js";
import { TestCluster } from "../support/cluster.js";
import { startNode, type TestNode } from "../support/nodes.js";
import { replicasAcknowledge, replicationState, requireRedis, TestRedis } from "../support/redis.js";
import { waitFor } from "../support/wait.js";
import type { Store } from "../../src/store/port.js";

const APP = "test-app";
const HISTORY = { maxEvents: 1000, ttlSeconds: 86_400 };

interface Acked {
  keys: Array<{ key: string; question: string }>;
  /** Keys whose solve was answered 200: their event must be in the app's history. */
  solved: string[];
  statuses: number[];
  /** The slowest answer (ms): the node answers, it never hangs. */
  slowestMs: number;
}

async function writes(node: TestNode, token: string, n: number, tag: string): Promise<Acked> {
  const out: Acked = { keys: [], solved: [], statuses: [], slowestMs: 0 };
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const question = `${tag}-q${i}`;
      const t0 = Date.now();
      const made = await send(node.url, createRequest(question, "yes", { authorization: `Bearer ${token}` }));
      out.statuses.push(made.status ?? 0);
      if (made.status === 201) {
        const key = (made.json as { key: string }).key;
        out.keys.push({ key, question });
        const solved = await send(node.url, solveRequest(key, "yes"));
        out.statuses.push(solved.status ?? 0);
        if (solved.status === 200) out.solved.push(key);
      }
      out.slowestMs = Math.max(out.slowestMs, Date.now() - t0);
    }),
  );
  return out;
}

async function lost(node: TestNode, acked: Acked[]): Promise<{ challenges: number; events: number }> {
  let challenges = 0;
  for (const { key, question } of acked.flatMap((a) => a.keys)) {
    let last = "";
    const text = await waitFor(
      `an answer other than 503 to GET /challenge/q of an acknowledged challenge`,
      async () => {
        const r = await send(node.url, { method: "GET", path: "/challenge/q", headers: { key } });
        last = `${r.status ?? r.error} ${JSON.stringify(r.json)}`;
        if (r.status === 503 || r.status === undefined) return undefined;
        return { question: r.status === 200 ? question : null };
      },
      { ms: 8000, everyMs: 100, seen: () => `the last answer: ${last}` },
    );
    if (text.question !== question) challenges++;
  }
  // A failed read is tried again: the store may still be finding the new master.
  const history = await waitFor(
    "the app's history read from the store",
    () => node.opened.store.events.readAfter(APP, "0-0", 10_000, HISTORY),
    { ms: 8000, everyMs: 100 },
  );
  const inHistory = new Set(history.events.map((e) => e.key));
  const events = acked.flatMap((a) => a.solved).filter((k) => !inHistory.has(k)).length;
  return { challenges, events };
}

/**
 * Cuts the replica off its master and keeps it off: the replica is stopped (SIGSTOP), so it cannot
 * reconnect, and its master drops its link (CLIENT KILL TYPE replica). A stop alone would not do:
 * the kernel keeps taking the replication stream into the stopped replica's socket, and it reads
 * it all when resumed.
 */
function cutReplica(master: TestRedis, replica: TestRedis): void {
  replica.signal("SIGSTOP");
  master.cli("CLIENT", "KILL", "TYPE", "replica");
  if (!/connected_slaves:0/.test(master.cli("INFO", "replication"))) throw new Error("the replica is still linked");
}

async function scenario(env: Record<string, string>) {
  const cluster = await TestCluster.start({ replicas: 1, nodeTimeoutMs: 500 });
  const node = await startNode({ redisUrl: cluster.url, env });
  try {
    const { token } = await node.server.customTokens.create({ app: APP });
    // The shard of the app's history (where every solve event goes).
    const { master, replicas } = cluster.shardOf(`sigil:ev:{${APP}}`);
    const replica = replicas[0]!; // one replica per master
    const before = await writes(node, token, 10, "before");
    const T = Date.now();
    const log = (m: string) => process.env.FAILOVER_VERBOSE && console.log(`${Date.now() - T} ms: ${m}`);
    cutReplica(master, replica);
    log("replica cut");
    const during = await writes(node, token, 30, "during");
    log("writes done");
    await master.stop("SIGKILL");
    replica.signal("SIGCONT");
    log("master killed");
    const t0 = Date.now();
    let seen = "";
    await waitFor(
      `the replica on port ${replica.port} promoted to master`,
      () => {
        const me = cluster.topology().find((t) => t.port === replica.port);
        seen = JSON.stringify(me);
        return me?.role === "master" && !me.failed;
      },
      { ms: 10_000, everyMs: 100, seen: () => `it was last seen as ${seen}` },
    );
    log("replica is master");
    await cluster.waitOk();
    const failoverMs = Date.now() - t0;
    log("cluster ok");
    const l = await lost(node, [before, during]);
    log(`checked: ${JSON.stringify(l)}`);
    return { before, during, failoverMs, lost: l };
  } finally {
    await node.close();
    await cluster.destroy();
  }
}

describe("Redis Cluster failover: a master killed while its replica lags", function () {
  // About 9 s each on a quiet machine; the margin is for a busy one.
  this.timeout(60_000);
  before(function () {
    requireRedis(this, "Redis Cluster");
  });

  it("When REDIS_WAIT_REPLICAS=1, then no acknowledged challenge or solve event is lost, and writes the replica cannot confirm answer 503 quickly", async () => {
    const r = await scenario({ REDIS_WAIT_REPLICAS: "1", REDIS_WAIT_TIMEOUT_MS: "200" });
    expect(r.before.keys).to.have.length(10);
    expect(r.before.solved).to.have.length(10);
    // While the replica is stopped, writes to its master's shard (every solve: the app's history
    // lives there) are not acknowledged: 503, after the 200 ms wait, not a hang.
    expect(r.during.statuses).to.include(503);
    expect(r.during.statuses.every((s) => s === 201 || s === 200 || s === 503)).to.equal(true);
    expect(r.during.keys.length, "challenges on the other shards are still acknowledged").to.be.greaterThan(0);
    expect(r.during.slowestMs).to.be.below(2500);
    expect(r.lost).to.deep.equal({ challenges: 0, events: 0 });
  });

  it("When no wait is set, then the same kill loses acknowledged writes (what REDIS_WAIT_REPLICAS is for)", async () => {
    const r = await scenario({});
    expect(r.during.statuses.every((s) => s === 201 || s === 200)).to.equal(true);
    expect(r.lost.events).to.be.greaterThan(0);
  });
});

/** The node's wait, short so that a refused write answers quickly. */
const WAIT = { REDIS_WAIT_REPLICAS: "1", REDIS_WAIT_TIMEOUT_MS: "200" };

/** A store whose challenges.create blocks the event loop for ms once the write is sent, as a node saturated by a broadcast would. */
function stallAfterCreate(ms: number) {
  return (store: Store): Store => {
    const challenges = new Proxy(store.challenges, {
      get(target, prop, receiver) {
        if (prop !== "create") return Reflect.get(target, prop, receiver);
        return (...args: Parameters<Store["challenges"]["create"]>) => {
          const made = target.create(...args);
          // After anything the client queued for this turn: the write is out, its replies arrive unread.
          setImmediate(() => {
            const end = Date.now() + ms;
            while (Date.now() < end);
          });
          return made;
        };
      },
    });
    return new Proxy(store, {
      get: (target, prop, receiver) => (prop === "challenges" ? challenges : Reflect.get(target, prop, receiver)),
    });
  };
}

describe("REDIS_WAIT_REPLICAS on a single Redis with a replica", function () {
  this.timeout(20_000);
  let master: TestRedis, replica: TestRedis, node: TestNode;
  before(async function () {
    requireRedis(this);
    // The delay before a diskless sync is the master's setting (5 s by default).
    master = await TestRedis.start({ extraArgs: ["--repl-diskless-sync-delay", "0"] });
    replica = await TestRedis.start({ extraArgs: ["--replicaof", "127.0.0.1", String(master.port)] });
    // What the first test assumes: the replica confirms a write within the node's 200 ms, on
    // this machine, now (three in a row).
    await replicasAcknowledge(master, [replica], { withinMs: 200, inARow: 3 });
    node = await startNode({ redisUrl: master.url, env: WAIT });
  });
  after(async () => {
    replica?.signal("SIGCONT");
    await node?.close();
    await replica?.destroy();
    await master?.destroy();
  });

  /** Why a waited write was not answered 201: its answer, the node's log of the cause, and both servers' replication state. */
  function whyNot(r: Awaited<ReturnType<typeof send>>, ms: number, on: TestNode): string {
    const causes = on.logs
      .filter((l) => l.includes("store unavailable"))
      .map((l) => JSON.stringify((JSON.parse(l) as { cause?: unknown }).cause).slice(0, 400));
    return [
      `answered ${r.status ?? r.error} after ${ms} ms: ${JSON.stringify(r.json)}`,
      `the node logged: ${causes.join(" | ") || "nothing"}`,
      replicationState(master, [replica]),
    ].join("\n");
  }

  it("When the replica confirms, then a challenge is made; when it cannot, then 503 with Retry-After within the wait, reads still answer, and writes come back with the replica", async () => {
    const sent = Date.now();
    const made = await send(node.url, createRequest("q", "a"));
    if (made.status !== 201) expect.fail(whyNot(made, Date.now() - sent, node));
    const key = (made.json as { key: string }).key;
    expect(replica.cli("EXISTS", `sigil:ch:{${key}}`), "the replica had it before the 201").to.equal("1");

    cutReplica(master, replica);
    const t0 = Date.now();
    const refused = await Promise.all(Array.from({ length: 20 }, () => send(node.url, createRequest("q", "a"))));
    expect(refused.map((r) => r.status)).to.deep.equal(Array(20).fill(503));
    expect(refused[0]!.headers!["retry-after"]).to.equal("1");
    expect((refused[0]!.json as { error: string }).error).to.equal("unavailable");
    expect(Date.now() - t0, "answered after the wait, not held").to.be.below(3000);
    const read = await send(node.url, { method: "GET", path: "/challenge/q", headers: { key } });
    expect(read.status, "reads do not queue behind the waits").to.equal(200);

    replica.signal("SIGCONT");
    let last = "";
    await waitFor(
      "a challenge made (201) again once the replica is back",
      async () => {
        const r = await send(node.url, createRequest("q", "a"));
        last = `${r.status ?? r.error} ${JSON.stringify(r.json)}`;
        return r.status === 201;
      },
      { ms: 8000, everyMs: 100, seen: () => `the last answer: ${last}\n${replicationState(master, [replica])}` },
    );
  });

  it("When the node's event loop stalls past the deadline while a waited write's replies arrive, then the write is acknowledged (201), not refused", async () => {
    await replicasAcknowledge(master, [replica], { withinMs: 200, inARow: 3 });
    const stalled = await startNode({ redisUrl: master.url, env: WAIT, wrapStore: stallAfterCreate(1500) });
    try {
      const sent = Date.now();
      const made = await send(stalled.url, createRequest("q", "a"), { timeoutMs: 8000 });
      if (made.status !== 201) expect.fail(whyNot(made, Date.now() - sent, stalled));
      const key = (made.json as { key: string }).key;
      expect(replica.cli("EXISTS", `sigil:ch:{${key}}`), "the replica has it").to.equal("1");
    } finally {
      await stalled.close();
    }
  });
});
