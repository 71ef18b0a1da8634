#!/usr/bin/env node
// The `sigil` command. In a checkout (src/ present) it runs the TypeScript source through tsx,
// so it can never run a stale build; an installed package ships only dist/ and runs that.
import { existsSync } from "node:fs";

const source = new URL("../src/cli.ts", import.meta.url);
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(source.href);
} else {
  await import(new URL("../dist/cli.js", import.meta.url).href);
}
