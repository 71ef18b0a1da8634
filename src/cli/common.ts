// Shared parts of the `sigil` CLI commands (src/cli/*.ts).
import type { Config } from "../config.js";
import type { OpenedStore } from "../store/index.js";

export class UsageError extends Error {}

export interface CliContext {
  config: Config;
  opened: OpenedStore;
  /** Option values by name; repeated options (multiple: true) are arrays. */
  values: Record<string, string | boolean | Array<string | boolean> | undefined>;
}

export interface CliCommand {
  /** e.g. "users create" */
  name: string;
  usage: string;
  options: Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
  run(ctx: CliContext): Promise<unknown>;
}

export function required(values: CliContext["values"], name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`);
  return v;
}
