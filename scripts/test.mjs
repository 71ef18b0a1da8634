// `npm test`: the checks (scripts/checks.mjs: type check, ESLint, Prettier, dependency rules) and
// every mocha test, side by side. The checks run at a lower priority (nice 10), so they take the
// CPU the tests leave idle (a test waiting on a timer, a child process or Redis) instead of
// delaying the first test by their half minute; their report is printed after mocha's, in one
// piece. Arguments go to mocha (`npm test -- --grep keep-alive`; naming test files runs only those). The exit status is 1 if either
// failed.
import { spawn } from "node:child_process";
import { setPriority } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => resolve(root, "node_modules/.bin", name);

const checks = spawn(process.execPath, [resolve(root, "scripts/checks.mjs")], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
});
try {
  setPriority(checks.pid, 10); // its children (tsc, eslint, …) inherit it
} catch {
  // not allowed here: they run at the same priority, which is only slower
}
let report = "";
checks.stdout.on("data", (d) => (report += d));
checks.stderr.on("data", (d) => (report += d));
const checked = new Promise((done) => {
  checks.on("error", (err) => done({ ok: false, why: err.message }));
  checks.on("close", (code, signal) => done({ ok: code === 0, why: signal ?? `exit ${code}` }));
});

const args = process.argv.slice(2);
const mocha = spawn(bin("mocha"), args.some((a) => /\.[cm]?[jt]s$/.test(a)) ? args : ["test/**/*.test.ts", ...args], {
  cwd: root,
  stdio: "inherit",
});
const tested = new Promise((done) => {
  mocha.on("error", (err) => done({ ok: false, why: err.message }));
  mocha.on("close", (code, signal) => done({ ok: code === 0, why: signal ?? `exit ${code}` }));
});
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    checks.kill(sig);
    mocha.kill(sig);
  });
}

const [c, m] = await Promise.all([checked, tested]);
process.stdout.write(`\nChecks (type check, ESLint, Prettier, dependency rules), run beside the tests:\n${report}`);
if (!c.ok) process.stdout.write(`✖ checks failed (${c.why})\n`);
if (!m.ok) process.stdout.write(`✖ tests failed (${m.why})\n`);
process.exitCode = c.ok && m.ok ? 0 : 1;
