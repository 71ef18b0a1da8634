// How the client's failures are asserted in the client tests: every one is a SigilError.
import { expect } from "chai";
import { SigilError } from "../../client/src/index.js";

/** The SigilError the call rejects with; fails the test if it resolves or rejects with anything else. */
export async function rejection(p: Promise<unknown>): Promise<SigilError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(SigilError);
    return err as SigilError;
  }
  throw new Error("expected the call to fail");
}
