// Builds the pages' script (src/pages-js/passkeys.ts, with @simplewebauthn/browser inside) into
// dist/browser/passkeys.js: one minified IIFE the service serves as /assets/passkeys.<hash>.js.
// Run by `npm run build` and `npm test` (pretest); a test file run by hand builds it when missing.
import { build } from "esbuild";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const result = await build({
  entryPoints: [join(root, "src/pages-js/passkeys.ts")],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2020",
  minify: true,
  legalComments: "eof",
  logLevel: "warning",
  outfile: join(root, "dist/browser/passkeys.js"),
  write: false,
});
// Written beside its place under this process's own name and renamed over it: a node reading the
// script while it is rebuilt (npm start during the test suite) reads the old file or the new.
for (const { path, contents } of result.outputFiles) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.${process.pid}.tmp`, contents);
  renameSync(`${path}.${process.pid}.tmp`, path);
}
