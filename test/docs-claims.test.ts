// The README and docs/ against the code, without a server: the settings docs/settings.md names are
// the ones src/config.ts reads, the commands docs/cli.md describes are the CLI's, every relative
// link and every file path named leads to something that exists, the README's "Code layout" names
// every part of src/ and its startNode line matches src/node.ts, and the README stays under 40 KB.
import { expect } from "chai";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { commands, usage } from "../src/cli/commands.js";
import { loadConfig } from "../src/config.js";
import { ROOT } from "./support/processes.js";
import { renderSettingsDoc } from "../scripts/settings-doc.js";

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const DOCS = readdirSync(join(ROOT, "docs"))
  .filter((f) => f.endsWith(".md"))
  .map((f) => `docs/${f}`);
/** Every Markdown page a newcomer reads: the README, docs/, the client's README. */
const PAGES = ["README.md", ...DOCS, "client/README.md"];

/** Markdown without its fenced code blocks (links and prose only). */
const prose = (md: string) => md.replace(/^```[\s\S]*?^```/gm, "");

/** The environment variables loadConfig reads: it is given an environment that notes each read. */
function settingsRead(): Set<string> {
  const read = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_t, key) {
      if (typeof key === "string") read.add(key);
      return undefined;
    },
  });
  loadConfig(env);
  return read;
}

/** Names in the first cell of the Markdown table rows of `md` that look like settings (`NAME`). */
function settingsInTables(md: string): Set<string> {
  const names = new Set<string>();
  for (const line of md.split("\n")) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (!cell) continue;
    for (const m of cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]!);
  }
  return names;
}

