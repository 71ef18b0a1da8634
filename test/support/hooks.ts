// Mocha's root hooks (a root hook plugin, loaded by .mocharc.json's "require"): hooks for every
// test of every file. They live here, not at the top level of a helper module, because under
// --parallel a worker imports a helper once and runs several files: a top-level hook would be
// registered for the first of them only.
import { closeChannelClients } from "./channel.js";

export const mochaHooks = {
  afterEach(): void {
    closeChannelClients();
  },
};
