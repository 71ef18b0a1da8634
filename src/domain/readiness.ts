// Readiness (GET /readyz, docs/http-api.md#operations): this node is ready when its store answers
// within a second.
import { StoreUnavailableError } from "../errors.js";
import type { Store } from "../store/port.js";

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("timeout")), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}

export class Readiness {
  constructor(
    private readonly store: Store,
    private readonly timeoutMs = 1000,
  ) {}

  /** The store's kind once it answers; StoreUnavailableError (a 503) when it fails or is silent. */
  async check(): Promise<Store["kind"]> {
    try {
      await withTimeout(this.store.ping(), this.timeoutMs);
    } catch (err) {
      // Logged once (with the cause) and answered 503 by the error mapping.
      throw err instanceof StoreUnavailableError ? err : new StoreUnavailableError(err);
    }
    return this.store.kind;
  }
}
