// The `sigil` command (docs/cli.md): operators' and scripts' access to the store named by
// REDIS_URL or DATA_DIR (beside the running server), with the service's SECRET. Each command prints one JSON object (`users list`: JSON lines), or one clear error
// line and exits non-zero; `--help` and `--version` answer without settings or a store (cli/help.ts).
import { parseArgs } from "node:util";
import { usage } from "./cli/commands.js";
import { firstLine, joinOptionValues, JsonLines, UsageError } from "./cli/common.js";
import { commandOf, helpFor } from "./cli/help.js";
import { ConfigError, loadConfig } from "./config.js";
import { createServices } from "./domain/services.js";
import { createLogger } from "./log.js";
import { IN_MEMORY, openStore, type OpenedStore } from "./store/index.js";
import { prepareStore } from "./store/start.js";

/** Where a command's output goes (the process's stdout and stderr, or a test's buffers), and its standard input. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
  /** Standard input (read only by `--password -`): bin/sigil.js gives process.stdin; unset reads as empty. */
  input?: AsyncIterable<string | Buffer>;
}

const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** Runs one command (bin/sigil.js passes the process's argv and env); resolves with the exit status. */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  output: CliOutput = processOutput,
): Promise<number> {
  const help = helpFor(argv);
  if (help !== undefined) {
    output.out(`${help}\n`);
    return 0;
  }
  const cmd = commandOf(argv);
  if (!cmd) {
    output.err(`${argv.length ? `sigil: unknown command "${argv.join(" ")}"\n` : ""}${usage()}\n`);
    return 2;
  }
  let opened: OpenedStore | undefined;
  try {
    const args = joinOptionValues(argv.slice(cmd.name.split(" ").length), cmd.options);
    const { values } = parseArgs({ args, options: cmd.options, strict: true });
    const { config } = loadConfig(env, { keepSecret: true });
    if (config.redisUrl === undefined && config.dataDir === IN_MEMORY && cmd.embedded) {
      output.out(`${JSON.stringify(cmd.embedded())}\n`);
      return 0;
    }
    if (config.redisUrl === undefined && config.dataDir === IN_MEMORY) {
      throw new UsageError(
        "DATA_DIR=:memory: and no REDIS_URL: that store lives inside the server process, so the CLI cannot reach it. Give the CLI the server's DATA_DIR (or REDIS_URL).",
      );
    }
    // A one-shot command can afford patience that a request path cannot (a busy machine, a
    // Redis that is still starting): it waits longer, then fails with one clear line.
    opened = await openStore(config, createLogger("silent"), {
      waitMs: 10_000,
      commandTimeoutMs: 5000,
      realtime: false,
      exclusive: cmd.exclusive === true,
    });
    await opened.store.ping();
    // A command that writes works only on data of this code's version (migrated first, as a node
    // does at start); Redis's own settings are the node's to check.
    // It also refuses a SECRET other than the one the store was made with, before writing anything.
    if (!cmd.readOnly)
      await prepareStore(opened, config, createLogger("silent"), { redisSettings: false, otherSecret: "refuse" });
    const services = createServices(config, opened.store);
    const readLine = () => firstLine(output.input);
    const out = await cmd.run({ config, opened, services, values, readLine });
    // The mail a change sends (a security mail) goes out before the process ends.
    await services.securityMails.settled();
    await services.audit.settled();
    await services.identityEvents.settled();
    if (out instanceof JsonLines) for await (const line of out.lines) output.out(`${JSON.stringify(line)}\n`);
    else output.out(`${JSON.stringify(out)}\n`);
    return 0;
  } catch (err) {
    const msg =
      err instanceof ConfigError
        ? `bad setting ${err.message}`
        : err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
          ? `${(err as Error).message}\n  usage: sigil ${cmd.name} ${cmd.usage}`
          : err instanceof Error && err.name === "StoreUnavailableError"
            ? "cannot reach Redis at REDIS_URL"
            : err instanceof Error
              ? err.message
              : String(err);
    output.err(`sigil: ${msg}\n`);
    return 1;
  } finally {
    await opened?.close();
  }
}
