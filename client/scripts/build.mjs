// Builds the client's JavaScript (the declarations come from `tsc -b tsconfig.json` after this):
//   dist/index.js           ES module for bundlers and Node; socket.io-client stays an import
//   dist/browser/client.js  IIFE for <script>, global `Sigil`, minified, socket.io-client inside;
//                           the service serves it as /client.js, and its map as /client.js.map
// and prints the browser bundle's size, minified and gzipped, to keep an eye on it.
import { build } from "esbuild";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = join(root, "src/index.ts");
const common = {
  entryPoints: [entry],
  bundle: true,
  sourcemap: true,
  target: "es2022",
  logLevel: "warning",
  write: false,
};

// Each file is written beside its place and renamed over it, so that a server reading the bundle
// while it is rebuilt (npm start during the test suite) reads the old file or the new, never half;
// the temporary file is this process's own, so two builds at once never write into one.
const results = await Promise.all([
  build({
    ...common,
    format: "esm",
    platform: "neutral",
    external: ["socket.io-client"],
    outfile: join(root, "dist/index.js"),
  }),
  build({
    ...common,
    format: "iife",
    globalName: "Sigil",
    platform: "browser",
    minify: true,
    legalComments: "eof", // licence comments stay in the one file that is served
    outfile: join(root, "dist/browser/client.js"),
  }),
]);
for (const { path, contents } of results.flatMap((r) => r.outputFiles)) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.${process.pid}.tmp`, contents);
  renameSync(`${path}.${process.pid}.tmp`, path);
}

const bundle = readFileSync(join(root, "dist/browser/client.js"));
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(
  `@sigil/client: dist/browser/client.js ${kb(bundle.length)} minified, ${kb(gzipSync(bundle, { level: 9 }).length)} gzipped`,
);
