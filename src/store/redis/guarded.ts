// Every Redis call of the store goes through guarded(): a failure of the connection becomes the
// one error the port promises, StoreUnavailableError.
import { StoreUnavailableError } from "../../errors.js";

/** Runs a Redis call; any failure of the connection becomes StoreUnavailableError. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new StoreUnavailableError(err);
  }
}
