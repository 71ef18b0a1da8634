// What the fuzz suites share: FUZZ_RUNS scales every run (each suite has its own default, a few
// seconds under npm test), FUZZ_SEED replays a failure, and every refused HTTP request must be in
// the documented error form (docs/errors.md).
import { expect } from "chai";
import fc from "fast-check";
import type { TestResponse } from "./http.js";

/** The number of runs: FUZZ_RUNS when set, else the suite's own default. */
export const fuzzRuns = (byDefault: number): number => Number(process.env.FUZZ_RUNS ?? byDefault);

const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** fast-check parameters: numRuns, and the seed to replay when FUZZ_SEED is set. */
export const fcOpts = (numRuns: number) => ({ numRuns, ...(SEED !== undefined ? { seed: SEED } : {}) });

/**
 * fcOpts for an async property that must end within budgetMs (less than the test's own timeout):
 * fast-check stops itself there and reports a failure, with the counterexample shrunk so far if it
 * found one ("Property interrupted after …" if not). Without it a long shrink outlives mocha's
 * timeout: the counterexample is never printed, and the property keeps running in the background,
 * against whatever node the next test started.
 */
export const fcOptsWithin = (numRuns: number, budgetMs: number) => ({
  ...fcOpts(numRuns),
  interruptAfterTimeLimit: budgetMs,
  markInterruptAsFailure: true,
});

/** The documented error form (docs/errors.md#the-error-object): application/json, exactly {error (snake_case), error_description}. */
export function expectContractError(r: TestResponse, what: string): void {
  expect(r.headers["content-type"], `${what}: content-type`).to.match(/^application\/json/);
  expect(r.json, `${what}: body ${r.text.slice(0, 200)}`).to.be.an("object");
  expect(Object.keys(r.json).sort(), what).to.deep.equal(["error", "error_description"]);
  expect(r.json.error, what).to.match(/^[a-z]+(_[a-z]+)*$/);
  expect(r.json.error_description, what).to.be.a("string").and.not.be.empty;
}

/**
 * Content-Encodings a client may claim for a body (docs/errors.md: unknown, or not matching the
 * bytes, is 400 invalid_request): real ones (no fuzzed body is really compressed), unknown ones,
 * lists and odd spellings.
 */
export const CONTENT_ENCODINGS = [
  "gzip",
  "deflate",
  "br",
  "x-gzip",
  "GZIP",
  "nope",
  "compress",
  "gzip, br",
  "identity, gzip",
  "identity",
  "",
];

/** Charsets no body can be read in. */
export const BAD_CHARSETS = ["klingon", "utf-7", "x-unknown", "utf-16x"];

/** A header set to add to a request: usually nothing, about one in three a Content-Encoding. */
export const contentEncodingHeader: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.constantFrom(...CONTENT_ENCODINGS).map((e) => ({ "content-encoding": e })) },
);