/** GitHub's anchor for each heading of a Markdown page. */
function anchors(md: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of prose(md).matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const base = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The README's "Code layout" block. */
function codeLayout(): string {
  const readme = read("README.md");
  const m = /^## Code layout\n[\s\S]*?^```\n([\s\S]*?)^```/m.exec(readme);
  expect(m, 'the README has a "Code layout" section with a code block').to.not.equal(null);
  return m![1]!;
}

/** Property names of an exported interface in a TypeScript source. */
function interfaceKeys(source: string, name: string): string[] {
  const body = new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`).exec(source)?.[1];
  expect(body, `interface ${name}`).to.be.a("string");
  return [...body!.matchAll(/^ {2}(?:readonly )?(\w+)\??[:(]/gm)].map((m) => m[1]!);
}

describe("What the README and docs/ claim", () => {
  it("When the README is read, then it is under 40 KB", () => {
    const size = statSync(join(ROOT, "README.md")).size;
    expect(size, "README.md bytes").to.be.at.most(40 * 1024);
  });

  it("When docs/settings.md lists the settings, then it lists exactly those src/config.ts reads", () => {
    const inCode = settingsRead();
    const inDoc = settingsInTables(read("docs/settings.md"));
    expect(
      [...inDoc].filter((n) => !inCode.has(n)),
      "in docs/settings.md, not read by src/config.ts",
    ).to.deep.equal([]);
    expect(
      [...inCode].filter((n) => !inDoc.has(n)),
      "read by src/config.ts, not in docs/settings.md",
    ).to.deep.equal([]);
  });

  it("When docs/settings.md is read, then its tables are what the settings table makes (npm run docs:settings)", () => {
    const doc = read("docs/settings.md");
    expect(doc === renderSettingsDoc(doc), "docs/settings.md is stale: run npm run docs:settings").to.equal(true);
  });

  it("When a setting's row changes in src/config/, then the check sees the doc as stale", () => {
    const doc = read("docs/settings.md");
    const edited = doc.replace(/^\| `PORT` \| [^|]*\|/m, "| `PORT` | something else |");
    expect(edited).to.not.equal(doc);
    expect(renderSettingsDoc(edited)).to.equal(doc);
  });

  it("When the README's settings table names a setting, then src/config.ts reads it", () => {
    const section = /^## Settings\n([\s\S]*?)^## /m.exec(read("README.md"))?.[1] ?? "";
    const named = settingsInTables(section);
    expect(named.size, "settings in the README's table").to.be.above(5);
    const inCode = settingsRead();
    expect([...named].filter((n) => !inCode.has(n))).to.deep.equal([]);
  });

  it("When docs/cli.md describes the commands, then they are the CLI's, with the CLI's options", () => {
    const doc = read("docs/cli.md");
    const headings = [...doc.matchAll(/^## sigil (.+?) *$/gm)].map((m) => m[1]!);
    expect(headings.toSorted()).to.deep.equal(commands.map((c) => c.name).toSorted());
    for (const cmd of commands) {
      expect(usage()).to.include(`sigil ${cmd.name} `);
      // The command's synopsis: the first code block under its heading.
      const section = doc.split(`## sigil ${cmd.name}\n`)[1]!.split(/^## /m)[0]!;
      const synopsis = /^```\n([\s\S]*?)^```/m.exec(section)?.[1] ?? "";
      expect(synopsis, `synopsis of sigil ${cmd.name}`).to.match(new RegExp(`^sigil ${cmd.name}\\b`));
      const documented = new Set([...synopsis.matchAll(/--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!));
      expect([...documented].toSorted(), `options of sigil ${cmd.name}`).to.deep.equal(
        Object.keys(cmd.options).toSorted(),
      );
    }
  });

  it("When the README or docs/ name a `sigil <group> <verb>` command, then the CLI has it", () => {
    const groups = new Set(commands.map((c) => c.name.split(" ")[0]!));
    const names = new Set(commands.map((c) => c.name));
    const unknown: string[] = [];
    for (const page of PAGES) {
      for (const m of read(page).matchAll(/\bsigil ([a-z0-9]+) ([a-z0-9][a-z0-9-]*)/g)) {
        if (groups.has(m[1]!) && !names.has(`${m[1]} ${m[2]}`)) unknown.push(`${page}: ${m[0]}`);
      }
    }
    expect(unknown).to.deep.equal([]);
  });

  it("When the README or docs/ link to a file or a heading, then it exists", () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const m of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const file = path === "" ? page : relative(ROOT, join(ROOT, dirname(page), decodeURIComponent(path)));
        if (!existsSync(join(ROOT, file))) {
          broken.push(`${page}: ${target} (no ${file})`);
          continue;
        }
        if (anchor !== undefined && file.endsWith(".md") && !anchors(read(file)).has(anchor)) {
          broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
        }
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it("When the README or docs/ name a source, test or doc file, then it exists", () => {
    const missing: string[] = [];
    for (const page of PAGES) {
      const named = read(page).matchAll(
        /(?<![\w./-])((?:src|test|docs|scripts|bin|assets|client\/src)\/[\w./-]*\.(?:ts|tsx|md|mjs|cjs|js|css|svg))\b/g,
      );
      for (const m of named) if (!existsSync(join(ROOT, m[1]!))) missing.push(`${page}: ${m[1]}`);
    }
    expect(missing).to.deep.equal([]);
  });

  it("When the README's Code layout lists the parts of src/, then each exists and none is left out", () => {
    const block = codeLayout();
    const listed = new Set<string>();
    let folder = "";
    for (const line of block.split("\n")) {
      const m = /^( *)(\S.*?)(?: {2,}|$)/.exec(line);
      if (!m || m[1]!.length > 4) continue; // a continuation line
      const [first, ...more] = m[2]!.split(", ");
      const path = m[1]!.length > 0 ? folder + first : first!;
      if (m[1]!.length === 0 && first!.endsWith("/")) folder = first!;
      listed.add(path.replace(/\/$/, ""));
      for (const other of more) listed.add(join(dirname(path), other).replace(/\/$/, ""));
    }
    for (const path of listed) expect(existsSync(join(ROOT, path)), `${path} (Code layout)`).to.equal(true);
    const parts = readdirSync(join(ROOT, "src")).map((f) => `src/${f}`);
    expect(parts.filter((p) => !listed.has(p))).to.deep.equal([]);
    const mentioned = block.matchAll(/(?<![\w./-])((?:src|test|scripts|bin|client)\/[\w./-]*\.(?:ts|tsx|mjs|js))\b/g);
    for (const m of mentioned) expect(existsSync(join(ROOT, m[1]!)), `${m[1]} (Code layout)`).to.equal(true);
  });

  it("When the README or docs/ give startNode's signature, then it is src/node.ts's", () => {
    const source = read("src/node.ts");
    const options = interfaceKeys(source, "NodeOptions").toSorted();
    const result = interfaceKeys(source, "SigilNode").toSorted();
    const list = (s: string) => s.split(",").map((w) => w.trim());
    expect(codeLayout(), "the README's Code layout").to.match(/startNode\(config, \{/);
    for (const page of PAGES) {
      for (const m of read(page).matchAll(/startNode\(config, \{([^}]*)\}\) → \{([^}]*)\}/g)) {
        expect(list(m[1]!).toSorted(), `startNode's options in ${page}`).to.deep.equal(options);
        expect(list(m[2]!).toSorted(), `what startNode returns in ${page}`).to.deep.equal(result);
      }
    }
    expect(read("test/support/nodes.ts")).to.match(/import \{ startNode as \w+ \} from "\.\.\/\.\.\/src\/node\.js"/);
  });
});
