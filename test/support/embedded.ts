// The embedded store's equivalent of redisDump (support/redis.ts): every live record of every
// table, one line each ("table [key] => value"), on either engine (LMDB or in process memory), so
// a test can look for what should not be there.
import { EmbeddedStore } from "../../src/store/embedded/index.js";
import type { Store } from "../../src/store/port.js";

/** Runs the embedded store's sweep now (it runs by itself every 30 s). */
export function embeddedSweep(store: Store): Promise<void> {
  if (!(store instanceof EmbeddedStore)) throw new Error(`not the embedded store: ${store.kind}`);
  return store.sweep();
}

export function embeddedDump(store: Store): string {
  if (!(store instanceof EmbeddedStore)) throw new Error(`not the embedded store: ${store.kind}`);
  return store.dump().join("\n");
}
