// npm run docs:settings — writes the settings tables of docs/settings.md from the settings table
// (src/config/): each area's rows between its markers `<!-- settings:ID -->` and
// `<!-- /settings:ID -->`, one row per setting (variable, meaning, default, values). The prose
// around the tables is the doc's own. `--check` changes nothing and exits 1 when the doc is stale
// (test/docs-claims.test.ts runs the same check).
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { areas } from "../src/config/settings.js";
import type { Area } from "../src/config/setting.js";

const DOC = fileURLToPath(new URL("../docs/settings.md", import.meta.url));

/** One area's table, as Markdown lines. */
export function settingsTable(a: Area): string {
  const rows = Object.entries({ ...a.settings, ...a.patterns }).map(
    ([name, s]) => `| \`${name}\` | ${s.doc.meaning} | ${s.doc.default} | ${s.doc.values} |`,
  );
  return [`| variable | meaning | default | ${a.valuesHeading} |`, "|---|---|---|---|", ...rows].join("\n");
}

/** The doc with every area's table written between its markers; throws when a marker is missing. */
export function renderSettingsDoc(doc: string): string {
  let out = doc;
  for (const a of areas) {
    const open = `<!-- settings:${a.id} -->`;
    const close = `<!-- /settings:${a.id} -->`;
    const i = out.indexOf(open);
    const j = out.indexOf(close);
    if (i < 0 || j < i) throw new Error(`docs/settings.md: no ${open} … ${close} for the ${a.id} settings`);
    out = `${out.slice(0, i + open.length)}\n\n${settingsTable(a)}\n\n${out.slice(j)}`;
  }
  return out;
}

export function settingsDocPath(): string {
  return DOC;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const doc = readFileSync(DOC, "utf8");
  const next = renderSettingsDoc(doc);
  if (process.argv.includes("--check")) {
    if (next !== doc) {
      process.stderr.write("docs/settings.md is stale: run npm run docs:settings\n");
      process.exit(1);
    }
  } else if (next !== doc) {
    writeFileSync(DOC, next);
    process.stdout.write("docs/settings.md written\n");
  } else process.stdout.write("docs/settings.md is current\n");
}
