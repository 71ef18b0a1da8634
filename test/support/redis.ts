// Private redis-server processes for tests: on free ports (never 6379), nothing saved to disk
// unless asked, never evicting keys, stopped by pid. Where no redis-server exists the Redis suites say so loudly and
// skip; under CI=true they fail instead.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import { freePort } from "./ports.js";
import { waitFor } from "./wait.js";

export const IN_CI = process.env.CI === "true" || process.env.CI === "1";

let cachedHas: boolean | undefined;
export function hasRedisServer(): boolean {
  cachedHas ??= spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
  return cachedHas;
}

/** Call in a before() hook: skips the suite (loudly) without redis-server, fails it in CI. */
export function requireRedis(ctx: Mocha.Context, what = "Redis"): void {
  if (hasRedisServer()) return;
  if (IN_CI) throw new Error(`redis-server is not installed: the ${what} suites are mandatory in CI (CI=true)`);
  console.warn(
    `\n  !!! redis-server is not installed: SKIPPING the ${what} suites. Install it (apt-get install -y redis-server) to run them. !!!\n`,
  );
  ctx.skip();
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of live) c.kill("SIGKILL");
});

export interface RedisServerOptions {
  /** Keep an append-only file (for "nothing acknowledged is lost" tests). */
  appendonly?: boolean;
  extraArgs?: string[];
}

export class TestRedis {
  private proc: ChildProcess | undefined;
  private readonly dir: string;

