// Starting Sigil nodes in this process, on free ports, wired exactly as main.ts wires them.
import { Writable } from "node:stream";
import { loadConfig, type Config } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { appExistsIn } from "../../src/domain/apps.js";
import type { AppExists } from "../../src/domain/custom-tokens.js";
import { createServer, type SigilServer } from "../../src/server.js";
import { openStore, type OpenedNode } from "../../src/store/index.js";
import type { Store } from "../../src/store/port.js";
import { freePort } from "./ports.js";

/** The secret every test node shares, so that nodes on one Redis can verify each other's data. */
export const TEST_SECRET = "test-secret-0123456789abcdef0123456789abcdef";

export interface TestNode {
  url: string;
  config: Config;
  server: SigilServer;
  opened: OpenedNode;
  /** Every log line the node wrote, as JSON text (for "nothing secret is logged" checks). */
  logs: string[];
  close(): Promise<void>;
}

/** Client ids the channel tests use without registering an app (see appExists). */
export const TEST_APPS = new Set<string>(["test-app", "other-app"]);
/** The fixed test ids, and every app registered on /developers (as in production). */
const testAppExists = (store: Store): AppExists => {
  const registered = appExistsIn(store);
  return async (id) => TEST_APPS.has(id) || (await registered(id));
};

export async function startNode(
  opts: {
    redisUrl?: string;
    env?: Record<string, string>;
    appExists?: AppExists;
    /** Wraps the store the node is given (tests of what a failing store does to a request). */
    wrapStore?: (store: Store) => Store;
    /** Make the signing key at start, as main.ts does (default false: when first needed; src/server.ts). */
    signingKeyAtStart?: boolean;
  } = {},
): Promise<TestNode> {
  const port = await freePort();
  const { config } = loadConfig({
    NODE_ENV: "test",
    SECRET: TEST_SECRET,
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: "info",
    SHUTDOWN_TIMEOUT: "2",
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
  const opened = await openStore(config, logger, { waitMs: 3000 });
  const store = opts.wrapStore ? opts.wrapStore(opened.store) : opened.store;
  const server = createServer({
    config,
    store,
    logger,
    realtime: opened.realtime,
    appExists: opts.appExists ?? testAppExists(opened.store),
    signingKeyAtStart: opts.signingKeyAtStart ?? false,
  });
  const url = await server.listen(config.port, config.host);
  let closed = false;
  return {
    url,
    config,
    server,
    opened,
    logs,
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
      await opened.close();
    },
  };
}
