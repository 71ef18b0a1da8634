// npm run test:repeat -- N [mocha arguments]: runs the mocha suite of `npm test` N times, one run
// after another, and ends with every test that failed at least once: in how many of the N runs,
// and with which messages. A test that fails at random shows up here with its count instead of
// being rerun until it passes.
//
// Everything after N goes to mocha as given; when none of it names a test file (a .ts file), the whole
// suite's glob is added. Each run writes mocha's JSON report and its own output (what the tests
// print: the causes they log on failure) to a directory under the system's temporary one, printed
// at the start; each run has a time limit (TEST_REPEAT_RUN_MINUTES, default 60) after which its
// process group is killed and the run counts as unfinished. The client bundle and the pages'
// script are built once first, as `npm test` does (its type check, lint and import rules do not
// change from run to run and are left out; TEST_REPEAT_BUILD=off skips the build). Each run sees TEST_REPEAT_RUN (1…N) in its environment.
// Exit status: 0 when every run finished with no failure, else 1.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SUITE = "test/**/*.test.ts";

const [first, ...rest] = process.argv.slice(2);
const runs = first === undefined ? 1 : Number(first);
if (!Number.isInteger(runs) || runs < 1) {
  console.error("usage: npm run test:repeat -- N [mocha arguments or test files]   (N: how many runs, 1 or more)");
  process.exit(2);
}
const mochaArgs = rest.some((a) => /\.ts$/.test(a)) ? rest : [...rest, SUITE];
const runMinutes = Number(process.env.TEST_REPEAT_RUN_MINUTES ?? 60);
const dir = mkdtempSync(join(tmpdir(), "sigil-test-repeat-"));
const mocha = join(root, "node_modules", "mocha", "bin", "mocha.js");

console.log(`test:repeat: ${runs} run(s) of mocha ${mochaArgs.join(" ")}; reports and output in ${dir}`);
const built =
  process.env.TEST_REPEAT_BUILD === "off"
    ? { status: 0 }
    : spawnSync("npm", ["run", "pretest", "--silent"], { cwd: root, stdio: "inherit" });
if (built.status !== 0) {
  console.error("test:repeat: the build before the tests (npm run pretest) failed");
  process.exit(1);
}

/** One mocha run: its JSON report, or why there is none. */
function runOnce(i) {
  const report = join(dir, `run-${i}.json`);
  const log = join(dir, `run-${i}.log`);
  const out = openSync(log, "w");
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [mocha, ...mochaArgs, "--reporter", "json", "--reporter-option", `output=${report}`],
    // Its own process group, so that a run over its time limit is stopped with every child it started.
    { cwd: root, env: { ...process.env, TEST_REPEAT_RUN: String(i) }, stdio: ["ignore", out, out], detached: true },
  );
  // The JSON report comes at the end: meanwhile, a line a minute says the run is going on.
  const alive = setInterval(
    () => console.log(`run ${i}/${runs}: running for ${Math.round((Date.now() - started) / 60_000)} min`),
    60_000,
  );
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, runMinutes * 60_000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      clearInterval(alive);
      closeSync(out);
      const seconds = Math.round((Date.now() - started) / 1000);
      const base = { run: i, seconds, log };
      if (timedOut) return resolve({ ...base, unfinished: `killed after the ${runMinutes}-minute limit` });
      if (!existsSync(report))
        return resolve({ ...base, unfinished: `mocha ended (${signal ?? `exit ${code}`}) without a report` });
      try {
        resolve({ ...base, report: JSON.parse(readFileSync(report, "utf8")) });
      } catch (err) {
        resolve({ ...base, unfinished: `its report could not be read: ${err.message}` });
      }
    });
  });
}

/** The first line of a failure's message (the part that says what was expected and what came). */
function message(failure) {
  const err = failure.err ?? {};
  const name = err.name ?? /^(\w*Error)\b/.exec(err.stack ?? "")?.[1];
  const text = err.message ? `${name ? `${name}: ` : ""}${err.message}` : "(no message)";
  return text.split("\n")[0].slice(0, 300);
}

const failed = new Map(); // file + full title → { file, title, runs: Set, messages: Map<message, count> }
const unfinished = [];
for (let i = 1; i <= runs; i++) {
  const r = await runOnce(i);
  if (r.unfinished) {
    unfinished.push(r);
    console.log(`run ${i}/${runs}: did not finish, ${r.unfinished} (${r.seconds} s); output in ${r.log}`);
    continue;
  }
  const { stats, failures } = r.report;
  console.log(
    `run ${i}/${runs}: ${stats.passes} passing, ${stats.failures} failing, ${stats.pending} pending (${r.seconds} s)`,
  );
  for (const f of failures) {
    const file = f.file ? f.file.replace(`${root}/`, "") : "";
    const id = `${file}\0${f.fullTitle}`;
    const entry = failed.get(id) ?? { file, title: f.fullTitle, runs: new Set(), messages: new Map() };
    failed.set(id, entry);
    entry.runs.add(i);
    const m = message(f);
    entry.messages.set(m, (entry.messages.get(m) ?? 0) + 1);
    console.log(`  ✗ ${file} › ${f.fullTitle}\n    ${m}   (output: ${r.log})`);
  }
}

const summary = [...failed.values()].sort((a, b) => b.runs.size - a.runs.size || a.title.localeCompare(b.title));
writeFileSync(
  join(dir, "summary.json"),
  JSON.stringify(
    {
      runs,
      unfinished: unfinished.map(({ run, unfinished: why, log }) => ({ run, why, log })),
      failed: summary.map((e) => ({
        file: e.file,
        title: e.title,
        failedRuns: [...e.runs],
        messages: Object.fromEntries(e.messages),
      })),
    },
    null,
    2,
  ),
);

console.log(`\ntest:repeat: ${runs} run(s), ${unfinished.length} unfinished`);
if (summary.length === 0) console.log("No test failed in any finished run.");
else {
  console.log(`Tests that failed at least once (${summary.length}):`);
  for (const e of summary) {
    console.log(`  failed in ${e.runs.size} of ${runs} run(s) (${[...e.runs].join(", ")}): ${e.file} › ${e.title}`);
    for (const [m, n] of e.messages) console.log(`      ${n}× ${m}`);
  }
}
console.log(`Summary: ${join(dir, "summary.json")}`);
process.exit(summary.length === 0 && unfinished.length === 0 ? 0 : 1);
