// Starting Sigil nodes in this process with startNode (src/node.ts), as main.ts does: on any free
// port (PORT=0; BASE_URL follows the real port), with their log lines kept for assertions.
import { Writable } from "node:stream";
import { loadConfig, type Config } from "../../src/config.js";
import type { CustomTokens } from "../../src/domain/custom-tokens.js";
import { makeKeyPair, type KeyPairMaker } from "../../src/domain/keys.js";
import type { Services } from "../../src/domain/services.js";
import { createLogger } from "../../src/log.js";
import { createMetrics } from "../../src/metrics.js";
import { startNode as startSigilNode } from "../../src/node.js";
import type { ChannelServer } from "../../src/realtime/types.js";
import { openStore, type OpenedNode } from "../../src/store/index.js";
import type { MigrateOptions } from "../../src/store/migrations.js";
import type { AppRecord, Store } from "../../src/store/port.js";
import { holdDataDir } from "./open-data-dirs.js";

/** The secret every test node shares, so that nodes on one Redis can verify each other's data. */
export const TEST_SECRET = "test-secret-0123456789abcdef0123456789abcdef";

export interface TestNode {
  url: string;
  config: Config;
  /** What the tests reach behind the HTTP and Socket.IO interfaces. */
  server: { customTokens: CustomTokens; io: ChannelServer; services: Services };
  opened: OpenedNode;
  /** Every log line the node wrote, as JSON text (for "nothing secret is logged" checks). */
  logs: string[];
  close(): Promise<void>;
}

/** Client ids the channel tests use without registering an app on /developers. */
export const TEST_APPS = new Set<string>(["test-app", "other-app"]);

/**
 * The store as the node sees it: the TEST_APPS exist as apps (with no owner, secret or redirect
 * URI), so CUSTOM TOKENs can be issued for them; every other app as registered.
 */
export function withTestApps(store: Store): Store {
  const testApp = (clientId: string): AppRecord =>
    ({ clientId, ownerId: "", name: clientId, redirectUris: [], secretHash: "", createdAt: 0 }) as AppRecord;
  const apps = new Proxy(store.apps, {
    get(target, prop, receiver) {
      if (prop !== "get") return Reflect.get(target, prop, receiver);
      return async (clientId: string) =>
        (await target.get(clientId)) ?? (TEST_APPS.has(clientId) ? testApp(clientId) : null);
    },
  });
  return new Proxy(store, {
    get: (target, prop, receiver) => (prop === "apps" ? apps : Reflect.get(target, prop, receiver)),
  });
}

/** RSA key pairs this process has made for its nodes; the first POOL are new, then they are reused. */
const rsaPairs: ReturnType<KeyPairMaker>[] = [];
const POOL = 8;
let nextPair = 0;

/**
 * How the test nodes make signing keys: RSA 2048 pairs (about 130 ms of CPU each, and hundreds of
 * test nodes sign ID tokens) come from a pool of eight made by makeKeyPair, handed out in turn, so
 * that keys made one after another within a test (a rotation, a new SECRET, two stores) differ;
 * ES256 and EdDSA pairs (well under a millisecond) are made each time. Nodes in child processes
 * and the CLI make theirs as in production.
 */
const pooledKeyPair: KeyPairMaker = (alg) => {
  if (alg !== "RS256") return makeKeyPair(alg);
  if (rsaPairs.length < POOL) {
    const pair = makeKeyPair(alg);
    rsaPairs.push(pair);
    return pair;
  }
  return rsaPairs[nextPair++ % POOL]!;
};

export async function startNode(
  opts: {
    redisUrl?: string;
    env?: Record<string, string>;
    /** Wraps the store the node is given (tests of what a failing store does to a request). */
    wrapStore?: (store: Store) => Store;
    /**
     * Make the signing key at start, as a node does by default (here default false: when first
     * needed, so that the hundreds of test nodes do not each pay for an RSA key).
     */
    signingKeyAtStart?: boolean;
    /**
     * Serve from that node's store instead of a store of its own (and leave it open on close): two
     * nodes of different settings over the same data, on either backend (test/hot-routes.test.ts).
     */
    sameStoreAs?: TestNode;
    /** The code's data version and migrations, instead of the real ones (src/store/migrations.ts). */
    migrate?: MigrateOptions;
    /**
     * How long the start waits for Redis before serving 503 until it answers (default 3000 ms; a
     * test that starts a node with Redis stopped on purpose need not wait it out).
     */
    storeWaitMs?: number;
  } = {},
): Promise<TestNode> {
  const { config } = loadConfig({
    NODE_ENV: "test",
    SECRET: TEST_SECRET,
    PORT: "0",
    HOST: "127.0.0.1",
    BASE_URL: "http://127.0.0.1:0",
    LOG_LEVEL: "info",
    SHUTDOWN_TIMEOUT: "2",
    SIGNING_KEY_AT_START: opts.signingKeyAtStart ? "on" : "off",
    // Cheaper password hashes (scrypt N = 1024): the suites sign in thousands of times. Child
    // processes and the CLI keep the default (14); test/passwords.test.ts checks that hashes of
    // either cost verify under the other.
    PASSWORD_HASH_COST: "10",
    // The in-process store unless a test names a DATA_DIR (support/backends.ts: the "lmdb" backend).
    DATA_DIR: ":memory:",
    // The tests' webhook and back-channel receivers listen on loopback (test/webhooks.test.ts
    // checks the default, which refuses them).
    DELIVERY_ALLOW_PRIVATE: "true",
    // HOT_ROUTES=off npx mocha … runs a suite with every request through express.
    ...(process.env.HOT_ROUTES ? { HOT_ROUTES: process.env.HOT_ROUTES } : {}),
    ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl } : {}),
    ...opts.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(...chunk.toString().split("\n").filter(Boolean));
      if (process.env.SIGIL_TEST_LOGS) process.stderr.write(chunk);
      cb();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  const shared = opts.sameStoreAs?.opened;
  // On LMDB, commits are not flushed to the disk one by one (flush: false): nothing here outlives
  // the test, a commit still outlasts a process (what test/data-lasts.test.ts checks, on nodes in
  // processes as npm start runs them), and waiting on the disk took half of some suites' time.
  const opened = shared ?? (await openStore(config, logger, { waitMs: opts.storeWaitMs ?? 3000, flush: false }));
  // The embedded store's DATA_DIR, held while this node has it open (support/open-data-dirs.ts).
  const release =
    !shared && config.redisUrl === undefined && config.dataDir !== ":memory:" ? holdDataDir(config.dataDir) : () => {};
  const store = withTestApps(opts.wrapStore ? opts.wrapStore(opened.store) : opened.store);
  let node;
  try {
    node = await startSigilNode(config, {
      opened: { ...opened, store },
      logger,
      metrics: createMetrics(),
      makeKeyPair: pooledKeyPair,
      ...(opts.migrate ? { migrate: opts.migrate } : {}),
    });
  } catch (err) {
    if (!shared) await opened.close();
    release();
    throw err;
  }
  let closed = false;
  return {
    url: node.url,
    config: node.config,
    server: { customTokens: node.services.customTokens, io: node.io, services: node.services },
    opened,
    logs,
    async close() {
      if (closed) return;
      closed = true;
      await node.close();
      if (!shared) await opened.close();
      release();
    },
  };
}
