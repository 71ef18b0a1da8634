// Process entry: load the configuration, open the store, start one node (node.ts), drain on SIGTERM.
import { ConfigError, loadConfig } from "./config.js";
import { createLogger, stdoutLog } from "./log.js";
import { createMetrics } from "./metrics.js";
import { startNode } from "./node.js";
import { resolve } from "node:path";
import { IN_MEMORY, openStore } from "./store/index.js";
import { StoreRefusedError } from "./store/start.js";

/** Where the embedded store keeps its data (the start-up line says it), or nothing on Redis. */
const storeWhere = (config: { redisUrl?: string; dataDir: string }) =>
  config.redisUrl === undefined ? { dataDir: config.dataDir === IN_MEMORY ? IN_MEMORY : resolve(config.dataDir) } : {};

/** What SHUTDOWN_TIMEOUT keeps for the last log lines after a drain that took too long. */
const LAST_LINES_MS = 250;

const log = stdoutLog();

/** Exits once the pending log lines are written, or at `deadline` (ms) whatever stdout does. */
async function exit(code: number, deadline: number): Promise<never> {
  await log.close(deadline - Date.now());
  process.exit(code);
}

async function main(): Promise<void> {
  let loaded;
  try {
    loaded = loadConfig(process.env, { keepSecret: true });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`sigil: bad setting ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const { config, warnings } = loaded;
  const logger = createLogger(config.logLevel, log.destination);
  for (const w of warnings) logger.warn(w);

  const opened = await openStore(config, logger);
  // A store this code must not serve on (store/start.ts): one line naming why, and exit code 1.
  const refuse = async (err: StoreRefusedError): Promise<never> => {
    logger.fatal(`refusing to start: ${err.message}`);
    await Promise.race([opened.close(), new Promise((r) => setTimeout(r, 1000))]);
    return exit(1, Date.now() + 1000);
  };
  let node;
  try {
    node = await startNode(config, {
      opened,
      logger,
      metrics: createMetrics({ defaultMetrics: true }),
      onStoreRefused: (err) => void refuse(err),
    });
  } catch (err) {
    if (err instanceof StoreRefusedError) return refuse(err);
    throw err;
  }
  const { address, everyInterface } = node.listening;
  logger.info(
    { address, url: node.url, baseUrl: node.config.baseUrl, store: opened.store.kind, ...storeWhere(config) },
    `sigil is listening on ${address}${everyInterface ? " (every interface)" : ""}, serving ${node.config.baseUrl}`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // The process is gone by SHUTDOWN_TIMEOUT, whatever the drain, the store or stdout do.
    const deadline = Date.now() + config.shutdownTimeout * 1000;
    logger.info({ signal }, "draining");
    const hard = setTimeout(
      () => {
        logger.error("drain took too long; exiting");
        void exit(1, deadline);
      },
      config.shutdownTimeout * 1000 - LAST_LINES_MS,
    );
    hard.unref();
    await node.close();
    await opened.close();
    logger.info("stopped");
    await exit(0, deadline);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch(async (err: unknown) => {
  process.stderr.write(`sigil: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  await exit(1, Date.now() + 1000);
});
