// Data flows one way (docs/architecture.md): http/ and realtime/ call domain/, which alone holds
// the store. `npm run deps` keeps them from importing any of store/ but its port (record types and
// pure helpers); this reads their source (TypeScript's parser, no type check) for what an import
// rule cannot see: the store itself in their hands, as `deps.store`, a `store` taken out of an
// object, or a parameter typed with the Store or one of its parts (SessionStore, …).
import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { ROOT } from "./support/processes.js";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Names imported from store/ that are the store or one of its parts, rather than a record type or helper. */
const STORE_NAME = /^(Store|Opened\w*|openStore|\w+Store|AttemptLimiter|LimiterSpec)$/;

/** Where a file of http/ or realtime/ reaches the store: "path:line: what". */
export function storeReaches(path: string, text: string): string[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${relative(ROOT, path)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (/(^|\/)store\//.test(node.moduleSpecifier.text)) {
        const named = node.importClause?.namedBindings;
        if (named && ts.isNamedImports(named)) {
          for (const el of named.elements) {
            const name = (el.propertyName ?? el.name).text;
            if (STORE_NAME.test(name)) at(el, `imports ${name} from ${node.moduleSpecifier.text}`);
          }
        } else if (named) at(named, `imports all of ${node.moduleSpecifier.text}`);
      }
    }
    if (ts.isPropertyAccessExpression(node) && node.name.text === "store") at(node, node.getText(sf));
    if (ts.isBindingElement(node) && (node.propertyName ?? node.name).getText(sf) === "store")
      at(node, `{ store } taken out of an object`);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe("Layers: http/ and realtime/ reach data through domain/", () => {
  it("When http/ and realtime/ are read, then none of their files holds the store", () => {
    const files = [...sources(join(ROOT, "src/http")), ...sources(join(ROOT, "src/realtime"))];
    expect(files.length, "files read").to.be.greaterThan(20);
    const found = files.flatMap((f) => storeReaches(f, readFileSync(f, "utf8")));
    expect(found, "the store reached from http/ or realtime/ (call a domain use case instead)").to.deep.equal([]);
  });

  it("When a file calls deps.store, takes store out of deps or imports the Store type, then the check names it", () => {
    const text = [
      'import type { Store, UserRecord } from "../store/port.js";',
      'import { corsOriginKey } from "../../store/port.js";',
      "export function f(deps: { store: Store }) {",
      "  const { store } = deps;",
      "  return deps.store.sessions.get(corsOriginKey('x') ?? '') ?? store;",
      "}",
    ].join("\n");
    const found = storeReaches(join(ROOT, "src/http/example.ts"), text);
    expect(found).to.deep.equal([
      "src/http/example.ts:1: imports Store from ../store/port.js",
      "src/http/example.ts:4: { store } taken out of an object",
      "src/http/example.ts:5: deps.store",
    ]);
  });
});

describe("Test files stand alone", () => {
  it("When test/ is read, then no test file imports another (mocha would run the imported file's suites again in each worker that loads it)", () => {
    const offenders: string[] = [];
    for (const file of readdirSync(join(ROOT, "test")).filter((f) => f.endsWith(".test.ts"))) {
      const text = readFileSync(join(ROOT, "test", file), "utf8");
      for (const m of text.matchAll(/from "(\.[^"]*\.test\.js)"/g)) offenders.push(`test/${file} imports ${m[1]}`);
    }
    expect(offenders).to.deep.equal([]);
  });
});

describe("Rooms that fit on a screen", () => {
  it("When src/ is read, then no file is over 400 lines (split a longer one by what it does)", () => {
    const files = [...sources(join(ROOT, "src")), ...sources(join(ROOT, "client/src"))];
    expect(files.length, "files read").to.be.greaterThan(100);
    const long = files
      .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, "utf8").split("\n").length - 1 }))
      .filter((f) => f.lines > 400);
    expect(long, "files over 400 lines").to.deep.equal([]);
  });
});
