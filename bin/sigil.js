#!/usr/bin/env node
// The `sigil` command. In a checkout (src/ present) it runs the TypeScript source through tsx,
// so it can never run a stale build. tsx is a development dependency: where it is not installed
// (an installed package, which ships only dist/, or a checkout after `npm prune --omit=dev`) the
// build in dist/ runs instead.
import { existsSync } from "node:fs";

const source = new URL("../src/cli.ts", import.meta.url);
const built = new URL("../dist/cli.js", import.meta.url);

/** tsx's loader API, or undefined when tsx is not installed. */
async function tsx() {
  try {
    return await import("tsx/esm/api");
  } catch (err) {
    if (err?.code === "ERR_MODULE_NOT_FOUND") return undefined;
    throw err;
  }
}

/**
 * Runs the command with this process's arguments, environment and standard streams; its status is
 * the exit code. Standard input is touched only when read (`--password -`), so a command that
 * does not read it never waits on it.
 */
async function run(cli) {
  const { runCli } = await import(cli.href);
  process.exitCode = await runCli(process.argv.slice(2), process.env, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    input: { [Symbol.asyncIterator]: () => process.stdin[Symbol.asyncIterator]() },
  });
}

const loader = existsSync(source) ? await tsx() : undefined;
if (loader) {
  loader.register();
  await run(source);
} else if (existsSync(built)) {
  await run(built);
} else {
  console.error(
    existsSync(source)
      ? "sigil: cannot run: tsx is not installed (npm install) and there is no build in dist/ (npm run build)."
      : "sigil: cannot run: dist/cli.js is missing; this installation is incomplete.",
  );
  process.exit(1);
}
