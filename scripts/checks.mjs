// The checks `npm test` runs before mocha, side by side and cached: the type check (tsc
// --incremental), ESLint, Prettier and dependency-cruiser. One after another they took about a
// minute on a 2-core machine; side by side the type check, the longest, sets the time. Their caches
// live in node_modules/.cache/sigil (a fresh clone has none: then only running them side by side
// helps; `npm ci` empties node_modules, and the caches with it). Each check's output is printed
// when it ends, in one piece; the exit status is 1 if any failed.
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cache = "node_modules/.cache/sigil";
const bin = (name) => `node_modules/.bin/${name}`;

const checks = [
  [
    "typecheck",
    bin("tsc"),
    ["-p", "tsconfig.json", "--incremental", "--tsBuildInfoFile", `${cache}/typecheck.tsbuildinfo`],
  ],
  ["eslint", bin("eslint"), [".", "--cache", "--cache-strategy", "content", "--cache-location", `${cache}/eslint/`]],
  [
    "prettier",
    bin("prettier"),
    ["--check", ".", "--cache", "--cache-strategy", "content", "--cache-location", `${cache}/prettier`],
  ],
  [
    "deps",
    bin("depcruise"),
    ["src", "client/src", "--config", ".dependency-cruiser.cjs", "--cache", `${cache}/depcruise`],
  ],
];

function run([name, command, args]) {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) => (output += `${err.message}\n`));
    child.on("close", (code, signal) => {
      const ok = code === 0;
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`${ok ? "✔" : "✖"} ${name} (${secs} s)${ok ? "" : `: ${signal ?? `exit ${code}`}`}\n`);
      if (!ok) process.stdout.write(`${output.trimEnd()}\n`);
      done(ok);
    });
  });
}

const results = await Promise.all(checks.map(run));
process.exitCode = results.every(Boolean) ? 0 : 1;
