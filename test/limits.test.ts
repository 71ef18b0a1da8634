// The rate limits, one table (src/domain/limits.ts) against the docs' (docs/http-api.md#rate-limits),
// and the code against the table: every store limiter is made from one of its rows, never from
// numbers of its own. (What each limit does is tested where it applies: signin-throttle,
// two-factor, email, passkeys-signin-limits, oauth-token, challenges, channel tests.)
import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { loadConfig } from "../src/config.js";
import { LIMITS, SET_LIMITS } from "../src/domain/limits.js";
import { ROOT } from "./support/processes.js";

/** The rows of the table under "## Rate limits": cells by column name, keyed by the limit's name. */
function docRows(): Map<string, Record<string, string>> {
  const md = readFileSync(join(ROOT, "docs/http-api.md"), "utf8");
  const section = /^## Rate limits\n([\s\S]*?)(?=^## )/m.exec(md)?.[1] ?? "";
  const lines = section.split("\n").filter((l) => l.startsWith("|"));
  const cells = (l: string) =>
    l
      .slice(1, -1)
      .split(" | ")
      .map((c) => c.trim());
  const head = cells(lines[0] ?? "|");
  const rows = new Map<string, Record<string, string>>();
  for (const line of lines.slice(2)) {
    const row = Object.fromEntries(cells(line).map((c, i) => [head[i] ?? String(i), c]));
    const name = /^`([^`]+)`$/.exec(row.limit ?? "")?.[1];
    expect(name, `the limit's name, in the first cell of: ${line}`).to.be.a("string");
    expect(rows.has(name!), `${name} listed twice`).to.equal(false);
    rows.set(name!, row);
  }
  return rows;
}

const count = (n: number) => n.toLocaleString("en-US");

/** A window as the docs say it: "10 minutes", "hour", "15 minutes". */
function window(seconds: number): string {
  if (seconds === 3600) return "hour";
  if (seconds % 3600 === 0) return `${seconds / 3600} hours`;
  if (seconds === 60) return "minute";
  if (seconds % 60 === 0) return `${seconds / 60} minutes`;
  return seconds === 1 ? "second" : `${seconds} seconds`;
}

describe("Rate limits: one table", () => {
  it("When docs/http-api.md lists the rate limits, then it lists every limit of src/domain/limits.ts with its numbers and settings", () => {
    const rows = docRows();
    const { config } = loadConfig({});
    const expected = new Map<string, string>();
    for (const l of Object.values(LIMITS)) expected.set(l.name, `${count(l.points)} per ${window(l.windowSeconds)}`);
    for (const l of Object.values(SET_LIMITS)) {
      const { points, windowSeconds } = l.of(config);
      const per = "windowSetting" in l ? `\`${l.windowSetting}\` (${count(windowSeconds)} s)` : window(windowSeconds);
      expected.set(l.name, `\`${l.setting}\` (${count(points)}) per ${per}`);
    }
    expect([...rows.keys()].toSorted(), "the limits the docs list").to.deep.equal([...expected.keys()].toSorted());
    for (const [name, number] of expected) {
      const said = rows.get(name)!.number ?? "";
      expect(said.startsWith(number), `docs/http-api.md, ${name}: "${said}" should begin with "${number}"`).to.equal(
        true,
      );
    }
  });

  it("When the limits are named, then no two share a name (the name keys the counters)", () => {
    const names = [...Object.values(LIMITS), ...Object.values(SET_LIMITS)].map((l) => l.name);
    expect(new Set(names).size).to.equal(names.length);
  });

  it("When src/ makes a store limiter, then it is made from a row of LIMITS", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
      );
    const made: string[] = [];
    // store/ defines limiter(spec); everyone else calls it.
    for (const f of files(join(ROOT, "src")).filter((f) => !f.includes(`${join(ROOT, "src/store")}/`))) {
      for (const m of readFileSync(f, "utf8").matchAll(/\.limiter\(([^)]*)\)/g))
        made.push(`${relative(ROOT, f)}: ${m[1]}`);
    }
    // A row of LIMITS, or a row of SET_LIMITS with the settings' numbers (setLimitSpec).
    const fixed = made.filter((m) => /: LIMITS\.\w+$/.test(m));
    const set = made.filter((m) => /: setLimitSpec\(SET_LIMITS\.\w+, [\w.]+$/.test(m));
    expect(
      made.filter((m) => !fixed.includes(m) && !set.includes(m)),
      "limiters made from numbers of their own",
    ).to.deep.equal([]);
    // Each row makes one limiter (a second would count apart from the first on the embedded store).
    const rows = fixed.map((m) => m.replace(/^.*: LIMITS\./, ""));
    expect(rows.toSorted(), "the rows limiters are made from").to.deep.equal(Object.keys(LIMITS).toSorted());
    const setRows = set.map((m) => /SET_LIMITS\.(\w+)/.exec(m)![1]!);
    expect(new Set(setRows).size, "each SET_LIMITS row makes one limiter at most").to.equal(setRows.length);
  });
});
