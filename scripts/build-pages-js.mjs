// Builds the pages' script (src/pages-js/passkeys.ts, with @simplewebauthn/browser inside) into
// dist/browser/passkeys.js: one minified IIFE the service serves as /assets/passkeys.<hash>.js.
// Run by `npm run build` and `npm test` (pretest); a test file run by hand builds it when missing.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
await build({
  entryPoints: [join(root, "src/pages-js/passkeys.ts")],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2020",
  minify: true,
  legalComments: "eof",
  logLevel: "warning",
  outfile: join(root, "dist/browser/passkeys.js"),
});
