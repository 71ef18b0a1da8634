// Every Redis call of the store goes through guarded(): a failure of the connection becomes the
// one error the port promises, StoreUnavailableError.
import { StoreUnavailableError } from "../../errors.js";

/**
 * Runs a Redis call; any failure of the connection becomes StoreUnavailableError. Not an async
 * function: the call's own promise, with the mapping, is the answer (one promise and one resumption
 * fewer on every store call).
 */
export function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return fn().then(undefined, unavailable);
  } catch (err) {
    return Promise.reject(new StoreUnavailableError(err));
  }
}

const unavailable = (err: unknown): never => {
  throw new StoreUnavailableError(err);
};
