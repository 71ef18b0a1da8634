// What the fuzz suites share: FUZZ_RUNS scales every run (each suite has its own default, a few
// seconds under npm test), FUZZ_SEED replays a failure, and every refused HTTP request must be in
// the contract's error form (CONTRACT §2).
import { expect } from "chai";
import type { TestResponse } from "./http.js";

/** The number of runs: FUZZ_RUNS when set, else the suite's own default. */
export const fuzzRuns = (byDefault: number): number => Number(process.env.FUZZ_RUNS ?? byDefault);

const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** fast-check parameters: numRuns, and the seed to replay when FUZZ_SEED is set. */
export const fcOpts = (numRuns: number) => ({ numRuns, ...(SEED !== undefined ? { seed: SEED } : {}) });

/** The contract's error form: application/json, exactly {error (snake_case), error_description}. */
export function expectContractError(r: TestResponse, what: string): void {
  expect(r.headers["content-type"], `${what}: content-type`).to.match(/^application\/json/);
  expect(r.json, `${what}: body ${r.text.slice(0, 200)}`).to.be.an("object");
  expect(Object.keys(r.json).sort(), what).to.deep.equal(["error", "error_description"]);
  expect(r.json.error, what).to.match(/^[a-z]+(_[a-z]+)*$/);
  expect(r.json.error_description, what).to.be.a("string").and.not.be.empty;
}
