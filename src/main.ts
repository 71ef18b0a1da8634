// Process entry: load the configuration, open the store, start one node (node.ts), drain on SIGTERM.
import { ConfigError, loadConfig } from "./config.js";
import { createLogger } from "./log.js";
import { createMetrics } from "./metrics.js";
import { startNode } from "./node.js";
import { openStore } from "./store/index.js";

async function main(): Promise<void> {
  let loaded;
  try {
    loaded = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`sigil: bad setting ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const { config, warnings } = loaded;
  const logger = createLogger(config.logLevel);
  for (const w of warnings) logger.warn(w);

  const opened = await openStore(config, logger);
  const node = await startNode(config, { opened, logger, metrics: createMetrics({ defaultMetrics: true }) });
  logger.info({ url: node.url, baseUrl: node.config.baseUrl, store: opened.store.kind }, "sigil is listening");

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "draining");
    const hard = setTimeout(() => {
      logger.error("drain took too long; exiting");
      process.exit(1);
    }, config.shutdownTimeout * 1000);
    hard.unref();
    await node.close();
    await opened.close();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err: unknown) => {
  process.stderr.write(`sigil: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