  private constructor(
    readonly port: number,
    private readonly opts: RedisServerOptions,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), "sigil-redis-"));
  }

  /**
   * A server on a port that was free a moment ago: redis-server takes no port 0. Test files run
   * side by side (mocha --parallel), so another process may bind that port first: then another.
   */
  static async start(opts: RedisServerOptions = {}): Promise<TestRedis> {
    for (let attempt = 1; ; attempt++) {
      const r = new TestRedis(await freePort(), opts);
      try {
        await r.start();
        return r;
      } catch (err) {
        await r.destroy();
        if (attempt >= 5 || !/already in use/i.test(String(err))) throw err;
      }
    }
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.proc !== undefined;
  }

  /** (Re)starts the server on its port; resolves when it accepts connections. */
  async start(): Promise<void> {
    if (this.proc) return;
    const args = [
      "--port",
      String(this.port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      this.opts.appendonly ? "yes" : "no",
      "--appendfsync",
      "always",
      // What a node requires of Redis (src/store/redis/durability.ts): it never evicts keys. (It
      // persists nothing unless asked: nodes on it warn so, once each.)
      "--maxmemory-policy",
      "noeviction",
      "--dir",
      this.dir,
      "--daemonize",
      "no",
      "--logfile",
      "",
      ...(this.opts.extraArgs ?? []),
    ];
    const proc = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
    live.add(proc);
    this.proc = proc;
    let out = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${this.port}: ${out}`)), 10_000);
      proc.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once("exit", (code) => {
        clearTimeout(timer);
        live.delete(proc);
        if (this.proc === proc) this.proc = undefined;
        reject(new Error(`redis-server exited with ${code}: ${out}`));
      });
    });
    proc.stdout!.resume();
    proc.stderr!.resume();
  }

  /** Stops the server (SIGTERM by default; SIGKILL for a crash) and waits for it to exit. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.proc = undefined;
    await new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once("exit", () => resolve());
      proc.kill(signal);
    });
    live.delete(proc);
  }

  /** Sends a signal and does not wait (SIGSTOP / SIGCONT: a server that hangs, then comes back). */
  signal(signal: NodeJS.Signals): void {
    this.proc?.kill(signal);
  }

  /**
   * FLUSHALL over a connection of its own: what cli("FLUSHALL") does, without a redis-cli
   * process (a process start cost ~3.5 ms of CPU and held the test process 12–17 ms; the store
   * suites empty Redis before each of their tests).
   */
  flushAll(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.port, "127.0.0.1");
      let answer = "";
      const fail = (err: Error) => {
        socket.destroy();
        reject(new Error(`FLUSHALL on ${this.port}: ${err.message}`));
      };
      socket.setTimeout(5000, () => fail(new Error(`no answer within 5 s (${JSON.stringify(answer)})`)));
      socket.on("error", fail);
      socket.on("data", (d: Buffer) => {
        answer += d.toString();
        if (!answer.endsWith("\r\n")) return;
        socket.end();
        if (answer === "+OK\r\n") resolve();
        else fail(new Error(answer.trim()));
      });
      socket.write("*1\r\n$8\r\nFLUSHALL\r\n");
    });
  }

  /** Runs redis-cli against this server (for setup and inspection in tests). */
  cli(...args: string[]): string {
    const r = spawnSync("redis-cli", ["-p", String(this.port), ...args], { encoding: "utf8", timeout: 5000 });
    if (r.status !== 0) throw new Error(`redis-cli ${args.join(" ")}: ${r.stderr}`);
    return r.stdout.trim();
  }

  async destroy(): Promise<void> {
    await this.stop("SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The replication lines of INFO replication on a master and its replicas (for failure messages). */
export function replicationState(master: TestRedis, replicas: TestRedis[]): string {
  const lines = (r: TestRedis, keep: RegExp) => {
    try {
      return r
        .cli("INFO", "replication")
        .split(/\r?\n/)
        .filter((l) => keep.test(l))
        .join(" ");
    } catch (err) {
      return `INFO failed: ${String(err)}`;
    }
  };
  return [
    `master ${master.port}: ${lines(master, /^(connected_slaves|slave\d+|master_repl_offset):/)}`,
    ...replicas.map(
      (r) => `replica ${r.port}: ${lines(r, /^(master_link_status|master_last_io_seconds_ago|slave_repl_offset):/)}`,
    ),
  ].join("\n");
}

/**
 * Waits (at most ms) until the replicas acknowledge writes made on master within withinMs, inARow
 * times in a row: a SET, then WAIT on the same connection, as a node's waited write does. (A WAIT
 * on a connection that has written nothing answers at once with the replicas merely online, so it
 * says nothing about acknowledgements.) On timeout, the error gives the last answer and the
 * replication state of every server.
 */
export async function replicasAcknowledge(
  master: TestRedis,
  replicas: TestRedis[],
  opts: { withinMs: number; inARow?: number; ms?: number },
): Promise<void> {
  const inARow = opts.inARow ?? 1;
  let streak = 0;
  let last = "";
  await waitFor(
    `${replicas.length} replica(s) to acknowledge ${inARow} write(s) in a row within ${opts.withinMs} ms each`,
    () => {
      const r = spawnSync("redis-cli", ["-p", String(master.port)], {
        input: `SET sigil:test:acknowledged ${Date.now()}\nWAIT ${replicas.length} ${opts.withinMs}\n`,
        encoding: "utf8",
        timeout: 5000,
      });
      last = `${r.stdout ?? ""}${r.stderr ?? ""}`.replace(/\s+/g, " ").trim();
      streak = last === `OK ${replicas.length}` ? streak + 1 : 0;
      return streak >= inARow;
    },
    {
      ms: opts.ms ?? 10_000,
      everyMs: 50,
      seen: () => `the last SET and WAIT answered "${last}"\n${replicationState(master, replicas)}`,
    },
  );
}

/** Every key of a Redis with its value, as text. */
/** Every key of the audit log (docs/operations.md#audit-log), for dumps that leave the log out. */
export const isAuditKey = (key: string) => /^[^:]+:audit(-of:\{[^}]*\})?$/.test(key);

/** except: keys left out (the audit log, say, which keeps an app's trail after its deletion). */
export function redisDump(redis: TestRedis, except: (key: string) => boolean = () => false): string {
  const read: Record<string, string[]> = {
    string: ["GET"],
    hash: ["HGETALL"],
    list: ["LRANGE", "0", "-1"],
    set: ["SMEMBERS"],
    zset: ["ZRANGE", "0", "-1"],
    stream: ["XRANGE", "-", "+"],
  };
  return redis
    .cli("--scan")
    .split("\n")
    .filter((k) => k !== "" && !except(k))
    .map((k) => {
      const how = read[redis.cli("TYPE", k)];
      return `${k} => ${how ? redis.cli(how[0]!, k, ...how.slice(1)) : ""}`;
    })
    .join("\n");
}
