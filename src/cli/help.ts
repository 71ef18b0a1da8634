// `sigil --help` (or `-h`, `help`), `sigil <command> --help`, `sigil <group> --help` and
// `sigil --version` (or `-v`) (docs/cli.md#help-and-version): answered from the command table
// alone, before any setting is read or any store opened, so they work with no settings at all.
import { VERSION } from "../version.js";
import { commands, usage } from "./commands.js";
import type { CliCommand } from "./common.js";

const HELP = new Set(["--help", "-h"]);

/** What to print for these arguments when they ask for help or the version; undefined otherwise. */
export function helpFor(argv: readonly string[]): string | undefined {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) return JSON.stringify({ version: VERSION });
  if (argv.length === 0) return undefined;
  if (argv.length === 1 && (HELP.has(argv[0]!) || argv[0] === "help")) return general();
  if (argv[0] === "help") return about(argv.slice(1));
  // `sigil users create --help` (also after options): only when --help is an option itself, not
  // the value of a string option (`--password --help`) or an argument after `--`.
  const cmd = commandOf(argv);
  if (cmd) return asksHelp(argv.slice(cmd.name.split(" ").length), cmd) ? describe(cmd) : undefined;
  const last = argv.at(-1)!;
  return HELP.has(last) ? about(argv.slice(0, -1)) : undefined;
}

/** The command these arguments name (its words first), if any. */
export function commandOf(argv: readonly string[]): CliCommand | undefined {
  return commands.find((c) => c.name.split(" ").every((w, i) => argv[i] === w));
}

function general(): string {
  return [
    usage(),
    "",
    "  sigil <command> --help   that command's usage and what it does",
    '  sigil --version          {"version"} of this Sigil',
    "Settings (REDIS_URL or DATA_DIR, SECRET, KEY_PREFIX) as the service's: docs/cli.md.",
  ].join("\n");
}

function describe(cmd: CliCommand): string {
  return `usage: sigil ${cmd.name}${cmd.usage ? ` ${cmd.usage}` : ""}\n${cmd.description}`;
}

/** `sigil help users create`, `sigil users --help`: that command, or the commands of that group. */
function about(words: readonly string[]): string | undefined {
  const exact = commands.find((c) => c.name === words.join(" "));
  if (exact) return describe(exact);
  const group = commands.filter((c) => words.length > 0 && words.every((w, i) => c.name.split(" ")[i] === w));
  if (group.length === 0) return undefined;
  return group.map((c) => `  sigil ${c.name}${c.usage ? ` ${c.usage}` : ""}\n      ${c.description}`).join("\n");
}

function asksHelp(args: readonly string[], cmd: CliCommand): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return false;
    if (HELP.has(arg)) return true;
    const name = arg.startsWith("--") && !arg.includes("=") ? arg.slice(2) : undefined;
    if (name !== undefined && Object.hasOwn(cmd.options, name) && cmd.options[name]!.type === "string") i++;
  }
  return false;
}
