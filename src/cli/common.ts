// Shared parts of the `sigil` CLI commands (src/cli/*.ts).
import type { Config } from "../config.js";
import type { Services } from "../domain/services.js";
import type { OpenedStore } from "../store/index.js";

export class UsageError extends Error {}

/**
 * What a listing command returns: printed one JSON value a line, as they come (an array, or an
 * async iterable read page by page); none: no output.
 */
export class JsonLines {
  constructor(readonly lines: Iterable<unknown> | AsyncIterable<unknown>) {}
}

export interface CliContext {
  config: Config;
  opened: OpenedStore;
  /** The domain services on that store, wired as a node wires them (createServices). */
  services: Services;
  /** Option values by name; repeated options (multiple: true) are arrays. */
  values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  /** The first line of standard input, its line end stripped ("" when there is none, or unset). */
  readLine?(): Promise<string>;
}

export interface CliCommand {
  /** e.g. "users create" */
  name: string;
  usage: string;
  /** One line for `sigil <command> --help`. */
  description: string;
  options: Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
  run(ctx: CliContext): Promise<unknown>;
  /** Reads only: runs on a store of any data version, and never stamps or migrates it. */
  readOnly?: boolean;
  /** On the embedded store, holds DATA_DIR's lock while it runs (as a server does): refused while a server runs. */
  exclusive?: boolean;
  /** What it prints without REDIS_URL (the embedded store); unset: it refuses, as most commands do. */
  embedded?: () => unknown;
}

export function required(values: CliContext["values"], name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

/**
 * A password option: its value, or with "-" the first line of standard input (kept off the
 * command line, where `ps` and the shell's history show it).
 */
export async function password(ctx: CliContext, name = "password"): Promise<string> {
  const given = required(ctx.values, name);
  if (given !== "-") return given;
  const line = (await ctx.readLine?.()) ?? "";
  if (line === "") throw new UsageError(`--${name} -: standard input gave no password (one line is read)`);
  return line;
}

/** The first line of a stream (without its \n or \r\n), or all of it when it has no line end. */
export async function firstLine(input: AsyncIterable<string | Buffer> | undefined): Promise<string> {
  if (!input) return "";
  // Bytes first, decoded once: a character may be split between chunks.
  const chunks: Buffer[] = [];
  for await (const chunk of input) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    chunks.push(bytes);
    if (bytes.includes(0x0a)) break;
  }
  return Buffer.concat(chunks).toString("utf8").split("\n")[0]!.replace(/\r$/, "");
}

/**
 * An option that takes a value takes the next argument, whatever it is: node's parseArgs refuses
 * "--app -JfrJ…" as ambiguous, and ids, names and passwords may begin with "-". Such pairs are
 * joined ("--app=-JfrJ…", which parseArgs reads as a value) before parsing; "--" ends options.
 */
export function joinOptionValues(args: string[], options: CliCommand["options"]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!; // i < args.length
    if (arg === "--") {
      out.push(...args.slice(i));
      break;
    }
    const name = arg.startsWith("--") && !arg.includes("=") ? arg.slice(2) : undefined;
    const option = name !== undefined && Object.hasOwn(options, name) ? options[name] : undefined;
    if (option?.type === "string" && i + 1 < args.length) {
      out.push(`${arg}=${args[++i]}`);
    } else {
      out.push(arg);
    }
  }
  return out;
}
